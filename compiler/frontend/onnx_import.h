// ONNX frontend: an ONNX file into graph IR, checked by ONNX's checker and shape inference.
// ONNX headers stay inside the .cpp files.
#pragma once

#include <filesystem>
#include <string>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// Reads, checks and converts an ONNX model. Throws InputError for a missing or malformed
/// file, a model the ONNX checker rejects, an op outside the graph IR's op set (naming the
/// node and its type), an unsupported dtype or a dimension that is not static.
Graph importOnnx(const std::filesystem::path& path);

}  // namespace npusim::compiler
