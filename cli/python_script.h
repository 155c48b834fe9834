// Running one of npusim's Python scripts (plots) with Debian's Python: its exit status 2 is
// bad input (InputError), any other failure a RunError; either carries the script's last
// line on stderr.
#pragma once

#include <string>
#include <vector>

namespace npusim::cli {

/// Runs `script` with `arguments`; `what` names the task in errors ("drawing the report's plots").
void runPythonScript(const std::string& script, const std::vector<std::string>& arguments, const std::string& what);

}  // namespace npusim::cli
