#include "reports/text_format.h"

#include <cstdio>

namespace npusim::reports {

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

std::string percentText(double fraction) { return fixedText(fraction * 100, 1) + "%"; }

std::string wholeText(double value) { return fixedText(value, 0); }

std::string fixedText(double value, int decimals) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

}  // namespace npusim::reports
