// Internal to the ONNX frontend: the ONNX node list made ready for conversion before the checker
// runs (unique names, topological order). Includes ONNX; keep it out of public headers.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

namespace npusim::compiler::frontend {

/// True for the default ONNX operator set ("" or "ai.onnx").
bool isDefaultDomain(const std::string& domain);

/// "op 'NAME' (TYPE)", with the domain before the type when it is not the default one.
std::string onnxNodeLabel(const onnx::NodeProto& node);

/// Gives every node a unique, non-empty name: the file's name when it has one (a repeated name
/// gets a "_1", "_2" ... suffix), else "<optype in lower case>_<node index>".
void nameNodes(onnx::GraphProto& graph);

/// Reorders the nodes so that each comes after the producers of its inputs, keeping the file's
/// order wherever it already is one. Throws InputError naming an op on a cycle; `model` labels
/// the message ("model 'x.onnx'").
void sortNodesTopologically(onnx::GraphProto& graph, const std::string& model);

}  // namespace npusim::compiler::frontend
