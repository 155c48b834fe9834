// The status line's thread: it reads a clock and an atomic count, and writes stderr.
#include "cli/progress_line.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>

#include <unistd.h>

namespace npusim::cli {

ProgressLine::ProgressLine(std::string label, uint64_t total) : label_(std::move(label)), total_(total) {
    if (::isatty(STDERR_FILENO)) thread_ = std::jthread([this](std::stop_token stop) { show(stop); });
}

ProgressLine::~ProgressLine() {
    if (!thread_.joinable()) return;
    thread_.request_stop();
    thread_.join();
    if (shown_) std::fputs("\r\033[K", stderr);  // the line goes: the command's own output follows
}

void ProgressLine::show(std::stop_token stop) {
    using namespace std::chrono_literals;
    const auto start = std::chrono::steady_clock::now();
    std::mutex mutex;
    std::condition_variable_any wake;
    std::unique_lock lock(mutex);
    if (wake.wait_for(lock, stop, 2s, [] { return false; })) return;
    while (!stop.stop_requested()) {
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const uint64_t done = done_.load(std::memory_order_relaxed);
        if (total_ > 0) {
            std::fprintf(stderr, "\r\033[K%s: %llu of %llu commands (%.0f%%), %.0f s", label_.c_str(),
                         static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_),
                         100.0 * static_cast<double>(done) / static_cast<double>(total_), seconds);
        } else {
            std::fprintf(stderr, "\r\033[K%s: %.0f s", label_.c_str(), seconds);
        }
        std::fflush(stderr);
        shown_ = true;
        wake.wait_for(lock, stop, 500ms, [] { return false; });
    }
}

}  // namespace npusim::cli
