// Depthwise convolution on the vector unit: Y[n, c*mult + j, o] = B[c*mult + j] + sum over the
// taps t of X[n, c, window(o, t)] * W[c*mult + j, 0, t]. As for pooling, the output is cut into
// boxes within which every window reads the same kernel taps, so padding is never read; in a
// box, each tap is one strided view of X and its weight one value per output channel (a column
// operand), and the products are summed in the reference's order: bias first, then the taps.
#include "compiler/graph/convolution.h"
#include "compiler/graph/op_support.h"
#include "compiler/tile/index_space.h"
#include "compiler/tiling/vector_lowering.h"

namespace npusim::compiler {

std::vector<VectorProblem> depthwiseProblemsFor(const Graph& graph, const Node& node, uint32_t opId) {
    if (!ops::isDepthwiseConvolution(graph, node)) return {};
    const Value& x = graph.value(node.inputs[0]);
    const Value& w = graph.value(node.inputs[1]);
    const ops::ConvShape conv = ops::convShape(node, x.shape, w.shape);
    const ops::WindowGeometry& g = conv.window;
    const ValueId bias = node.inputs.size() > 2 ? node.inputs[2] : kNoValue;
    const int64_t multiplier = conv.outChannels / conv.group;
    const std::vector<int64_t> in = ops::rowMajorStrides(x.shape), out = ops::rowMajorStrides(conv.output);
    const std::vector<int64_t> kernelStrides = ops::rowMajorStrides(g.kernel);
    const int64_t taps = elementCount(g.kernel);
    const std::vector<int64_t> perChannel = {0, taps * multiplier, taps};  // W's, then spatial zeros

    std::vector<VectorProblem> problems;
    forEachWindowBox(g, in, out, [&](const WindowBox& box) {
        // The box's index space: [N, C, multiplier, box spatial...].
        Shape dims = {conv.batch, conv.group, multiplier};
        dims.insert(dims.end(), box.extents.begin(), box.extents.end());
        std::vector<int64_t> outputStrides = {out[0], out[1] * multiplier, out[1]};
        outputStrides.insert(outputStrides.end(), box.outputStrides.begin(), box.outputStrides.end());
        std::vector<int64_t> tapStrides = {in[0], in[1], 0};
        tapStrides.insert(tapStrides.end(), box.tapStrides.begin(), box.tapStrides.end());
        if (elementCount(box.taps) == 0) throw VectorUnsupported("a convolution window lying wholly in padding");
        std::vector<int64_t> weightStrides = perChannel;
        weightStrides.resize(dims.size(), 0);
        IndexSpace space{dims, {}};
        space.add(outputStrides);
        std::vector<ViewOrigin> views;
        if (bias != kNoValue) {
            std::vector<int64_t> biasStrides = {0, multiplier, 1};
            biasStrides.resize(dims.size(), 0);
            space.add(biasStrides);
            views.push_back({bias, 0});
        }
        ops::forEachPosition(box.taps, [&](const std::vector<int64_t>& k) {
            int64_t offset = box.tapOrigin, kernelIndex = 0;
            for (size_t i = 0; i < k.size(); ++i) {
                offset += k[i] * g.dilations[i] * in[i + 2];
                kernelIndex += (box.kFirst[i] + k[i]) * kernelStrides[i];
            }
            space.add(tapStrides);
            views.push_back({node.inputs[0], offset});
            space.add(weightStrides);
            views.push_back({node.inputs[1], kernelIndex});
        });
        const bool biased = bias != kNoValue;
        problems.push_back(stridedProblem(graph, opId, "depthwise_conv", std::move(space), {node.outputs[0], box.outputOffset},
                                          views, [biased](VectorBuilder& b, std::span<const Operand> in) {
                                              const size_t first = biased ? 1 : 0;
                                              uint32_t sum = b.binary(isa::VectorOp::Mul, *in[first].buffer, *in[first + 1].buffer);
                                              if (biased) sum = b.binary(isa::VectorOp::Add, sum, *in[0].buffer);
                                              for (size_t t = first + 2; t < in.size(); t += 2) {
                                                  sum = b.binary(isa::VectorOp::Add, sum,
                                                                 b.binary(isa::VectorOp::Mul, *in[t].buffer, *in[t + 1].buffer));
                                              }
                                              return sum;
                                          }));
    });
    return problems;
}

}  // namespace npusim::compiler
