// From a MatMul, Gemm or MatMulInteger node to a GemmProblem, with the mapping checks that
// say why the NPU cannot run an op.
#include <numeric>

#include "compiler/graph/op_table.h"
#include "compiler/tiling/tiling.h"

namespace npusim::compiler {
namespace {

const Value* optionalValue(const Graph& graph, const Node& node, size_t index) {
    if (index >= node.inputs.size() || node.inputs[index] == kNoValue) return nullptr;
    return &graph.value(node.inputs[index]);
}

/// Element offsets of each output batch's A and B matrices under numpy broadcasting.
void batchOffsets(const Shape& aBatch, const Shape& bBatch, int64_t aMatrix, int64_t bMatrix,
                  GemmProblem& problem) {
    const size_t rank = std::max(aBatch.size(), bBatch.size());
    auto padded = [rank](const Shape& shape) {
        Shape out(rank - shape.size(), 1);
        out.insert(out.end(), shape.begin(), shape.end());
        return out;
    };
    const Shape a = padded(aBatch), b = padded(bBatch);
    Shape out(rank);
    for (size_t d = 0; d < rank; ++d) out[d] = std::max(a[d], b[d]);
    problem.batch = elementCount(out);
    for (int64_t index = 0; index < problem.batch; ++index) {
        int64_t rest = index, aIndex = 0, bIndex = 0, aStride = 1, bStride = 1;
        for (size_t d = rank; d-- > 0;) {
            const int64_t coordinate = rest % out[d];
            rest /= out[d];
            aIndex += (a[d] == 1 ? 0 : coordinate) * aStride;
            bIndex += (b[d] == 1 ? 0 : coordinate) * bStride;
            aStride *= a[d];
            bStride *= b[d];
        }
        problem.a.batchOffsets.push_back(aIndex * aMatrix);
        problem.b.batchOffsets.push_back(bIndex * bMatrix);
    }
}

/// Batches that share one B matrix and whose A matrices lie one after another are one GEMM
/// with their rows stacked: [batch, m, k] x [k, n] is [batch * m, k] x [k, n], and the results
/// lie in the same order. B (a weight, typically) is then loaded once per block, not once per
/// batch: a transformer's projections over activations laid out [seq, 1, d] (batch = seq, m = 1).
void foldBroadcastBatches(GemmProblem& p) {
    if (p.batch == 1) return;
    const std::vector<int64_t>& a = p.a.batchOffsets;
    const std::vector<int64_t>& b = p.b.batchOffsets;
    for (int64_t i = 0; i < p.batch; ++i) {
        if (b[static_cast<size_t>(i)] != b[0] || a[static_cast<size_t>(i)] != i * p.m * p.k) return;
    }
    p.m *= p.batch;
    p.batch = 1;
    p.a.batchOffsets = {0};
    p.b.batchOffsets = {b[0]};
}

int32_t constantZeroPoint(const Graph& graph, const Node& node, size_t index, const char* which) {
    const Value* value = optionalValue(graph, node, index);
    if (!value) return 0;
    if (!value->constant || elementCount(value->shape) != 1) {
        opError(node, std::string(which) +
                          " must be a constant with one element for the tensor unit (per-row, "
                          "per-column or runtime zero points are not supported)");
    }
    return static_cast<int32_t>(value->constant->valueAt(0));
}

void requireTensorSupport(const Node& node, DType dtype, const ArchConfig& config) {
    if (!config.tensor.supports(dtype)) {
        opError(node, "the tensor unit of arch '" + config.name + "' does not support " +
                          std::string(dtypeName(dtype)) + " operands");
    }
}

}  // namespace

GemmProblem gemmProblemFor(const Graph& graph, const Node& node, uint32_t opId,
                           const ArchConfig& config) {
    GemmProblem p;
    p.opId = opId;
    p.output = node.outputs.at(0);
    p.a.value = node.inputs.at(0);
    p.b.value = node.inputs.at(1);
    const Value& a = graph.value(p.a.value);
    const Value& b = graph.value(p.b.value);
    p.a.packable = a.constant.has_value();
    p.b.packable = b.constant.has_value();

    if (node.kind == OpKind::Gemm) {
        p.a.transposed = node.intAttr("transA", 0) != 0;
        p.b.transposed = node.intAttr("transB", 0) != 0;
        p.m = p.a.transposed ? a.shape[1] : a.shape[0];
        p.k = p.a.transposed ? a.shape[0] : a.shape[1];
        p.n = p.b.transposed ? b.shape[0] : b.shape[1];
        p.a.batchOffsets = {0};
        p.b.batchOffsets = {0};
        p.alpha = static_cast<float>(node.floatAttr("alpha", 1.0));
        p.beta = static_cast<float>(node.floatAttr("beta", 1.0));
        if (const Value* c = optionalValue(graph, node, 2); c && p.beta != 0.0f) {
            if (c->dtype != DType::Fp32) {
                opError(node, "the accumulator adds an fp32 bias, and C is " + std::string(dtypeName(c->dtype)));
            }
            p.bias = node.inputs[2];
            const int64_t cells = elementCount(c->shape);
            const int64_t cCols = c->shape.empty() ? 1 : c->shape.back();
            if (cells == 1) {
                p.biasMode = BiasMode::Scalar;
            } else if (cells == p.m * p.n) {
                p.biasMode = BiasMode::Full;
            } else if (cCols == p.n) {
                p.biasMode = BiasMode::Row;
            } else {
                p.biasMode = BiasMode::Column;
            }
        }
    } else {
        // MatMul / MatMulInteger: 1-D operands act as a row (A) or a column (B).
        const Shape aShape = a.shape.size() == 1 ? Shape{1, a.shape[0]} : a.shape;
        const Shape bShape = b.shape.size() == 1 ? Shape{b.shape[0], 1} : b.shape;
        p.m = aShape[aShape.size() - 2];
        p.k = aShape.back();
        p.n = bShape.back();
        batchOffsets(Shape(aShape.begin(), aShape.end() - 2), Shape(bShape.begin(), bShape.end() - 2),
                     p.m * p.k, p.k * p.n, p);
        foldBroadcastBatches(p);
    }

    if (node.kind == OpKind::MatMulInteger) {
        if (a.dtype != b.dtype) {
            opError(node, "the tensor unit needs A and B of one dtype, got " +
                              std::string(dtypeName(a.dtype)) + " and " + std::string(dtypeName(b.dtype)));
        }
        p.aZeroPoint = constantZeroPoint(graph, node, 2, "a_zero_point");
        p.bZeroPoint = constantZeroPoint(graph, node, 3, "b_zero_point");
        p.operandType = a.dtype;
        p.accumulatorType = DType::Int32;
        p.outputType = DType::Int32;
    } else {
        if (!isFloat(a.dtype) || a.dtype != b.dtype) {
            opError(node, "the tensor unit has no " + std::string(dtypeName(a.dtype)) + " x " +
                              std::string(dtypeName(b.dtype)) + " " + std::string(opInfo(node.kind).name) +
                              " (fp32, fp16 or bf16 operands of one type are supported)");
        }
        p.operandType = a.dtype;
        p.accumulatorType = DType::Fp32;
        p.outputType = graph.value(p.output).dtype;
    }
    requireTensorSupport(node, p.operandType, config);
    if ((p.a.transposed || p.b.transposed) && !config.dma.transpose) {
        opError(node, "a transposed operand needs a transposing DMA, and arch '" + config.name +
                          "' has dma.transpose=false");
    }
    return p;
}

}  // namespace npusim::compiler
