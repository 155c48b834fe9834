#include "cli/python_script.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "arch/error.h"

namespace npusim::cli {
namespace {

std::string shellQuoted(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

}  // namespace

void runPythonScript(const std::string& script, const std::vector<std::string>& arguments, const std::string& what) {
    // The script's stderr goes to a scratch file, for its last line.
    std::string log = (std::filesystem::temp_directory_path() / "npusim-script-XXXXXX").string();
    const int fd = mkstemp(log.data());
    if (fd < 0) throw RunError(what + " failed: cannot create a scratch file in " + std::filesystem::temp_directory_path().string());
    close(fd);
    // -B: no __pycache__ beside the scripts in the source tree.
    std::string command = shellQuoted(NPUSIM_PYTHON) + " -B " + shellQuoted(script);
    for (const std::string& argument : arguments) {
        command += ' ';
        command += shellQuoted(argument);
    }
    command += " > /dev/null 2> " + shellQuoted(log);
    const int status = std::system(command.c_str());
    std::string last;
    if (std::ifstream in(log); in) {
        for (std::string line; std::getline(in, line);) {
            if (!line.empty()) last = line;
        }
    }
    std::filesystem::remove(log);
    if (status == 0) return;
    const std::string message = what + " failed: " + (last.empty() ? "no message" : last);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2) throw InputError(message);
    throw RunError(message);
}

}  // namespace npusim::cli
