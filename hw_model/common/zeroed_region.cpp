// Anonymous mappings, aligned to the huge page size and advised to use huge pages.
#include "hw_model/common/zeroed_region.h"

#include <cstdint>
#include <new>
#include <utility>

#include <sys/mman.h>

namespace npusim::hw {

ZeroedRegion::ZeroedRegion(size_t bytes) {
    if (bytes == 0) return;
    const bool huge = bytes >= kHugePageBytes;
    // Huge pages need an aligned range: map a huge page more, then give back the ends.
    const size_t length = huge ? (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes : bytes;
    const size_t mapped = huge ? length + kHugePageBytes : length;
    void* mapping = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapping == MAP_FAILED) throw std::bad_alloc();
    auto* start = static_cast<std::byte*>(mapping);
    if (huge) {
        const uintptr_t address = reinterpret_cast<uintptr_t>(start);
        const size_t head = (kHugePageBytes - address % kHugePageBytes) % kHugePageBytes;
        if (head > 0) ::munmap(start, head);
        if (const size_t tail = mapped - head - length; tail > 0) ::munmap(start + head + length, tail);
        start += head;
        adviseHugePages(start, length);
    }
    data_ = start;
    size_ = bytes;
    length_ = length;
}

ZeroedRegion::~ZeroedRegion() {
    if (data_) ::munmap(data_, length_);
}

ZeroedRegion::ZeroedRegion(ZeroedRegion&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      length_(std::exchange(other.length_, 0)) {}

ZeroedRegion& ZeroedRegion::operator=(ZeroedRegion&& other) noexcept {
    if (this != &other) {
        if (data_) ::munmap(data_, length_);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        length_ = std::exchange(other.length_, 0);
    }
    return *this;
}

}  // namespace npusim::hw
