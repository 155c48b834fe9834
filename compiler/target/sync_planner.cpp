// Dependency tracking with vector clocks and semaphore insertion.
#include "compiler/target/sync_planner.h"

#include <algorithm>
#include <iterator>

#include "arch/error.h"

namespace npusim::compiler {

SyncPlanner::SyncPlanner(uint32_t semaphores, Placement placement)
    : semaphoreLimit_(semaphores), placement_(std::move(placement)) {}

void SyncPlanner::AddressClock::record(uint64_t begin, uint64_t end, int64_t index) {
    if (begin >= end) return;
    // Keep the parts of runs that stick out of [begin, end), drop what it covers.
    auto it = runs_.lower_bound(begin);
    if (it != runs_.begin()) {
        auto before = std::prev(it);
        if (before->second.first > begin) {
            const auto [beforeEnd, beforeIndex] = before->second;
            before->second.first = begin;
            if (beforeEnd > end) runs_.emplace(end, std::make_pair(beforeEnd, beforeIndex));
        }
    }
    while (it != runs_.end() && it->first < end) {
        const auto [runEnd, runIndex] = it->second;
        it = runs_.erase(it);
        if (runEnd > end) {
            runs_.emplace(end, std::make_pair(runEnd, runIndex));
            break;
        }
    }
    runs_.emplace(begin, std::make_pair(end, index));
}

int64_t SyncPlanner::AddressClock::latest(uint64_t begin, uint64_t end) const {
    int64_t latest = -1;
    auto it = runs_.lower_bound(begin);
    if (it != runs_.begin() && std::prev(it)->second.first > begin) it = std::prev(it);
    for (; it != runs_.end() && it->first < end; ++it) latest = std::max(latest, it->second.second);
    return latest;
}

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

    // A command comes after the conflicting uses of what it accesses: of the same DRAM
    // tensor, or of any on-chip bytes it covers, whichever buffer used them.
    std::vector<std::optional<ResourceExtent>> extents;
    Clock need{-1, -1, -1, -1};
    for (const Access& access : accesses) {
        extents.push_back(placement_(access.resource));
        const std::optional<ResourceExtent>& extent = extents.back();
        for (size_t p = 0; p < isa::kQueueCount; ++p) {
            if (p == q) continue;
            if (extent) {
                const SpaceState& space = spaces_[static_cast<size_t>(extent->space)];
                need[p] = std::max(need[p], space.lastWrite[p].latest(extent->begin, extent->end));
                if (access.write) need[p] = std::max(need[p], space.lastRead[p].latest(extent->begin, extent->end));
            } else if (const auto it = resources_.find(access.resource); it != resources_.end()) {
                need[p] = std::max(need[p], it->second.lastWrite[p]);
                if (access.write) need[p] = std::max(need[p], it->second.lastRead[p]);
            }
        }
    }

    // A needed command whose completion another needed command already implies costs nothing.
    for (size_t p = 0; p < isa::kQueueCount; ++p) {
        if (p == q || need[p] <= self.known[p]) continue;
        for (size_t r = 0; r < isa::kQueueCount; ++r) {
            if (r == p || r == q || need[r] <= self.known[r]) continue;
            if (int64_t{queues_[r].clocks[static_cast<size_t>(need[r])][p]} >= need[p]) need[p] = -1;
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
        signals_.emplace_back(source.streamIndex[static_cast<size_t>(need[p])], signal);

        isa::Command wait = signal;
        wait.opcode = isa::Opcode::SemWait;
        wait.set(isa::Field::Queue, q);
        stream_.push_back(wait);
        const StoredClock& implied = source.clocks[static_cast<size_t>(need[p])];
        for (size_t r = 0; r < isa::kQueueCount; ++r) self.known[r] = std::max(self.known[r], int64_t{implied[r]});
    }

    const auto index = static_cast<int64_t>(self.clocks.size());
    StoredClock clock;
    for (size_t r = 0; r < isa::kQueueCount; ++r) clock[r] = static_cast<int32_t>(self.known[r]);
    clock[q] = static_cast<int32_t>(index);
    self.clocks.push_back(clock);
    self.streamIndex.push_back(static_cast<uint32_t>(stream_.size()));
    stream_.push_back(command);

    for (size_t i = 0; i < accesses.size(); ++i) {
        if (const std::optional<ResourceExtent>& extent = extents[i]) {
            SpaceState& space = spaces_[static_cast<size_t>(extent->space)];
            (accesses[i].write ? space.lastWrite : space.lastRead)[q].record(extent->begin, extent->end, index);
        } else {
            ResourceState& state = resources_[accesses[i].resource];
            (accesses[i].write ? state.lastWrite : state.lastRead)[q] = index;
        }
    }
}

std::vector<isa::Command> SyncPlanner::finish() {
    // Merged in place from the back: each signal lands after its command, signals of one
    // command in the order they were added.
    std::stable_sort(signals_.begin(), signals_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const size_t commands = stream_.size();
    stream_.resize(commands + signals_.size() + 1);
    isa::Command& end = stream_.back();
    end = isa::Command{};
    end.opcode = isa::Opcode::End;
    end.kind = isa::CommandKind::Sync;
    end.opId = isa::kNoOp;
    size_t write = stream_.size() - 1, signal = signals_.size();
    for (size_t i = commands; i-- > 0;) {
        while (signal > 0 && signals_[signal - 1].first == i) stream_[--write] = signals_[--signal].second;
        stream_[--write] = std::move(stream_[i]);
    }
    signals_.clear();
    return std::move(stream_);
}

}  // namespace npusim::compiler
