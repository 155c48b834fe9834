// Tile IR block iteration and printing.
#include "compiler/tile/tile_ir.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <utility>

namespace npusim::compiler {
namespace {

std::string fixed(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    return buffer;
}

std::string estimateText(const CostEstimate& e) {
    return "estimate " + fixed(e.totalCycles) + " cycles (tensor " + fixed(e.tensorCycles) +
           ", vector " + fixed(e.vectorCycles) + ", dma " + fixed(e.dmaCycles) + ", overhead " +
           fixed(e.overheadCycles) + "), dram " + std::to_string(e.dramBytes) + " bytes, " +
           std::to_string(e.commands) + " commands";
}

const char* biasModeName(BiasMode mode) {
    switch (mode) {
        case BiasMode::Scalar: return "scalar";
        case BiasMode::Row: return "row";
        case BiasMode::Column: return "column";
        case BiasMode::Full: return "full";
    }
    return "?";
}

void printGemm(std::ostringstream& out, const GemmTiles& tiles, const Graph& graph) {
    const GemmProblem& p = tiles.problem;
    const GemmSchedule& s = tiles.schedule;
    const Node& node = graph.nodes.at(p.opId);
    out << "tile.gemm @" << node.name << " op=" << p.opId << " " << dtypeName(p.operandType)
        << " -> " << dtypeName(p.accumulatorType);
    if (p.outputType != p.accumulatorType) out << " -> " << dtypeName(p.outputType);
    out << " batch=" << p.batch << " m=" << p.m << " n=" << p.n << " k=" << p.k;
    if (p.a.transposed) out << " a=transposed";
    if (p.b.transposed) out << " b=transposed";
    if (p.a.rowStride) out << " a_row_stride=" << p.a.rowStride;
    if (p.b.rowStride) out << " b_row_stride=" << p.b.rowStride;
    if (p.a.bandColumns) out << " a_bands=" << p.a.bandColumns;
    if (p.b.bandColumns) out << " b_bands=" << p.b.bandColumns;
    if (p.aZeroPoint || p.bZeroPoint) out << " a_zp=" << p.aZeroPoint << " b_zp=" << p.bZeroPoint;
    if (p.alpha != 1.0f) out << " alpha=" << p.alpha;
    if (p.residual != kNoValue) out << " residual=%" << graph.value(p.residual).name;
    if (p.bias != kNoValue) out << " bias=" << biasModeName(p.biasMode) << " beta=" << p.beta;
    if (!p.epilogue.empty()) {
        out << " epilogue=";
        for (size_t i = 0; i < p.epilogue.size(); ++i) {
            const EpilogueStep& step = p.epilogue[i];
            out << (i ? "+" : "") << isa::vectorOpName(step.op);
            if (step.operand == kNoValue) continue;
            out << "(%" << graph.value(step.operand).name << " " << biasModeName(step.operandMode);
            if (step.operandType != DType::Fp32) out << " " << dtypeName(step.operandType) << " dequantized";
            out << ")";
        }
        out << " -> %" << graph.value(p.output).name;
    }
    out << " {\n";
    const char* outer = s.order == GemmLoopOrder::MOuter ? "m" : "n";
    const char* inner = s.order == GemmLoopOrder::MOuter ? "n" : "m";
    const int64_t outerStep = s.order == GemmLoopOrder::MOuter ? s.mBlock : s.nBlock;
    const int64_t innerStep = s.order == GemmLoopOrder::MOuter ? s.nBlock : s.mBlock;
    const int64_t outerExtent = s.order == GemmLoopOrder::MOuter ? p.m : p.n;
    const int64_t innerExtent = s.order == GemmLoopOrder::MOuter ? p.n : p.m;
    out << "  for b in [0, " << p.batch << ") step 1 parallel\n";
    out << "   for " << outer << " in [0, " << outerExtent << ") step " << outerStep << " parallel\n";
    out << "    for " << inner << " in [0, " << innerExtent << ") step " << innerStep << " parallel\n";
    out << "     for k in [0, " << p.k << ") step " << s.kBlock << " reduction\n";
    if (s.transposed) {  // the array computes the block's transpose
        out << "      gemm.block.transposed b^T[" << s.nBlock << "x" << s.kBlock << "] a^T[" << s.kBlock << "x"
            << s.mBlock << "] -> acc[" << s.mBlock << "x" << s.nBlock << "]\n";
    } else {
        out << "      gemm.block a[" << s.mBlock << "x" << s.kBlock << "] b[" << s.kBlock << "x"
            << s.nBlock << "] -> acc[" << s.mBlock << "x" << s.nBlock << "]\n";
    }
    out << "  buffering " << (s.doubleBuffer ? "double" : "single") << "\n";
    out << "  " << estimateText(s.estimate) << "\n}\n";
}

const char* extentName(BufferExtent extent) {
    switch (extent) {
        case BufferExtent::Block: return "block";
        case BufferExtent::Column: return "column";
        case BufferExtent::Row: return "row";
    }
    return "?";
}

std::string join(const std::vector<int64_t>& values) {
    std::string text;
    for (size_t i = 0; i < values.size(); ++i) {
        if (i) text += ",";
        text += std::to_string(values[i]);
    }
    return text;
}

std::string viewText(const TensorView& view, const Graph& graph) {
    std::string text = "%";
    text += graph.value(view.value).name;
    if (view.offset) {
        text += "+";
        text += std::to_string(view.offset);
    }
    return text + " strides [" + join(view.strides) + "]";
}

void printVector(std::ostringstream& out, const VectorTiles& tiles, const Graph& graph) {
    for (const VectorKernel& kernel : tiles.kernels) {
        const VectorProblem& p = kernel.problem;
        const VectorSchedule& s = kernel.schedule;
        out << "tile.vector @" << graph.nodes.at(p.opId).name << " op=" << p.opId << " " << p.name << " dims=[";
        for (size_t d = 0; d < p.dims.size(); ++d) {
            out << (d == 0 ? "" : static_cast<int>(d) == p.rowDims() ? " | " : ",") << p.dims[d];
        }
        out << "] {\n";
        for (int d = 0; d <= s.blockDim; ++d) {
            out << std::string(static_cast<size_t>(d) + 2, ' ') << "for d" << d << " in [0, "
                << p.dims[static_cast<size_t>(d)] << ") step " << (d == s.blockDim ? s.blockExtent : 1)
                << " parallel\n";
        }
        const std::string indent(static_cast<size_t>(s.blockDim) + 3, ' ');
        for (size_t b = 0; b < p.buffers.size(); ++b) {
            out << indent << "buffer v" << b << " " << dtypeName(p.buffers[b].dtype) << " "
                << extentName(p.buffers[b].extent);
            if (p.buffers[b].width > 0) out << " width " << p.buffers[b].width;
            out << "\n";
        }
        for (const VectorLoad& load : p.loads) {
            out << indent << "load v" << load.buffer << " <- " << viewText(load.view, graph);
            if (load.plane) {
                out << " plane [" << join(load.plane->extents) << "] at " << load.plane->onchipOffset << " strides ["
                    << join(load.plane->onchipStrides) << "] pad 0x" << std::hex << load.plane->padBits << std::dec;
            }
            if (load.indices) {
                out << " rows " << load.indices->rowStride << " apart, indexed by " << viewText(load.indices->list, graph)
                    << " of " << load.indices->limit;
            }
            out << "\n";
        }
        for (const VectorStep& step : p.steps) {
            out << indent << "v" << step.dst << " = " << isa::vectorOpName(step.op) << " v" << step.src0;
            if (step.window) out << " window " << step.window->offset << " [" << join(step.window->strides) << "]";
            if (step.src1) out << ", v" << *step.src1;
            if (step.immediate) out << ", imm 0x" << std::hex << *step.immediate << std::dec;
            if (step.immediate2) out << ", imm2 0x" << std::hex << step.immediate2 << std::dec;
            out << "\n";
        }
        for (const VectorStore& store : p.stores) {
            out << indent << "store v" << store.buffer << " -> " << viewText(store.view, graph) << "\n";
        }
        out << "  buffering " << (s.doubleBuffer ? "double" : "single") << "\n";
        out << "  " << estimateText(s.estimate) << "\n}\n";
    }
}

}  // namespace

void forEachGemmBlock(const GemmProblem& problem, const GemmSchedule& schedule,
                      const std::function<void(const GemmBlock&)>& visit) {
    const bool mOuter = schedule.order == GemmLoopOrder::MOuter;
    const int64_t outerExtent = mOuter ? problem.m : problem.n;
    const int64_t innerExtent = mOuter ? problem.n : problem.m;
    const int64_t outerStep = mOuter ? schedule.mBlock : schedule.nBlock;
    const int64_t innerStep = mOuter ? schedule.nBlock : schedule.mBlock;
    for (int64_t b = 0; b < problem.batch; ++b) {
        for (int64_t o = 0; o < outerExtent; o += outerStep) {
            for (int64_t i = 0; i < innerExtent; i += innerStep) {
                for (int64_t k0 = 0; k0 < problem.k; k0 += schedule.kBlock) {
                    GemmBlock block;
                    block.batch = b;
                    block.m0 = mOuter ? o : i;
                    block.n0 = mOuter ? i : o;
                    block.k0 = k0;
                    block.m = std::min(schedule.mBlock, problem.m - block.m0);
                    block.n = std::min(schedule.nBlock, problem.n - block.n0);
                    block.k = std::min(schedule.kBlock, problem.k - k0);
                    block.firstK = k0 == 0;
                    block.lastK = k0 + schedule.kBlock >= problem.k;
                    visit(block);
                }
            }
        }
    }
}

SlotCache::Use SlotCache::use(const BlockKey& key) {
    ++clock_;
    for (size_t slot = 0; slot < keys_.size(); ++slot) {
        if (lastUse_[slot] >= 0 && keys_[slot] == key) {
            lastUse_[slot] = clock_;
            return {static_cast<int>(slot), false};
        }
    }
    const size_t victim = static_cast<size_t>(
        std::min_element(lastUse_.begin(), lastUse_.end()) - lastUse_.begin());
    keys_[victim] = key;
    lastUse_[victim] = clock_;
    return {static_cast<int>(victim), true};
}

BlockKey gemmKeyA(const GemmProblem& problem, const GemmBlock& block) {
    return {problem.a.batchOffsets.at(static_cast<size_t>(block.batch)), block.m0, block.k0};
}

BlockKey gemmKeyB(const GemmProblem& problem, const GemmBlock& block) {
    return {problem.b.batchOffsets.at(static_cast<size_t>(block.batch)), block.k0, block.n0};
}

BlockKey gemmKeyBias(BiasMode mode, const GemmBlock& block) {
    const bool rows = mode == BiasMode::Column || mode == BiasMode::Full;
    const bool cols = mode == BiasMode::Row || mode == BiasMode::Full;
    return {rows ? block.m0 : 0, cols ? block.n0 : 0, 0};
}

BiasExtent gemmBiasExtent(BiasMode mode, const GemmBlock& block) {
    switch (mode) {
        case BiasMode::Scalar: return {1, 1};
        case BiasMode::Row: return {1, block.n};
        case BiasMode::Column: return {1, block.m};
        case BiasMode::Full: return {block.m, block.n};
    }
    return {};
}

bool gemmBiasInAccumulator(const GemmProblem& problem) {
    return problem.bias != kNoValue && (problem.biasMode == BiasMode::Row || problem.biasMode == BiasMode::Full) &&
           problem.alpha == 1.0f && problem.beta == 1.0f && problem.residual == kNoValue;
}

GemmBlock arrayBlock(const GemmBlock& block, const GemmSchedule& schedule) {
    if (!schedule.transposed) return block;
    GemmBlock swapped = block;
    std::swap(swapped.m0, swapped.n0);
    std::swap(swapped.m, swapped.n);
    return swapped;
}

void forEachArrayTile(const TensorUnitConfig& tensor, const GemmBlock& block,
                      const std::function<void(const ArrayTile&)>& visit) {
    const int64_t rows = tensor.rows, cols = tensor.cols;
    if (tensor.dataflow == Dataflow::WeightStationary) {
        for (int64_t k0 = 0; k0 < block.k; k0 += rows) {
            for (int64_t n0 = 0; n0 < block.n; n0 += cols) {
                visit({0, n0, k0, block.m, std::min(cols, block.n - n0), std::min(rows, block.k - k0)});
            }
        }
    } else {
        for (int64_t m0 = 0; m0 < block.m; m0 += rows) {
            for (int64_t n0 = 0; n0 < block.n; n0 += cols) {
                visit({m0, n0, 0, std::min(rows, block.m - m0), std::min(cols, block.n - n0), block.k});
            }
        }
    }
}

std::map<uint32_t, size_t> opPositions(const TileProgram& program) {
    std::map<uint32_t, size_t> position;
    for (size_t i = 0; i < program.ops.size(); ++i) position[tileOpId(program.ops[i])] = i;
    return position;
}

uint32_t tileOpId(const TileOp& op) {
    if (const auto* gemm = std::get_if<GemmTiles>(&op)) return gemm->problem.opId;
    if (const auto* host = std::get_if<HostTiles>(&op)) return host->opId;
    return std::get<VectorTiles>(op).opId;
}

std::string printTileProgram(const TileProgram& program, const Graph& graph) {
    std::ostringstream out;
    for (const TileOp& op : program.ops) {
        if (const auto* gemm = std::get_if<GemmTiles>(&op)) {
            printGemm(out, *gemm, graph);
            continue;
        }
        if (const auto* host = std::get_if<HostTiles>(&op)) {
            out << "tile.host @" << graph.nodes.at(host->opId).name << " op=" << host->opId << " (" << host->reason
                << ")\n" << cpu::printKernel(host->host.kernel);
            continue;
        }
        const auto& vector = std::get<VectorTiles>(op);
        if (vector.kernels.empty()) {
            // An op without kernels says why.
            const Node& node = graph.nodes.at(vector.opId);
            out << "tile.none @" << node.name << " op=" << vector.opId << ": ";
            if (vector.fusedInto) {
                out << "fused into @" << graph.nodes.at(*vector.fusedInto).name << "\n";
            } else if (const auto view = program.views.find(node.outputs.at(0)); view != program.views.end()) {
                out << "a view of %" << graph.value(view->second).name << "\n";
            } else {
                out << "empty result\n";
            }
            continue;
        }
        printVector(out, vector, graph);
    }
    return out.str();
}

}  // namespace npusim::compiler
