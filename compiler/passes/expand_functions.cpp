// expand-functions: every function op (its op table entry builds a body of other ops,
// compiler/graph/function_body.h) is replaced by that body, whose last op writes the op's
// output; the body's ops are then rewritten and lowered as any others.
#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_table.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {
namespace {

/// A body built into the graph by a GraphRewriter, its ops named after the node ("<node>.<i>").
class RewrittenBody : public FunctionBody {
public:
    RewrittenBody(GraphRewriter& r, const Node& node) : r_(r), node_(node) {}

    ValueId op(OpKind kind, std::vector<ValueId> inputs, std::map<std::string, Attribute> attributes) override {
        return r_.add(kind, nextName(), std::move(inputs), std::move(attributes))[0];
    }
    void result(OpKind kind, std::vector<ValueId> inputs, std::map<std::string, Attribute> attributes) override {
        r_.add(kind, nextName(), std::move(inputs), std::move(attributes), node_.outputs);
    }
    ValueId scalar(DType dtype, double value) override {
        const double values[] = {value};
        return r_.constant(node_.name + ".constant", ops::floatTensor(dtype, {}, values));
    }
    DType dtype(ValueId value) const override { return r_.graph().value(value).dtype; }

private:
    std::string nextName() { return node_.name + "." + std::to_string(ops_++); }

    GraphRewriter& r_;
    const Node& node_;
    int ops_ = 0;
};

}  // namespace

void expandFunctions(Graph& graph) {
    GraphRewriter rewriter(graph);
    rewriter.run([&](const Node& node) {
        const auto expand = opInfo(node.kind).expand;
        if (!expand) return false;
        RewrittenBody body(rewriter, node);
        expand(node, body);
        return true;
    });
}

}  // namespace npusim::compiler
