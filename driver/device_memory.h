// Device memory allocation: first-fit over the DRAM range, page aligned.
#pragma once

#include <cstdint>
#include <map>

namespace npusim::driver {

class DeviceMemory {
public:
    static constexpr uint64_t kAlignment = 4096;

    DeviceMemory(uint64_t base, uint64_t size);

    /// Physical address of a new block; throws RunError when no free range is large enough.
    uint64_t allocate(uint64_t bytes);
    /// Frees a block returned by allocate; freeing anything else is a logic error.
    void release(uint64_t address);
    uint64_t bytesInUse() const;
    /// The largest block allocate could return now.
    uint64_t largestFree() const;

private:
    uint64_t base_, size_;
    std::map<uint64_t, uint64_t> blocks_;  ///< address -> aligned size, sorted by address
};

}  // namespace npusim::driver
