// The files one command writes, all or none: each is staged under a temporary name and moved
// into place only by commit(); a command that fails (or is interrupted: cli/interrupts.h)
// before that leaves no file behind, and removes the directories it created.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/interrupts.h"

namespace npusim::cli {

/// Refuses, before any work, a directory a command could not write its files into (it need not
/// exist yet): InputError naming `option`, the path and the system's reason.
void checkOutputDirectory(std::string_view option, const std::filesystem::path& directory);
/// The same for a file a command writes whole: its directory must exist and take files.
void checkOutputFile(std::string_view option, const std::filesystem::path& file);

class OutputFiles {
public:
    OutputFiles() = default;
    OutputFiles(const OutputFiles&) = delete;
    OutputFiles& operator=(const OutputFiles&) = delete;
    /// Removes every staged file and created directory unless commit() ran.
    ~OutputFiles();

    /// Creates the directory (and missing parents); throws RunError naming it when it cannot.
    void makeDirectory(const std::filesystem::path& directory);
    /// Stages a file; throws RunError when it cannot be written.
    void stage(const std::filesystem::path& file, std::string_view content);
    /// Stages a file `write` streams into.
    void stage(const std::filesystem::path& file, const std::function<void(std::ostream&)>& write);
    /// Moves every staged file to its final name.
    void commit();

private:
    std::vector<std::filesystem::path> createdDirectories_;
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> staged_;  ///< temporary, final
    std::vector<RemovedOnInterrupt> unfinished_;  ///< the staged files and created directories
    bool committed_ = false;
};

}  // namespace npusim::cli
