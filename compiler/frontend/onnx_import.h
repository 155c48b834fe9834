// ONNX frontend: an ONNX file into graph IR, checked by ONNX's checker and shape inference.
// ONNX headers stay inside the .cpp files.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// Reads, checks and converts an ONNX model. Throws InputError for a missing or malformed
/// file, a model the ONNX checker rejects, an op outside the graph IR's op set (naming the
/// node and its type), an unsupported dtype or a dimension that is not static.
/// `bindings` specialises the model: each named graph input becomes a constant of the given
/// value (which must match the input's declared type), so inputs that decide shapes (a
/// Reshape's shape, a Resize's sizes) resolve at compile time.
/// `dims` gives symbolic dimensions (an input's dim_param) their sizes; the graph's inputs and
/// outputs remember which dims were symbolic (Value::symbols).
Graph importOnnx(const std::filesystem::path& path, const std::map<std::string, Tensor>& bindings = {},
                 const std::map<std::string, int64_t>& dims = {});

}  // namespace npusim::compiler
