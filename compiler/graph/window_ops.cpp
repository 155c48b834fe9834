// Generators of signal-processing constants, folded at compile time since every input decides
// the result's shape or contents: HannWindow, HammingWindow and BlackmanWindow (cosine sums over
// n / N, N the size when periodic, size - 1 when symmetric) and MelWeightMatrix (triangular
// filters from the mel scale, as ONNX's tests compute them). Computed in double, rounded once to
// output_datatype (a float dtype, fp32 by default).
#include <cmath>
#include <numbers>
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/onnx_element_types.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

DType outputDType(const Node& node) {
    const int64_t code = node.intAttr("output_datatype", 1);
    const std::optional<DType> dtype = dtypeOfOnnxElementType(code);
    if (!dtype || !isFloat(*dtype)) {
        opError(node, "output_datatype " + onnxElementTypeName(code) + " is not a float dtype npusim supports");
    }
    return *dtype;
}

/// One scalar count (a window's size, a number of bins...).
int64_t scalarCount(const Node& node, const Tensor& tensor, const char* what) {
    if (tensor.elementCount() != 1 || isFloat(tensor.dtype)) opError(node, std::string(what) + " must be one integer");
    return integerValues(tensor)[0];
}

double scalarValue(const Tensor& tensor) { return floatValues(tensor).at(0); }

std::vector<double> window(const Node& node, int64_t size) {
    if (size < 1) opError(node, "size must be at least 1, got " + std::to_string(size));
    const bool periodic = node.intAttr("periodic", 1) != 0;
    const auto span = static_cast<double>(periodic || size == 1 ? size : size - 1);
    std::vector<double> values(static_cast<size_t>(size));
    for (int64_t n = 0; n < size; ++n) {
        const double angle = 2 * std::numbers::pi * static_cast<double>(n) / span;
        switch (node.kind) {
            case OpKind::HannWindow: values[n] = 0.5 - 0.5 * std::cos(angle); break;
            case OpKind::HammingWindow: values[n] = 25.0 / 46.0 - 21.0 / 46.0 * std::cos(angle); break;
            default: values[n] = 0.42 - 0.5 * std::cos(angle) + 0.08 * std::cos(2 * angle); break;  // Blackman
        }
    }
    return values;
}

/// MelWeightMatrix's [dft_length / 2 + 1, num_mel_bins] filters.
Tensor melWeights(const Node& node, std::span<const Tensor* const> inputs) {
    const int64_t bins = scalarCount(node, *inputs[0], "num_mel_bins"), length = scalarCount(node, *inputs[1], "dft_length");
    const int64_t rate = scalarCount(node, *inputs[2], "sample_rate");
    if (bins < 1 || length < 1 || rate < 1) opError(node, "num_mel_bins, dft_length and sample_rate must be positive");
    const auto mel = [](double hertz) { return 2595 * std::log10(1 + hertz / 700); };
    const double low = mel(scalarValue(*inputs[3])), high = mel(scalarValue(*inputs[4]));
    const double step = (high - low) / static_cast<double>(bins + 2);
    const int64_t spectrum = length / 2 + 1;
    // The edges of the triangles, as spectrum indices.
    std::vector<int64_t> edges;
    for (int64_t i = 0; i < bins + 2; ++i) {
        const double hertz = 700 * (std::pow(10.0, (static_cast<double>(i) * step + low) / 2595) - 1);
        edges.push_back(static_cast<int64_t>(std::floor(static_cast<double>(length + 1) * hertz / static_cast<double>(rate))));
    }
    std::vector<double> out(static_cast<size_t>(spectrum * bins), 0.0);
    const auto set = [&](int64_t row, int64_t column, double value) {
        if (row < 0 || row >= spectrum) {
            opError(node, "the filters reach bin " + std::to_string(row) + ", beyond the spectrum's " + std::to_string(spectrum));
        }
        out[row * bins + column] = value;
    };
    for (int64_t i = 0; i < bins; ++i) {
        const int64_t left = edges[i], centre = edges[i + 1], right = edges[i + 2];
        if (centre == left) set(centre, i, 1);
        for (int64_t j = left; centre != left && j <= centre; ++j) {
            set(j, i, static_cast<double>(j - left) / static_cast<double>(centre - left));
        }
        for (int64_t j = centre; j < right; ++j) set(j, i, static_cast<double>(right - j) / static_cast<double>(right - centre));
    }
    return floatTensor(outputDType(node), {spectrum, bins}, out);
}

}  // namespace

void inferWindow(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const std::vector<int64_t> size = constantInts(graph, node, 0, "size");
    if (size.size() != 1) opError(node, "size must hold one value");
    setOutput(graph, node, outputDType(node), {size[0]});
}

std::vector<Tensor> interpretWindow(const Node& node, std::span<const Tensor* const> inputs) {
    const int64_t size = scalarCount(node, *inputs[0], "size");
    return {floatTensor(outputDType(node), {size}, window(node, size))};
}

void inferMelWeightMatrix(Graph& graph, const Node& node) {
    checkArity(graph, node);
    std::vector<const Tensor*> inputs;
    const char* names[] = {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"};
    for (size_t i = 0; i < 5; ++i) inputs.push_back(&constantInput(graph, node, i, names[i]));
    const Tensor weights = melWeights(node, inputs);
    setOutput(graph, node, weights.dtype, weights.shape);
}

std::vector<Tensor> interpretMelWeightMatrix(const Node& node, std::span<const Tensor* const> inputs) {
    return {melWeights(node, inputs)};
}

}  // namespace npusim::compiler::ops
