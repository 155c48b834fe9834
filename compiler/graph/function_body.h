// Function ops: ops the op table defines by a body of other ops, as ONNX defines its function
// ops. An op's `expand` builds its body through this interface; the expand-functions pass
// (compiler/passes) splices the body into the graph in the op's place, so that the body's ops
// are lowered as any others.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

class FunctionBody {
public:
    virtual ~FunctionBody() = default;
    /// Adds an op of the body reading `inputs` (the node's own inputs, constants or earlier body
    /// ops' results); returns its output.
    virtual ValueId op(OpKind kind, std::vector<ValueId> inputs, std::map<std::string, Attribute> attributes = {}) = 0;
    /// Adds the body's last op, whose output is the node's.
    virtual void result(OpKind kind, std::vector<ValueId> inputs, std::map<std::string, Attribute> attributes = {}) = 0;
    /// A scalar constant of `dtype` (a float type) holding `value`.
    virtual ValueId scalar(DType dtype, double value) = 0;
    /// The dtype of a value the body reads.
    virtual DType dtype(ValueId value) const = 0;
};

}  // namespace npusim::compiler
