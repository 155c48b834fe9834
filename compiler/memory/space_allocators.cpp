// Sharing SRAM and DRAM between tensors whose live ranges do not meet.
#include "compiler/memory/space_allocators.h"

#include <algorithm>

namespace npusim::compiler {

ResidencyAllocator::ResidencyAllocator(std::vector<uint64_t> workingSetEnds, const MemoryConfig& sram)
    : ends_(std::move(workingSetEnds)), period_(sram.bankPeriod()), size_(sram.sizeBytes) {}

std::optional<uint64_t> ResidencyAllocator::place(int first, int last, uint64_t bytes) {
    bytes = alignUp(bytes, period_);
    const uint64_t floor = workingSetTop(first, last);
    std::vector<const Placement*> concurrent;
    std::vector<uint64_t> tops{size_ / period_ * period_};
    for (const Placement& other : placed_) {
        if (other.first > last || first > other.last) continue;
        concurrent.push_back(&other);
        tops.push_back(other.offset);
    }
    std::sort(tops.rbegin(), tops.rend());
    for (uint64_t top : tops) {
        if (top < floor + bytes) break;
        const uint64_t offset = top - bytes;
        const bool free = std::none_of(concurrent.begin(), concurrent.end(), [&](const Placement* other) {
            return other->offset < offset + bytes && offset < other->offset + other->bytes;
        });
        if (free) {
            placed_.push_back({first, last, offset, bytes});
            return offset;
        }
    }
    return std::nullopt;
}

uint64_t ResidencyAllocator::workingSetTop(int first, int last) const {
    return *std::max_element(ends_.begin() + first, ends_.begin() + last + 1);
}

uint64_t ResidencyAllocator::sramToKeep(int first, int last, uint64_t bytes) const {
    return workingSetTop(first, last) + alignUp(bytes, period_);
}

uint64_t DramReuse::place(int first, int last, uint64_t bytes) {
    // Ranges placed before end before `first` conflict with none of the later tensors.
    std::erase_if(active_, [&](const Placed& p) { return p.last < first; });
    std::sort(active_.begin(), active_.end(), [](const Placed& a, const Placed& b) { return a.offset < b.offset; });
    uint64_t offset = base_;
    for (const Placed& p : active_) {
        if (offset + bytes <= p.offset) break;
        offset = std::max(offset, alignUp(p.offset + p.bytes, kDramAlignment));
    }
    active_.push_back({first, last, offset, bytes});
    end_ = std::max(end_, offset + bytes);
    return offset;
}

}  // namespace npusim::compiler
