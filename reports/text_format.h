// Number formatting shared by the human-readable reports (findings, report.md, report.html,
// npusim diff).
#pragma once

#include <cstdint>
#include <string>

#include "arch/byte_text.h"

namespace npusim::reports {

using npusim::bytesText;
/// A fraction as a percentage with one decimal: 0.4051 -> "40.5%".
std::string percentText(double fraction);
/// A value rounded to a whole number: "1234".
std::string wholeText(double value);
/// A value with `decimals` decimals.
std::string fixedText(double value, int decimals);
/// An energy in picojoules in the unit that suits it, three significant digits: "15.6 uJ".
std::string energyText(double picojoules);

}  // namespace npusim::reports
