// Large zero-filled host memory for the model's storage (DRAM pages, SRAM arrays), mapped from
// the kernel: it arrives zeroed without a memset, and in transparent huge pages where the
// kernel allows (arch/huge_pages.h).
#pragma once

#include <cstddef>

#include "arch/huge_pages.h"

namespace npusim::hw {

class ZeroedRegion {
public:
    ZeroedRegion() = default;
    /// Maps `bytes` of zeroes; std::bad_alloc when the system refuses.
    explicit ZeroedRegion(size_t bytes);
    ~ZeroedRegion();
    ZeroedRegion(ZeroedRegion&& other) noexcept;
    ZeroedRegion& operator=(ZeroedRegion&& other) noexcept;
    ZeroedRegion(const ZeroedRegion&) = delete;
    ZeroedRegion& operator=(const ZeroedRegion&) = delete;

    std::byte* data() const { return data_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

private:
    std::byte* data_ = nullptr;
    size_t size_ = 0;
    size_t length_ = 0;  ///< mapped: the size rounded up to whole huge pages when huge
};

}  // namespace npusim::hw
