// Byte counts as people read them: 512 B, 12.5 KiB, 3.0 MiB.
#pragma once

#include <cstdint>
#include <string>

namespace npusim {

/// Bytes in B below 1 KiB, else KiB below 1 MiB, else MiB, with one decimal.
std::string bytesText(uint64_t bytes);

}  // namespace npusim
