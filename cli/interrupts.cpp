// The slot table and the handler (async-signal-safe: unlink, rmdir, write, _exit).
#include "cli/interrupts.h"

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <utility>

#include <sys/wait.h>
#include <unistd.h>

namespace npusim::cli {
namespace {

constexpr size_t kSlots = 256;
constexpr size_t kPathBytes = 1024;

enum SlotState : int { kFree, kWriting, kReady };

struct Slot {
    std::atomic<int> state{kFree};
    RemovedOnInterrupt::Kind kind = RemovedOnInterrupt::Kind::File;
    std::array<char, kPathBytes> path{};
};

// Constant-initialised: the handler never meets a table under construction.
std::array<Slot, kSlots> slots;
std::atomic<pid_t> child{0};

void write(const char* text) {
    const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
    static_cast<void>(ignored);
}

extern "C" void onSignal(int signal) {
    if (const pid_t running = child.load(); running > 0) ::kill(running, SIGTERM);
    for (Slot& slot : slots) {
        if (slot.state.load() == kReady && slot.kind == RemovedOnInterrupt::Kind::File) ::unlink(slot.path.data());
    }
    // Directories, innermost first: a pass removes those already empty; nested ones need a pass
    // per level.
    for (bool removed = true; removed;) {
        removed = false;
        for (Slot& slot : slots) {
            if (slot.state.load() == kReady && slot.kind == RemovedOnInterrupt::Kind::Directory && ::rmdir(slot.path.data()) == 0) {
                slot.state.store(kFree);
                removed = true;
            }
        }
    }
    if (::isatty(STDERR_FILENO)) write("\r\033[K");  // over a progress line, if one is shown
    write(signal == SIGINT ? "npusim: interrupted (SIGINT); unfinished files removed\n"
                           : "npusim: terminated (SIGTERM); unfinished files removed\n");
    ::_exit(128 + signal);
}

}  // namespace

void installInterruptHandlers() {
    struct sigaction action {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, SIGINT);
    sigaddset(&action.sa_mask, SIGTERM);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

void exitIfInterrupted(int childStatus) {
    // A shell reports its child's death by signal N as exit status 128 + N.
    for (const int signal : {SIGINT, SIGTERM}) {
        if ((WIFSIGNALED(childStatus) && WTERMSIG(childStatus) == signal) ||
            (WIFEXITED(childStatus) && WEXITSTATUS(childStatus) == 128 + signal)) {
            onSignal(signal);
        }
    }
}

StoppedOnInterrupt::StoppedOnInterrupt(int pid) { child.store(pid); }

StoppedOnInterrupt::~StoppedOnInterrupt() { child.store(0); }

RemovedOnInterrupt::RemovedOnInterrupt(const std::filesystem::path& path, Kind kind) {
    const std::string text = std::filesystem::absolute(path).string();
    if (text.size() >= kPathBytes) return;
    for (size_t i = 0; i < kSlots; ++i) {
        int expected = kFree;
        if (!slots[i].state.compare_exchange_strong(expected, kWriting)) continue;
        slots[i].kind = kind;
        std::memcpy(slots[i].path.data(), text.c_str(), text.size() + 1);
        slots[i].state.store(kReady);
        slot_ = static_cast<int>(i);
        return;
    }
}

RemovedOnInterrupt::~RemovedOnInterrupt() {
    if (slot_ >= 0) slots[static_cast<size_t>(slot_)].state.store(kFree);
}

RemovedOnInterrupt::RemovedOnInterrupt(RemovedOnInterrupt&& other) noexcept : slot_(std::exchange(other.slot_, -1)) {}

RemovedOnInterrupt& RemovedOnInterrupt::operator=(RemovedOnInterrupt&& other) noexcept {
    if (this != &other) {
        if (slot_ >= 0) slots[static_cast<size_t>(slot_)].state.store(kFree);
        slot_ = std::exchange(other.slot_, -1);
    }
    return *this;
}

}  // namespace npusim::cli
