// ONNX frontend: an ONNX file into graph IR, checked by ONNX's checker and shape inference.
// ONNX headers stay inside the .cpp files.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "arch/artifact.h"
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

/// An ONNX model's declared inputs and outputs, read without importing it: a symbolic dim's
/// size is -1 and its symbol is in `symbols` (TensorBinding's convention), dramOffset 0.
struct OnnxInterface {
    std::vector<TensorBinding> inputs, outputs;
};
/// InputError when the file is not an ONNX model, or a value's element type or shape is not
/// declared in one npusim takes.
OnnxInterface readOnnxInterface(const std::filesystem::path& path);

/// A node of an ONNX model's main graph, named as importOnnx names it, and whether npusim has
/// its op.
struct OnnxOpSupport {
    std::string name, type;  ///< type: "Conv", or "domain.Type" outside the default domain
    bool known = false;
};
/// Every node of the model's main graph in file order: what `compile --mapping` shows of a
/// model that does not import. InputError when the file is not an ONNX model.
std::vector<OnnxOpSupport> surveyOnnxOps(const std::filesystem::path& path);

}  // namespace npusim::compiler
