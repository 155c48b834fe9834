// The geometry of DFT and STFT nodes, shared by their reference semantics and CPU kernels. A
// signal's last dim holds one (real) or two (real, imaginary) components; spectra hold two.
#pragma once

#include <cstdint>
#include <optional>

#include "compiler/graph/graph.h"

namespace npusim::compiler::ops {

/// DFT: the input viewed as [outer, length, inner, components] along the axis; `size` points
/// (the signal zero-padded or cut to dft_length), of which `bins` are output.
struct DftGeometry {
    int64_t outer = 1, length = 1, inner = 1, components = 1;
    int64_t size = 1, bins = 1;
    bool inverse = false;
};
/// The geometry of a DFT with input shape `input` and dft_length (nullopt: the signal's length);
/// opError naming what does not fit.
DftGeometry dftGeometry(const Node& node, const Shape& input, std::optional<int64_t> dftLength);

/// STFT: frames of `frameLength` points every `step` of a [batch, length, components] signal,
/// each optionally windowed; `bins` of each frame's spectrum are output.
struct StftGeometry {
    int64_t batch = 1, length = 1, components = 1;
    int64_t step = 1, frameLength = 1, frames = 1, bins = 1;
};
/// The geometry of an STFT with signal shape `signal`, its frame step, window shape (when given)
/// and frame_length (when given); opError naming what does not fit.
StftGeometry stftGeometry(const Node& node, const Shape& signal, int64_t step, const std::optional<Shape>& window,
                          std::optional<int64_t> frameLength);

}  // namespace npusim::compiler::ops
