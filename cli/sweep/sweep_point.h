// Running one point of a sweep: compile the model for the design point, simulate it, and
// summarise the report into a database row. One point per process (one SystemC elaboration).
#pragma once

#include <string>

#include "cli/sweep/sweep_db.h"
#include "cli/sweep/sweep_spec.h"

namespace npusim::cli {

/// What decides a point's result: the model's hash, the validated config's hash, the compiler
/// options and timing-only, hashed. InputError when the model or config cannot be read.
std::string sweepPointKey(const SweepPoint& point, bool timingOnly);

/// Compiles and simulates the point (random inputs, seed 1). A model that does not compile
/// or run on the design point gives a row with status "failed" and the reason.
SweepRow runSweepPoint(const SweepPoint& point, bool timingOnly);

}  // namespace npusim::cli
