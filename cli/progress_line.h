// A status line on a terminal for work that takes more than a few seconds: compiling a large
// model, simulating millions of commands. Nothing is printed when stderr is not a terminal.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace npusim::cli {

class ProgressLine {
public:
    /// After 2 s, and every half second from then, writes "<label>: <done> of <total> commands
    /// (P%), N s" to stderr (with `total` 0, the seconds alone); erases it when destroyed.
    explicit ProgressLine(std::string label, uint64_t total = 0);
    ~ProgressLine();
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    /// The count the work advances (read by the line's thread only).
    std::atomic<uint64_t>& done() { return done_; }

private:
    void show(std::stop_token stop);

    std::string label_;
    uint64_t total_;
    std::atomic<uint64_t> done_{0};
    bool shown_ = false;  ///< written and read by the line's thread, read after it joined
    std::jthread thread_;
};

}  // namespace npusim::cli
