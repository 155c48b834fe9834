// Synchronisation planning: commands are added in program order with the buffers they read
// and write; the planner inserts exactly the SEM_WAIT/SEM_SIGNAL pairs that cross-queue
// dependencies need. Each queue keeps a vector clock of what it already knows to be done, so
// a dependency implied by an earlier wait costs nothing; what remains uses one semaphore per
// ordered pair of queues, because surviving waits on a pair are in signal order. Buffers and
// DRAM tensors are tracked by the addresses they cover, so those of different ops that share
// space conflict exactly where they overlap, at a cost that does not grow with the op count.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "arch/isa.h"
#include "compiler/memory/memory_ir.h"

namespace npusim::compiler {

struct Access {
    uint32_t resource = 0;  ///< an on-chip buffer slot or a DRAM tensor
    bool write = false;
};

/// Where a resource's bytes are: [begin, end) of an on-chip memory or of the DRAM window.
/// Resources without one overlap no other resource.
struct ResourceExtent {
    AddressSpace space = AddressSpace::Sram;
    uint64_t begin = 0, end = 0;
};

class SyncPlanner {
public:
    using Placement = std::function<std::optional<ResourceExtent>(uint32_t resource)>;
    /// `placement(r)` says where resource r lives on chip; two resources conflict when they
    /// are the same or their extents overlap.
    SyncPlanner(uint32_t semaphores, Placement placement);

    /// Appends a command; throws InputError when more semaphores are needed than exist.
    void add(const isa::Command& command, std::span<const Access> accesses);
    /// The stream with its semaphore commands and a final END; the planner is spent after.
    std::vector<isa::Command> finish();
    /// Whether no command has been issued yet.
    bool empty() const { return stream_.empty(); }
    uint32_t semaphoresUsed() const { return static_cast<uint32_t>(semaphores_.size()); }

private:
    using Clock = std::array<int64_t, isa::kQueueCount>;
    /// A clock as kept for every command: queue positions fit 32 bits.
    using StoredClock = std::array<int32_t, isa::kQueueCount>;
    struct QueueState {
        Clock known{-1, -1, -1, -1};        ///< per queue: last command known complete
        std::vector<uint32_t> streamIndex;  ///< stream position of each command of this queue
        std::vector<StoredClock> clocks;    ///< what each command's completion implies
    };
    struct ResourceState {
        Clock lastWrite{-1, -1, -1, -1}, lastRead{-1, -1, -1, -1};
    };
    /// The last command of one queue that wrote (or read) each address of a space, as runs
    /// of addresses: begin -> (end, command index). Indices only grow, so recording a use
    /// overwrites the run it covers, and runs stay as few as the buffers that made them.
    class AddressClock {
    public:
        void record(uint64_t begin, uint64_t end, int64_t index);
        int64_t latest(uint64_t begin, uint64_t end) const;  ///< -1 when no use overlaps

    private:
        std::map<uint64_t, std::pair<uint64_t, int64_t>> runs_;
    };
    struct SpaceState {
        std::array<AddressClock, isa::kQueueCount> lastWrite, lastRead;
    };

    uint32_t semaphore(isa::Queue from, isa::Queue to);

    uint32_t semaphoreLimit_;
    Placement placement_;
    std::vector<isa::Command> stream_;
    /// Signals, each to go right after the stream command at its position (in the order added).
    std::vector<std::pair<uint32_t, isa::Command>> signals_;
    std::array<QueueState, isa::kQueueCount> queues_;
    std::unordered_map<uint32_t, ResourceState> resources_;  ///< resources without a placement
    std::array<SpaceState, 3> spaces_;                       ///< by AddressSpace
    std::map<std::pair<int, int>, uint32_t> semaphores_;
};

}  // namespace npusim::compiler
