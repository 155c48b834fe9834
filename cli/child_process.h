// Running a simulation in a child process: SystemC allows one elaboration per process, and a
// child that crashes or hangs must not take the caller with it.
#pragma once

#include <functional>
#include <string>

namespace npusim::cli {

/// The outcome of a child: its text (what `body` returned), or why there is none.
struct ChildOutcome {
    bool ok = false;
    std::string text;     ///< body's result when ok
    std::string failure;  ///< "timed out after N s", "crashed (signal N)", "ended without a result"
};

/// Forks, runs `body` in the child and returns what it returned; kills the child after
/// `timeoutSeconds`. RunError when no child can be started.
ChildOutcome runInChild(const std::function<std::string()>& body, unsigned timeoutSeconds);

}  // namespace npusim::cli
