#include "reports/text_format.h"

#include <cstdio>
#include <utility>

namespace npusim::reports {

std::string percentText(double fraction) { return fixedText(fraction * 100, 1) + "%"; }

std::string wholeText(double value) { return fixedText(value, 0); }

std::string fixedText(double value, int decimals) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

std::string energyText(double picojoules) {
    constexpr std::pair<double, const char*> kUnits[] = {{1e12, "J"}, {1e9, "mJ"}, {1e6, "uJ"}, {1e3, "nJ"}};
    for (const auto& [scale, unit] : kUnits) {
        if (picojoules >= scale) {
            const double value = picojoules / scale;
            return fixedText(value, value >= 100 ? 0 : value >= 10 ? 1 : 2) + " " + unit;
        }
    }
    return fixedText(picojoules, picojoules >= 100 ? 0 : picojoules >= 10 ? 1 : 2) + " pJ";
}

}  // namespace npusim::reports
