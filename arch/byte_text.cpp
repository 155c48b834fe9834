#include "arch/byte_text.h"

#include <cstdio>

namespace npusim {

std::string bytesText(uint64_t bytes) {
    char buffer[32];
    if (bytes >= (uint64_t{1} << 20)) {
        std::snprintf(buffer, sizeof buffer, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
    } else if (bytes >= 1024) {
        std::snprintf(buffer, sizeof buffer, "%.1f KiB", static_cast<double>(bytes) / 1024);
    } else {
        std::snprintf(buffer, sizeof buffer, "%llu B", static_cast<unsigned long long>(bytes));
    }
    return buffer;
}

}  // namespace npusim
