// Synchronisation planning: commands are added in program order with the buffers they read
// and write; the planner inserts exactly the SEM_WAIT/SEM_SIGNAL pairs that cross-queue
// dependencies need. Each queue keeps a vector clock of what it already knows to be done, so
// a dependency implied by an earlier wait costs nothing; what remains uses one semaphore per
// ordered pair of queues, because surviving waits on a pair are in signal order.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <unordered_map>
#include <vector>

#include "arch/isa.h"

namespace npusim::compiler {

struct Access {
    uint32_t resource = 0;  ///< an on-chip buffer slot or a DRAM tensor
    bool write = false;
};

class SyncPlanner {
public:
    /// `aliases(r)` lists the resources whose storage overlaps r's.
    SyncPlanner(uint32_t semaphores, std::function<std::vector<uint32_t>(uint32_t)> aliases);

    /// Appends a command; throws InputError when more semaphores are needed than exist.
    void add(const isa::Command& command, std::span<const Access> accesses);
    /// The stream with its semaphore commands and a final END.
    std::vector<isa::Command> finish() const;
    /// Whether no command has been issued yet.
    bool empty() const { return stream_.empty(); }
    uint32_t semaphoresUsed() const { return static_cast<uint32_t>(semaphores_.size()); }

private:
    using Clock = std::array<int64_t, isa::kQueueCount>;
    struct Entry {
        isa::Command command;
        std::vector<isa::Command> signalsAfter;
    };
    struct QueueState {
        Clock known{-1, -1, -1, -1};      ///< per queue: last command known complete
        std::vector<size_t> streamIndex;  ///< stream entry of each command of this queue
        std::vector<Clock> clocks;        ///< what each command's completion implies
    };
    struct ResourceState {
        Clock lastWrite{-1, -1, -1, -1}, lastRead{-1, -1, -1, -1};
    };

    uint32_t semaphore(isa::Queue from, isa::Queue to);

    uint32_t semaphoreLimit_;
    std::function<std::vector<uint32_t>(uint32_t)> aliases_;
    std::vector<Entry> stream_;
    std::array<QueueState, isa::kQueueCount> queues_;
    std::unordered_map<uint32_t, ResourceState> resources_;
    std::map<std::pair<int, int>, uint32_t> semaphores_;
};

}  // namespace npusim::compiler
