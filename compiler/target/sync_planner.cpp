// Dependency tracking with vector clocks and semaphore insertion.
#include "compiler/target/sync_planner.h"

#include <algorithm>

#include "arch/error.h"

namespace npusim::compiler {

SyncPlanner::SyncPlanner(uint32_t semaphores, std::function<std::vector<uint32_t>(uint32_t)> aliases)
    : semaphoreLimit_(semaphores), aliases_(std::move(aliases)) {}

uint32_t SyncPlanner::semaphore(isa::Queue from, isa::Queue to) {
    const auto key = std::make_pair(static_cast<int>(from), static_cast<int>(to));
    const auto it = semaphores_.find(key);
    if (it != semaphores_.end()) return it->second;
    if (semaphores_.size() == semaphoreLimit_) {
        throw InputError("the command stream needs more than the arch's " +
                         std::to_string(semaphoreLimit_) + " semaphores");
    }
    const auto id = static_cast<uint32_t>(semaphores_.size());
    semaphores_.emplace(key, id);
    return id;
}

void SyncPlanner::add(const isa::Command& command, std::span<const Access> accesses) {
    const isa::Queue queue = isa::queueOf(command);
    const auto q = static_cast<size_t>(queue);
    QueueState& self = queues_[q];

    // A command comes after the conflicting uses of what it accesses and of everything whose
    // storage overlaps it. Uses are recorded on the accessed resource only, so overlap is
    // never followed twice (an alias of an alias is not an alias).
    std::vector<std::pair<uint32_t, bool>> checked;
    for (const Access& access : accesses) {
        checked.emplace_back(access.resource, access.write);
        for (uint32_t alias : aliases_(access.resource)) checked.emplace_back(alias, access.write);
    }
    Clock need{-1, -1, -1, -1};
    for (const auto& [resource, write] : checked) {
        const ResourceState& state = resources_[resource];
        for (size_t p = 0; p < isa::kQueueCount; ++p) {
            if (p == q) continue;
            need[p] = std::max(need[p], state.lastWrite[p]);
            if (write) need[p] = std::max(need[p], state.lastRead[p]);
        }
    }

    // A needed command whose completion another needed command already implies costs nothing.
    for (size_t p = 0; p < isa::kQueueCount; ++p) {
        if (p == q || need[p] <= self.known[p]) continue;
        for (size_t r = 0; r < isa::kQueueCount; ++r) {
            if (r == p || r == q || need[r] <= self.known[r]) continue;
            if (queues_[r].clocks[static_cast<size_t>(need[r])][p] >= need[p]) need[p] = -1;
        }
    }

    for (size_t p = 0; p < isa::kQueueCount; ++p) {
        if (p == q || need[p] <= self.known[p]) continue;
        const auto producer = static_cast<isa::Queue>(p);
        const uint32_t sem = semaphore(producer, queue);
        isa::Command signal;
        signal.opcode = isa::Opcode::SemSignal;
        signal.kind = isa::CommandKind::Sync;
        signal.opId = command.opId;
        signal.tileId = command.tileId;
        signal.set(isa::Field::Queue, p).set(isa::Field::Semaphore, sem);
        const QueueState& source = queues_[p];
        stream_[source.streamIndex[static_cast<size_t>(need[p])]].signalsAfter.push_back(signal);

        isa::Command wait = signal;
        wait.opcode = isa::Opcode::SemWait;
        wait.set(isa::Field::Queue, q);
        stream_.push_back({wait, {}});
        const Clock& implied = source.clocks[static_cast<size_t>(need[p])];
        for (size_t r = 0; r < isa::kQueueCount; ++r) self.known[r] = std::max(self.known[r], implied[r]);
    }

    const auto index = static_cast<int64_t>(self.clocks.size());
    Clock clock = self.known;
    clock[q] = index;
    self.clocks.push_back(clock);
    self.streamIndex.push_back(stream_.size());
    stream_.push_back({command, {}});

    for (const Access& access : accesses) {
        ResourceState& state = resources_[access.resource];
        (access.write ? state.lastWrite : state.lastRead)[q] = index;
    }
}

std::vector<isa::Command> SyncPlanner::finish() const {
    std::vector<isa::Command> commands;
    for (const Entry& entry : stream_) {
        commands.push_back(entry.command);
        commands.insert(commands.end(), entry.signalsAfter.begin(), entry.signalsAfter.end());
    }
    isa::Command end;
    end.opcode = isa::Opcode::End;
    end.kind = isa::CommandKind::Sync;
    end.opId = isa::kNoOp;
    commands.push_back(end);
    return commands;
}

}  // namespace npusim::compiler
