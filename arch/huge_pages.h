// Transparent huge pages for large host buffers (artifact sections, the model's memories). A
// page fault is dear on a virtual machine (about 10 us on the development VM): a buffer of tens
// of MiB touched in 4 KiB pages costs a large share of a whole simulation.
#pragma once

#include <cstddef>

namespace npusim {

/// Huge pages are 2 MiB on the hosts npusim runs on.
inline constexpr size_t kHugePageBytes = size_t{2} << 20;

/// Advises the kernel to back the whole huge pages inside [data, data + bytes) with huge pages
/// when they are first touched. Only advice: without kernel support nothing changes.
void adviseHugePages(void* data, size_t bytes);

}  // namespace npusim
