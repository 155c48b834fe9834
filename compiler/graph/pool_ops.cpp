// MaxPool (with its optional int64 Indices output), AveragePool, GlobalMaxPool and
// GlobalAveragePool over the spatial dims of [N, C, spatial...] tensors.
#include <algorithm>
#include <limits>
#include <string>

#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/window_geometry.h"

namespace npusim::compiler::ops {
namespace {

void checkPoolInput(const Node& node, const Shape& x) {
    if (x.size() < 3 || std::any_of(x.begin() + 2, x.end(), [](int64_t dim) { return dim < 1; })) {
        opError(node,
                "X must be [N, C, spatial...] with at least one spatial dim, none empty, got " +
                    shapeString(x));
    }
}

/// The pooling window from kernel_shape, ceil_mode and the window attributes. Every window must
/// reach into the input: a window of padding only has no maximum and no average.
WindowGeometry poolGeometry(const Node& node, const Shape& x) {
    checkPoolInput(node, x);
    const Shape input(x.begin() + 2, x.end());
    if (!node.attributes.contains("kernel_shape")) {
        opError(node, "the kernel_shape attribute is required");
    }
    const Shape kernel = intListAttr(node, "kernel_shape");
    if (kernel.size() != input.size() ||
        std::any_of(kernel.begin(), kernel.end(), [](int64_t dim) { return dim < 1; })) {
        opError(node, "kernel_shape " + shapeString(kernel) + " must have " +
                          std::to_string(input.size()) + " positive values for X " +
                          shapeString(x));
    }
    const WindowGeometry geometry =
        windowGeometry(node, input, kernel, node.intAttr("ceil_mode", 0) != 0);
    for (size_t i = 0; i < input.size(); ++i) {
        for (int64_t position = 0; position < geometry.output[i]; ++position) {
            const int64_t start = position * geometry.strides[i] - geometry.padBegin[i];
            bool reachesInput = false;
            for (int64_t k = 0; k < kernel[i]; ++k) {
                const int64_t coordinate = start + k * geometry.dilations[i];
                reachesInput = reachesInput || (coordinate >= 0 && coordinate < input[i]);
            }
            if (!reachesInput) {
                opError(node, "output position " + std::to_string(position) + " of spatial dim " +
                                  std::to_string(i) + " pools padding only (X " + shapeString(x) +
                                  ", output " + shapeString(geometry.output) + ")");
            }
        }
    }
    return geometry;
}

Shape pooledShape(const Shape& x, const Shape& spatial) {
    Shape shape{x[0], x[1]};
    shape.insert(shape.end(), spatial.begin(), spatial.end());
    return shape;
}

/// The flat index MaxPool reports for the input element at spatial offset `offset` of plane
/// `plane` (batch * C + channel): row-major, or with the spatial dims column-major when
/// storage_order is 1.
int64_t argmaxIndex(const WindowGeometry& geometry, int64_t plane, int64_t offset,
                    bool columnMajor) {
    const int64_t planeSize = elementCount(geometry.input);
    if (!columnMajor) return plane * planeSize + offset;
    int64_t index = 0, dimsFromHere = 1;
    for (size_t i = geometry.input.size(); i-- > 0;) {
        dimsFromHere *= geometry.input[i];
        // In column-major order dim i strides by the product of the dims before it.
        index += (offset % geometry.input[i]) * (planeSize / dimsFromHere);
        offset /= geometry.input[i];
    }
    return plane * planeSize + index;
}

template <class T>
void maxPool(const WindowGeometry& geometry, int64_t planes, bool columnMajor, std::span<const T> x,
             std::span<T> y, std::span<int64_t> indices) {
    const int64_t inSize = elementCount(geometry.input);
    const int64_t outSize = elementCount(geometry.output);
    WindowTaps windowTaps(geometry);
    for (int64_t position = 0; position < outSize; ++position) {
        const std::span<const WindowTap> taps = windowTaps.at(position);
        for (int64_t plane = 0; plane < planes; ++plane) {
            // The first maximum in row-major kernel order wins a tie.
            int64_t best = taps.front().input;
            for (const WindowTap& tap : taps) {
                if (x[plane * inSize + tap.input] > x[plane * inSize + best]) best = tap.input;
            }
            y[plane * outSize + position] = x[plane * inSize + best];
            if (!indices.empty()) {
                indices[plane * outSize + position] =
                    argmaxIndex(geometry, plane, best, columnMajor);
            }
        }
    }
}

}  // namespace

void inferMaxPool(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "X", x.dtype, {DType::Fp32, DType::Int8, DType::UInt8});
    const int64_t storageOrder = node.intAttr("storage_order", 0);
    if (storageOrder != 0 && storageOrder != 1) {
        opError(node, "storage_order " + std::to_string(storageOrder) + " must be 0 or 1");
    }
    const Shape shape = pooledShape(x.shape, poolGeometry(node, x.shape).output);
    setOutput(graph, node, x.dtype, shape);
    if (node.outputs.size() > 1) {
        Value& indices = graph.value(node.outputs[1]);
        indices.dtype = DType::Int64;
        indices.shape = shape;
    }
}

std::vector<Tensor> interpretMaxPool(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const WindowGeometry geometry = poolGeometry(node, x.shape);
    const Shape shape = pooledShape(x.shape, geometry.output);
    const int64_t planes = x.shape[0] * x.shape[1];
    const bool columnMajor = node.intAttr("storage_order", 0) == 1;
    std::vector<Tensor> outputs{Tensor::zeros(x.dtype, shape)};
    if (node.outputs.size() > 1) outputs.push_back(Tensor::zeros(DType::Int64, shape));
    const std::span<int64_t> indices =
        outputs.size() > 1 ? outputs[1].as<int64_t>() : std::span<int64_t>();
    switch (x.dtype) {
        case DType::Fp32:
            maxPool(geometry, planes, columnMajor, x.as<float>(), outputs[0].as<float>(), indices);
            break;
        case DType::Int8:
            maxPool(geometry, planes, columnMajor, x.as<int8_t>(), outputs[0].as<int8_t>(),
                    indices);
            break;
        case DType::UInt8:
            maxPool(geometry, planes, columnMajor, x.as<uint8_t>(), outputs[0].as<uint8_t>(),
                    indices);
            break;
        default:
            opError(node, "X is " + std::string(dtypeName(x.dtype)) +
                              "; MaxPool supports fp32, int8, uint8");
    }
    return outputs;
}

void inferAveragePool(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "X", x.dtype, {DType::Fp32});
    setOutput(graph, node, x.dtype, pooledShape(x.shape, poolGeometry(node, x.shape).output));
}

std::vector<Tensor> interpretAveragePool(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const WindowGeometry geometry = poolGeometry(node, x.shape);
    // count_include_pad divides by the taps inside the padded input, else by those inside X.
    const bool countPadding = node.intAttr("count_include_pad", 0) != 0;
    Tensor out = Tensor::zeros(DType::Fp32, pooledShape(x.shape, geometry.output));
    const std::span<const float> in = x.as<float>();
    const std::span<float> y = out.as<float>();
    const int64_t planes = x.shape[0] * x.shape[1];
    const int64_t inSize = elementCount(geometry.input);
    const int64_t outSize = elementCount(geometry.output);
    WindowTaps windowTaps(geometry);
    for (int64_t position = 0; position < outSize; ++position) {
        const std::span<const WindowTap> taps = windowTaps.at(position);
        const auto count =
            static_cast<double>(countPadding ? windowTaps.paddedCount() : taps.size());
        for (int64_t plane = 0; plane < planes; ++plane) {
            double sum = 0;
            for (const WindowTap& tap : taps) sum += in[plane * inSize + tap.input];
            y[plane * outSize + position] = static_cast<float>(sum / count);
        }
    }
    return {std::move(out)};
}

void inferGlobalPool(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "X", x.dtype, {DType::Fp32});
    checkPoolInput(node, x.shape);
    setOutput(graph, node, x.dtype, pooledShape(x.shape, Shape(x.shape.size() - 2, 1)));
}

std::vector<Tensor> interpretGlobalAveragePool(const Node& node,
                                               std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    checkPoolInput(node, x.shape);
    Tensor out = Tensor::zeros(DType::Fp32, pooledShape(x.shape, Shape(x.shape.size() - 2, 1)));
    const std::span<const float> in = x.as<float>();
    const int64_t planeSize = elementCount(Shape(x.shape.begin() + 2, x.shape.end()));
    for (int64_t plane = 0; plane < out.elementCount(); ++plane) {
        double sum = 0;
        for (int64_t i = 0; i < planeSize; ++i) sum += in[plane * planeSize + i];
        out.as<float>()[plane] = static_cast<float>(sum / static_cast<double>(planeSize));
    }
    return {std::move(out)};
}

std::vector<Tensor> interpretGlobalMaxPool(const Node& node,
                                           std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    checkPoolInput(node, x.shape);
    Tensor out = Tensor::zeros(DType::Fp32, pooledShape(x.shape, Shape(x.shape.size() - 2, 1)));
    const std::span<const float> in = x.as<float>();
    const int64_t planeSize = elementCount(Shape(x.shape.begin() + 2, x.shape.end()));
    for (int64_t plane = 0; plane < out.elementCount(); ++plane) {
        const auto begin = in.begin() + plane * planeSize;
        out.as<float>()[plane] = *std::max_element(begin, begin + planeSize);
    }
    return {std::move(out)};
}

}  // namespace npusim::compiler::ops
