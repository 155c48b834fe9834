// The compiler pipeline, one readable list: ONNX -> graph IR -> graph passes -> tile IR ->
// memory IR -> commands -> artifact. Every level's IR is kept, for --emit and for reports.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arch/arch_config.h"
#include "arch/artifact.h"
#include "arch/isa.h"
#include "compiler/graph/graph.h"
#include "compiler/memory/memory_ir.h"
#include "compiler/graph/precision.h"
#include "compiler/passes/quantize_int8.h"
#include "compiler/target/codegen.h"
#include "compiler/tile/tile_ir.h"
#include "compiler/tiling/mapping.h"
#include "compiler/tiling/tiling.h"

namespace npusim::compiler {

struct Compilation {
    Graph source;  ///< as imported: the reference semantics
    Graph graph;   ///< after the graph passes
    TileProgram tiles;
    MemoryPlan memory;
    std::vector<CodeSegment> segments;  ///< NPU jobs and CPU ops, in execution order
    Artifact artifact;
    std::vector<OpMapping> mapping;  ///< where each op runs (after fusion)
};

/// The IR levels --emit can print.
enum class IrLevel { Graph, Tile, Memory, Isa };

struct CompileOptions {
    /// Graph inputs fixed to values (importOnnx), for models whose shapes depend on an input.
    std::map<std::string, Tensor> bindings;
    /// Sizes of symbolic input dims (importOnnx).
    std::map<std::string, int64_t> dims;
    /// Merge elementwise kernels into their readers (fuseVectorKernels).
    bool fusion = true;
    /// Fold the streams' periodic runs into loop descriptors (packLoops).
    bool loops = true;
    /// Host memory the compilation may take (0: no limit): a plan estimated to need more is
    /// refused before its commands are generated, naming the op that crosses the limit.
    uint64_t maxMemoryBytes = 0;
    /// The precision of the GEMMs (`--precision`) and the ops kept at another.
    PrecisionOptions precision;
    /// int8's calibration samples (`--calibrate-inputs`), read for the imported graph's
    /// inputs; called once, when the precision is int8.
    std::function<std::vector<CalibrationSet>(const Graph& imported)> calibrationInputs;
    /// The cost model's weights (`--cost-params`, fitted by `npusim calibrate`).
    CostParams costParams;
    /// Schedules to use instead of the search's (calibration's microbenchmarks).
    FixedSchedules fixed;
    /// When set, called after every stage (import, each graph pass, tiling, each fusion,
    /// memory planning, codegen) with the stage's name and its IR as text.
    std::function<void(std::string_view stage, IrLevel level, const std::string& text)> dump;
};

/// Compiles an ONNX model for an architecture. Throws InputError for a model the frontend or
/// the NPU cannot take, naming the ONNX node.
Compilation compileModel(const std::filesystem::path& model, const ArchConfig& config,
                         const CompileOptions& options = {});
/// Runs stages by name, one at a time, as `npusim opt` and the IR text tests do: graph passes
/// (and "lower-precision", at `precision`) on `graph`, then tile passes
/// (compiler/tiling/tile_pass.h) and "plan-memory" on its tile IR, the graph lowered to tiles
/// before the first of them. Returns the IR of the last stage's level as text; InputError
/// names an unknown stage, or a stage of a level already left.
std::string runStages(Graph graph, const ArchConfig& config, std::span<const std::string> stages,
                      const PrecisionOptions& precision = {});

/// Compiles the model once per size of its symbolic dim `symbol` (shape buckets, ascending)
/// into one artifact: the first bucket's compilation, whose artifact holds every bucket
/// (ArtifactManifest::buckets). Throws InputError when the model cannot run padded along
/// the dim (checkPaddable) or a size is not positive.
Compilation compileBuckets(const std::filesystem::path& model, const ArchConfig& config, const std::string& symbol,
                           std::vector<int64_t> sizes, const CompileOptions& options = {});
/// Compiles a graph built in memory; `modelName` and `modelHash` go into the manifest.
Compilation compileGraph(Graph source, const ArchConfig& config, const std::string& modelName,
                         const std::string& modelHash, const CompileOptions& options = {});

std::string printIr(const Compilation& compilation, IrLevel level);

/// Host bytes compiling takes per command of the plan (generated, synchronised, packed).
inline constexpr uint64_t kCompileBytesPerCommand = 256;
/// Refuses, with an InputError naming the op and the sizes, a tile program whose compilation
/// is estimated to need more than `limit` bytes: its constants (held by the graphs, the memory
/// plan and the artifact) and kCompileBytesPerCommand per command the cost model expects.
void checkCompileMemory(const TileProgram& tiles, const Graph& graph, uint64_t limit);
/// How many commands the NPU segments' streams hold together.
size_t commandCount(const Compilation& compilation);

}  // namespace npusim::compiler
