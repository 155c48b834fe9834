#include "cli/python_script.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "arch/error.h"
#include "cli/interrupts.h"

namespace npusim::cli {

void runPythonScript(const std::string& script, const std::vector<std::string>& arguments, const std::string& what) {
    // The script's stderr goes to a scratch file, for its last line.
    std::string log = (std::filesystem::temp_directory_path() / "npusim-script-XXXXXX").string();
    const int fd = mkstemp(log.data());
    if (fd < 0) throw RunError(what + " failed: cannot create a scratch file in " + std::filesystem::temp_directory_path().string());
    close(fd);
    const RemovedOnInterrupt scratch(log, RemovedOnInterrupt::Kind::File);
    // -B: no __pycache__ beside the scripts in the source tree.
    std::vector<std::string> words = {NPUSIM_PYTHON, "-B", script};
    words.insert(words.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&files, STDERR_FILENO, log.c_str(), O_WRONLY | O_TRUNC, 0);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &files, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&files);
    int status = 0;
    if (spawned == 0) {
        // Unlike std::system(), the caller stays interruptible: Ctrl-C stops both.
        const StoppedOnInterrupt running(pid);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    std::string last;
    if (std::ifstream in(log); in) {
        for (std::string line; std::getline(in, line);) {
            if (!line.empty()) last = line;
        }
    }
    std::filesystem::remove(log);
    if (spawned != 0) throw RunError(what + " failed: cannot start " + NPUSIM_PYTHON + ": " + std::strerror(spawned));
    if (status == 0) return;
    exitIfInterrupted(status);  // Ctrl-C stopped the script too: the command was interrupted, it did not fail
    const std::string message = what + " failed: " + (last.empty() ? "no message" : last);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2) throw InputError(message);
    throw RunError(message);
}

}  // namespace npusim::cli
