// On-chip footprints of tile schedules and the values a tile op touches: what schedule search,
// fusion and memory planning all ask of a schedule before they place it.
#include "compiler/tile/footprint.h"

#include <algorithm>
#include <numeric>

#include "arch/int_math.h"

namespace npusim::compiler {
namespace {

/// A transposing DMA writes one element per on-chip row, and a gathered operand's padding
/// fills write columns: a pitch of w bank widths puts a column's elements in banks /
/// gcd(w, banks) of the banks (one at a multiple of the bank period); padded to a w coprime
/// with the bank count, they rotate over every bank.
int64_t paddedPitch(int64_t pitch, bool columns, uint64_t elem, const MemoryConfig& sram) {
    const uint64_t bytes = static_cast<uint64_t>(pitch) * elem;
    if (!columns || bytes % sram.bankWidthBytes != 0) return pitch;
    uint64_t widths = bytes / sram.bankWidthBytes;
    while (std::gcd(widths, uint64_t{sram.banks}) != 1) ++widths;
    return static_cast<int64_t>(widths * sram.bankWidthBytes / elem);
}

}  // namespace

uint64_t valueBytes(const Value& value) {
    return static_cast<uint64_t>(elementCount(value.shape)) * dtypeSize(value.dtype);
}

uint64_t residentFootprint(const Value& value, const MemoryConfig& sram) {
    return alignUp(valueBytes(value), sram.bankPeriod());
}

GemmFootprint gemmFootprint(const GemmProblem& p, const GemmSchedule& s, const ArchConfig& config) {
    GemmFootprint f;
    const uint64_t elem = dtypeSize(p.operandType);
    f.aPitch = paddedPitch(s.kBlock, p.a.transposed, elem, config.sram);
    f.bPitch = paddedPitch(s.nBlock, p.b.transposed || !p.b.gather.empty(), elem, config.sram);
    f.aSlot = static_cast<uint64_t>(s.mBlock * f.aPitch) * elem;
    f.bSlot = static_cast<uint64_t>(s.kBlock * f.bPitch) * elem;
    const GemmBlock fullBlock{0, 0, 0, 0, s.mBlock, s.nBlock, s.kBlock, true, true};
    if (p.bias != kNoValue && !gemmBiasInAccumulator(p)) {
        const BiasExtent bias = gemmBiasExtent(p.biasMode, fullBlock);
        f.biasSlot = static_cast<uint64_t>(bias.rows * bias.rowElements) * 4;
    }
    for (const EpilogueStep* step : epilogueOperandSteps(p)) {
        const BiasExtent operand = gemmBiasExtent(step->operandMode, fullBlock);
        f.operandSlots.push_back(static_cast<uint64_t>(operand.rows * operand.rowElements) * 4);
    }
    f.accumulatorSlot = static_cast<uint64_t>(s.mBlock * s.nBlock) * 4;
    f.slots = s.doubleBuffer ? 2 : 1;
    const uint64_t period = config.sram.bankPeriod();
    uint64_t operands = 0;
    for (uint64_t slot : f.operandSlots) operands += alignUp(slot, period);
    f.sramBytes = f.slots * (alignUp(f.aSlot, period) + alignUp(f.bSlot, period) + alignUp(f.biasSlot, period) + operands);
    f.accumulatorBytes = f.slots * alignUp(f.accumulatorSlot, config.accumulator.bankPeriod());
    return f;
}

std::vector<uint64_t> vectorBufferBytes(const VectorProblem& p, const VectorSchedule& s) {
    const int64_t rows = blockCapacityRows(p, s);
    std::vector<uint64_t> bytes;
    for (const VectorBuffer& buffer : p.buffers) {
        bytes.push_back(static_cast<uint64_t>(bufferElements(p, buffer, rows)) * dtypeSize(buffer.dtype));
    }
    return bytes;
}

uint64_t vectorFootprint(const VectorProblem& p, const VectorSchedule& s, const ArchConfig& config) {
    uint64_t total = 0;
    for (uint64_t bytes : vectorBufferBytes(p, s)) total += alignUp(bytes, config.sram.bankPeriod());
    return (s.doubleBuffer ? 2 : 1) * total;
}

std::vector<ValueId> accessedValues(const TileOp& op) {
    std::vector<ValueId> values;
    if (const auto* gemm = std::get_if<GemmTiles>(&op)) {
        const GemmProblem& p = gemm->problem;
        for (const GemmOperand* operand : {&p.a, &p.b}) {
            if (operand->gather.empty()) values.push_back(operand->value);
            for (const GatherPiece& piece : operand->gather) {
                if (!piece.copy.fill) values.push_back(piece.source);
            }
        }
        values.push_back(p.bias);
        for (const EpilogueStep& step : p.epilogue) values.push_back(step.operand);
        values.push_back(p.residual);
        values.push_back(p.output);
    } else if (const auto* host = std::get_if<HostTiles>(&op)) {
        values = host->host.inputs;
        values.insert(values.end(), host->host.outputs.begin(), host->host.outputs.end());
    } else {
        for (const VectorKernel& kernel : std::get<VectorTiles>(op).kernels) {
            for (const VectorLoad& load : kernel.problem.loads) {
                values.push_back(load.view.value);
                if (load.indices) values.push_back(load.indices->list.value);
            }
            for (const VectorStore& store : kernel.problem.stores) values.push_back(store.view.value);
        }
    }
    std::erase(values, kNoValue);
    return values;
}

}  // namespace npusim::compiler
