// Running one point of a sweep: compile the model for the design point, simulate it, and
// summarise the report into a database row. One point per process (one SystemC elaboration).
// A model is read once for all the points that share it: its hash and its imported graph.
#pragma once

#include <optional>
#include <string>

#include "cli/sweep/sweep_db.h"
#include "cli/sweep/sweep_spec.h"
#include "compiler/graph/graph.h"

namespace npusim::cli {

/// What decides a point's result: the model's hash, the validated config's hash, the compiler
/// options and timing-only, hashed. InputError when the model or config cannot be read.
std::string sweepPointKey(const SweepPoint& point, bool timingOnly);
/// The same, for a model whose file hashes to `modelSha256`.
std::string sweepPointKey(const SweepPoint& point, bool timingOnly, const std::string& modelSha256);

/// A point's model, read: its file's hash and its graph as imported at the point's dims, or
/// why it could not be imported (the point's row then fails with that reason).
struct ImportedModel {
    std::string sha256;
    std::optional<compiler::Graph> graph;
    std::string error;
};
/// Reads the point's model. InputError when the file cannot be read at all.
ImportedModel importSweepModel(const SweepPoint& point);

/// Compiles and simulates the point (random inputs, seed 1). A model that does not compile
/// or run on the design point gives a row with status "failed" and the reason.
SweepRow runSweepPoint(const SweepPoint& point, bool timingOnly);
/// The same, from the point's model read before (importSweepModel); takes its graph.
SweepRow runSweepPoint(const SweepPoint& point, bool timingOnly, ImportedModel model);

}  // namespace npusim::cli
