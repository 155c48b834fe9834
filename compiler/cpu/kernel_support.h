// Internal to compiler/cpu: the pieces every CPU kernel is built from (a tensor viewed along an
// axis, loop nests over a shape, flat indices, checked index loads, the kernel's bound buffers)
// and the kernels of the per-family files, which hostKernelFor dispatches to.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "compiler/cpu/host_kernels.h"

namespace npusim::compiler::cpu {

using V = KernelBuilder::Value;

/// A tensor along an axis, viewed as [outer, size, inner]: element (o, s, n) is at
/// (o * size + s) * inner + n.
struct AxisView {
    int64_t outer = 1, size = 1, inner = 1;
};
AxisView axisView(const Shape& shape, int64_t axis);

/// Calls body with the position of every element of `shape`, in row-major order.
void forEachPosition(KernelBuilder& b, const Shape& shape, const std::function<void(const std::vector<V>&)>& body);

/// The flat index of `position` in a tensor with `strides` (0 for a broadcast dim).
V linear(KernelBuilder& b, const std::vector<V>& position, const std::vector<int64_t>& strides);

/// An index read from an int32/int64 tensor as int64, negative ones counted from `size`; an
/// index outside [-size, size) stops the kernel with IndexOutOfRange, as ONNX makes it an error.
V checkedIndex(KernelBuilder& b, V raw, int64_t size);

V zeroOf(KernelBuilder& b, Scalar type);

/// The kernel's buffers: `inputs` of the node, then its outputs.
struct Bound {
    explicit Bound(std::string name) : builder(std::move(name)) {}
    KernelBuilder builder;
    HostKernel result;
    uint32_t bind(const Graph& graph, ValueId id, bool output);
    HostKernel finish();
};

/// Binds every input of an elementwise node; with each buffer, its strides when broadcast to
/// `shape` (0 along broadcast dims).
struct BroadcastOperands {
    std::vector<uint32_t> buffers;
    std::vector<std::vector<int64_t>> strides;
};
BroadcastOperands bindBroadcast(const Graph& graph, const Node& node, Bound& k, const Shape& shape);

// The kernels of the family files.
/// loss_kernels.cpp
HostKernel negativeLogLikelihoodLoss(const Graph& graph, const Node& node, Bound& k);
/// matrix_kernels.cpp
HostKernel det(const Graph& graph, const Node& node, Bound& k);
HostKernel einsum(const Graph& graph, const Node& node, Bound& k);
/// normalization_kernels.cpp
HostKernel lrn(const Graph& graph, const Node& node, Bound& k);
/// sampling_kernels.cpp
HostKernel gridSample(const Graph& graph, const Node& node, Bound& k);
HostKernel roiAlign(const Graph& graph, const Node& node, Bound& k);
/// scatter_kernels.cpp
HostKernel scatterElements(const Graph& graph, const Node& node, Bound& k);
HostKernel scatterNd(const Graph& graph, const Node& node, Bound& k);
HostKernel gatherNd(const Graph& graph, const Node& node, Bound& k);
HostKernel maxUnpool(const Graph& graph, const Node& node, Bound& k);
/// sequence_kernels.cpp
HostKernel reverseSequence(const Graph& graph, const Node& node, Bound& k);
HostKernel tfIdfVectorizer(const Graph& graph, const Node& node, Bound& k);
/// spectral_kernels.cpp
HostKernel dft(const Graph& graph, const Node& node, Bound& k);
HostKernel stft(const Graph& graph, const Node& node, Bound& k);
/// data_dependent_kernels.cpp: NonZero, Compress, Unique and NonMaxSuppression; nullopt for other ops.
std::optional<HostKernel> dataDependentKernel(const Graph& graph, const Node& node, Bound& k);

}  // namespace npusim::compiler::cpu
