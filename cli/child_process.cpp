#include "cli/child_process.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>

#include "arch/error.h"

namespace npusim::cli {

ChildOutcome runInChild(const std::function<std::string()>& body, unsigned timeoutSeconds) {
    int fds[2];
    if (pipe(fds) != 0) throw RunError("cannot create a pipe for the simulation process");
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) throw RunError("cannot start a simulation process");
    if (pid == 0) {
        close(fds[0]);
        std::string text;
        try {
            text = body();
        } catch (...) {
            _exit(4);  // the parent reports the missing result; nothing unwinds into its code here
        }
        size_t written = 0;
        while (written < text.size()) {
            const ssize_t n = write(fds[1], text.data() + written, text.size() - written);
            if (n <= 0) _exit(3);
            written += static_cast<size_t>(n);
        }
        _exit(0);
    }
    close(fds[1]);
    std::string text;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
    bool timedOut = false;
    while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timedOut = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
        char buffer[4096];
        const ssize_t n = read(fds[0], buffer, sizeof buffer);
        if (n <= 0) break;
        text.append(buffer, static_cast<size_t>(n));
    }
    close(fds[0]);
    if (timedOut) kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    if (timedOut) return {false, "", "timed out after " + std::to_string(timeoutSeconds) + " s"};
    if (WIFSIGNALED(status)) return {false, "", "crashed (signal " + std::to_string(WTERMSIG(status)) + ")"};
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty()) return {false, "", "ended without a result"};
    return {true, std::move(text), ""};
}

}  // namespace npusim::cli
