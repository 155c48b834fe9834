// Resize as separable sampling, for lowering: along each axis, every output coordinate reads a
// few input indices with weights (nearest 1, linear 2, cubic 4) or takes the extrapolation
// value; the output element is the product-weighted sum over the axes' taps.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// How each output coordinate of one axis samples the input: `taps` input indices and weights
/// per coordinate (index[o * taps + t]), or the extrapolation value.
struct AxisSampling {
    int64_t taps = 1;
    std::vector<int64_t> index;
    std::vector<double> weight;
    std::vector<bool> extrapolate;

    /// True when every coordinate reads its own index with weight 1.
    bool isIdentity() const;
};

struct ResizeSampling {
    std::vector<AxisSampling> axes;
    double extrapolation = 0;
};

/// The sampling of a Resize node whose roi, scales and sizes are constants; nullopt when the
/// roi it needs (tf_crop_and_resize) is computed at run time.
std::optional<ResizeSampling> resizeSampling(const Graph& graph, const Node& node);

}  // namespace npusim::compiler
