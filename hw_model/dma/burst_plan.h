// A DMA command's bursts, in issue order, one at a time: a long command has thousands, a run
// millions, and planning them all before issuing the first would store and reload every one.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "arch/isa.h"

namespace npusim::hw {

/// Where part of a burst's bytes go on chip: rows x rowBytes at stride.
struct OnchipPiece {
    uint64_t address = 0, rows = 1, rowBytes = 0, stride = 0;
    uint64_t bufferOffset = 0;  ///< of its first byte inside the staging buffer
};

struct Burst {
    uint64_t dramAddress = 0;   ///< physical (or an SRAM address for an on-chip move)
    uint64_t bufferOffset = 0;  ///< of the burst's bytes inside the staging buffer
    uint64_t bytes = 0;
    /// A strided row's burst: its elements, `elementStride` bytes apart in DRAM.
    uint64_t elements = 1, elementStride = 0;
    /// A broadcast load's burst: written on chip `copies` times, `copyStride` apart.
    uint64_t copies = 1, copyStride = 0;
    /// A burst covers at most a row tail, whole rows and a row head on chip; a transposing
    /// burst scatters one element per on-chip row.
    std::array<OnchipPiece, 3> pieces{};
    int pieceCount = 0;
};

class BurstPlan {
public:
    /// The bursts of a DMA command whose far addresses start at `farBase` (the context
    /// window's base, or 0 for an on-chip move). `tableRows` gives an indexed load's table row
    /// for each of its rows (empty: the command is not indexed); the plan keeps a reference.
    /// Bursts never cross a `burstBytes`-aligned boundary (a power of two).
    BurstPlan(const isa::Command& command, const std::vector<uint64_t>& tableRows, uint64_t farBase, uint64_t burstBytes);
    BurstPlan(const isa::Command& command, std::vector<uint64_t>&& tableRows, uint64_t farBase, uint64_t burstBytes) = delete;

    /// The next burst, into `burst`; false when every burst has been given.
    bool next(Burst& burst);

private:
    /// Moves past finished runs and planes (`runs` per plane of `runLength` bytes or elements each)
    /// to what is left to give; false when nothing is.
    bool nextPosition(uint64_t runs, uint64_t runLength);
    /// A strided row: a burst takes the elements that lie within one burst boundary.
    bool nextStrided(Burst& burst);
    /// Runs of bytes contiguous in DRAM: a burst takes what lies within one boundary.
    bool nextInRun(Burst& burst);
    uint64_t farAddress(uint64_t plane) const { return farBase_ + dramAddr_ + plane * dramPlaneStride_; }
    uint64_t onchipAddress(uint64_t plane) const { return onchipAddr_ + plane * onchipPlaneStride_; }

    const std::vector<uint64_t>& tableRows_;
    uint64_t planes_, rows_, rowBytes_, dramStride_, onchipStride_, burstBytes_;
    uint64_t farBase_, dramAddr_, dramPlaneStride_, onchipAddr_, onchipPlaneStride_;
    uint64_t elemBytes_, elemStride_;
    bool transpose_, broadcast_;
    uint64_t runs_ = 0, runBytes_ = 0;  ///< per plane, when not strided
    /// Where the walk stands: the plane, the run (a strided command's row), bytes of the run
    /// done (a strided row's elements), and the on-chip row and column the next byte lands at.
    uint64_t plane_ = 0, run_ = 0, done_ = 0, row_ = 0, column_ = 0;
};

}  // namespace npusim::hw
