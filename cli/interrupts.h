// Ctrl-C and kill: a command interrupted by SIGINT or SIGTERM removes the temporary files it
// was writing and the directories it created for its outputs, says so in one line and exits
// 130 or 143. The one process-wide table in the CLI: a signal handler can only read what was
// registered before the signal arrived, so paths wait in fixed slots (no allocation, no lock).
#pragma once

#include <filesystem>

namespace npusim::cli {

/// Installs the handlers; main() calls it before any command runs.
void installInterruptHandlers();

/// Runs the handler's cleanup and exit when a child process ended by SIGINT or SIGTERM (the
/// terminal interrupts the whole process group: the child may see it first).
void exitIfInterrupted(int childStatus);

/// A child process the handler stops (SIGTERM) before exiting, while this object lives.
class StoppedOnInterrupt {
public:
    explicit StoppedOnInterrupt(int pid);
    ~StoppedOnInterrupt();
    StoppedOnInterrupt(const StoppedOnInterrupt&) = delete;
    StoppedOnInterrupt& operator=(const StoppedOnInterrupt&) = delete;
};

/// A path removed if the process is interrupted while this object lives: a temporary file, or a
/// directory created for outputs (removed only when empty, innermost first).
class RemovedOnInterrupt {
public:
    enum class Kind { File, Directory };
    RemovedOnInterrupt(const std::filesystem::path& path, Kind kind);
    ~RemovedOnInterrupt();
    RemovedOnInterrupt(RemovedOnInterrupt&& other) noexcept;
    RemovedOnInterrupt& operator=(RemovedOnInterrupt&& other) noexcept;
    RemovedOnInterrupt(const RemovedOnInterrupt&) = delete;
    RemovedOnInterrupt& operator=(const RemovedOnInterrupt&) = delete;

private:
    int slot_ = -1;  ///< -1: not registered (no free slot, or the path is too long)
};

}  // namespace npusim::cli
