// The tensor unit's dataflow policies: how long the phases of one tile take and which operand
// each phase reads. One class per dataflow behind one interface, chosen once from the config.
#pragma once

#include <cstdint>
#include <memory>

#include "arch/arch_config.h"

namespace npusim::hw {

/// Phase lengths of one tile on an idle array with operands at hand, in cycles.
struct TilePhases {
    /// Before streaming: the stationary operand enters the array (WS: B, one row per cycle;
    /// OS: the partial sums of C when accumulating). With a double-buffered array it overlaps
    /// the previous tile's stream.
    uint64_t preload = 0;
    /// Operands flow through the array.
    uint64_t stream = 0;
    /// After the stream until the last result has left the array: skew fill and drain.
    uint64_t latency = 0;
    /// From the stream's start until the first results reach the accumulator memory.
    uint64_t firstResult = 0;
    bool operator==(const TilePhases&) const = default;
};

class SystolicDataflow {
public:
    virtual ~SystolicDataflow() = default;
    virtual TilePhases phases(const TensorUnitConfig& tensor, DType dtype, uint64_t m, uint64_t n,
                              uint64_t k, bool accumulate) const = 0;
    /// True when the preload phase reads B (WS); false when it reads C (OS).
    virtual bool preloadsWeights() const = 0;
};

std::unique_ptr<SystolicDataflow> makeDataflow(Dataflow dataflow);

}  // namespace npusim::hw
