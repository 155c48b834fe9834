// A quick look at an ONNX file before importing it: what it uses that npusim does not take
// at all (ops outside the op table, element types without a DType). Conformance runs skip
// such models with the reason instead of counting them as failures.
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "arch/dtype.h"

namespace npusim::compiler {

/// "op Foo", "element type DOUBLE", each once, in the order first met; empty when the model
/// uses only what npusim knows. Throws InputError for an unreadable model.
std::vector<std::string> unsupportedFeatures(const std::filesystem::path& model);

/// A graph input that is not an initializer: one the caller feeds.
struct FedInput {
    std::string name;
    std::optional<DType> dtype;  ///< nullopt for a type npusim does not have
};

/// The fed inputs in declaration order (ONNX's test data names them input_<i>.pb so).
std::vector<FedInput> fedInputs(const std::filesystem::path& model);

/// The graph inputs an input deciding some node's output shape (shapeOperands) is computed from,
/// directly or through the nodes that compute it: a model with such inputs compiles once they are
/// bound to values (importOnnx's bindings).
std::set<std::string> shapeDecidingInputs(const std::filesystem::path& model);

}  // namespace npusim::compiler
