#include "reports/text_format.h"

#include <cstdio>

namespace npusim::reports {

std::string percentText(double fraction) { return fixedText(fraction * 100, 1) + "%"; }

std::string wholeText(double value) { return fixedText(value, 0); }

std::string fixedText(double value, int decimals) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

}  // namespace npusim::reports
