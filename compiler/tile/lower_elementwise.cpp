// Elementwise ops on the vector unit: one kernel over the output's index space; broadcast
// inputs become column or row operands where the vector unit can read them so.
#include "compiler/tile/index_space.h"
#include "compiler/tile/vector_lowering.h"

namespace npusim::compiler {
namespace {

using isa::VectorOp;

bool isScalarConstant(const Value& value) {
    return value.constant && elementCount(value.shape) == 1 && value.dtype == DType::Fp32;
}

}  // namespace

VectorProblem elementwiseProblem(const Graph& graph, uint32_t opId, std::string name,
                                 std::span<const ValueId> inputs, ValueId output, const ElementwiseBody& body) {
    const Value& out = graph.value(output);
    IndexSpace space = denseSpace(out.shape);
    std::vector<Operand> operands(inputs.size());
    std::vector<size_t> operandIndex(inputs.size(), SIZE_MAX);
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Value& in = graph.value(inputs[i]);
        if (isScalarConstant(in)) {
            operands[i].value = in.constant->as<float>()[0];
        } else {
            operandIndex[i] = space.add(broadcastTo(in.shape, out.shape));
        }
    }
    simplifyDims(space, 0, space.dims.size());
    if (space.dims.empty()) insertUnitDim(space, 0);
    splitDim(space, space.dims.size() - 1, kMaxVectorCols);
    if (space.dims.size() < 2) insertUnitDim(space, 0);

    VectorBuilder b(opId, std::move(name), space.dims, 1);
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (operandIndex[i] == SIZE_MAX) continue;
        const Value& in = graph.value(inputs[i]);
        operands[i].buffer = b.load({inputs[i], 0, space.strides[operandIndex[i]]}, in.dtype);
    }
    uint32_t result = body(b, operands);
    if (b.extentOf(result) != BufferExtent::Block) {
        // Every input was broadcast along a dim: spread the result over the block.
        throw VectorUnsupported("an elementwise result broadcast from its inputs");
    }
    b.store(result, {output, 0, space.strides[0]});
    return b.finish();
}

std::vector<VectorProblem> elementwiseProblemsFor(const Graph& graph, const Node& node, uint32_t opId) {
    const ValueId output = node.outputs.at(0);
    auto unaryOp = [&](VectorOp op) {
        return elementwiseProblem(graph, opId, std::string(isa::vectorOpName(op)), std::span(node.inputs).first(1),
                                  output, [op](VectorBuilder& b, std::span<const Operand> in) {
                                      return b.unary(op, *in[0].buffer);
                                  });
    };
    switch (node.kind) {
        case OpKind::Relu: return {unaryOp(VectorOp::Relu)};
        default: return {};
    }
}

}  // namespace npusim::compiler
