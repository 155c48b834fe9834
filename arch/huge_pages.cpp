// madvise(MADV_HUGEPAGE) over the aligned interior of a range.
#include "arch/huge_pages.h"

#include <cstdint>

#include <sys/mman.h>

namespace npusim {

void adviseHugePages(void* data, size_t bytes) {
    const auto start = reinterpret_cast<uintptr_t>(data);
    const uintptr_t first = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    const uintptr_t last = (start + bytes) / kHugePageBytes * kHugePageBytes;
    if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

}  // namespace npusim
