// First-fit allocation over the sorted list of used blocks.
#include "driver/device_memory.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "arch/error.h"

namespace npusim::driver {

DeviceMemory::DeviceMemory(uint64_t base, uint64_t size) : base_(base), size_(size) {}

uint64_t DeviceMemory::allocate(uint64_t bytes) {
    const uint64_t aligned = (std::max<uint64_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
    uint64_t candidate = base_;
    for (const auto& [address, size] : blocks_) {
        if (address - candidate >= aligned) break;
        candidate = address + size;
    }
    if (candidate + aligned > base_ + size_ || candidate + aligned < candidate) {
        throw RunError("device memory exhausted: " + std::to_string(bytes) + " bytes requested, " +
                       std::to_string(bytesInUse()) + " of " + std::to_string(size_) + " in use");
    }
    blocks_.emplace(candidate, aligned);
    return candidate;
}

void DeviceMemory::release(uint64_t address) {
    if (blocks_.erase(address) == 0) throw std::logic_error("releasing unknown device memory");
}

uint64_t DeviceMemory::largestFree() const {
    uint64_t largest = 0, next = base_;
    for (const auto& [address, size] : blocks_) {
        largest = std::max(largest, address - next);
        next = address + size;
    }
    return std::max(largest, base_ + size_ - next);
}

uint64_t DeviceMemory::bytesInUse() const {
    uint64_t total = 0;
    for (const auto& [address, size] : blocks_) total += size;
    return total;
}

}  // namespace npusim::driver
