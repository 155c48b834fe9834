// upsample-to-resize: Upsample is Resize's opset-10 form (X, scales), which the vector unit
// runs; opset 7's scales attribute becomes a constant input.
#include "compiler/graph/op_attributes.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {

void upsampleToResize(Graph& graph) {
    GraphRewriter rewriter(graph);
    rewriter.run([&](const Node& node) {
        if (node.kind != OpKind::Upsample) return false;
        std::vector<ValueId> inputs = node.inputs;
        std::map<std::string, Attribute> attributes = node.attributes;
        if (std::optional<Tensor> scales = ops::upsampleScalesAttribute(node)) {
            inputs.push_back(rewriter.constant(node.name + ".scales", std::move(*scales)));
            attributes.erase("scales");
        }
        rewriter.add(OpKind::Resize, node.name, std::move(inputs), std::move(attributes), node.outputs);
        return true;
    });
}

}  // namespace npusim::compiler
