// ONNX backend test cases (libonnx-testdata) whose expected data npusim deliberately does not
// reproduce: defects of the test data as ONNX 1.12 ships it, and training-mode semantics npusim
// does not model. The conformance run and the graph IR's backend tests skip them with the reason.
#pragma once

#include <optional>
#include <string_view>

namespace npusim::compiler {

/// Why npusim does not reproduce the case's expected outputs; nullopt for every other case.
std::optional<std::string_view> backendTestDeviation(std::string_view caseName);

}  // namespace npusim::compiler
