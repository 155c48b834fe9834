// Quantization parameters, rounding and saturation shared by the quantized ops.
#include "compiler/graph/quantization.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {

void checkQuantParam(const Node& node, std::string_view name, const Shape& shape,
                     int64_t sliceCount, std::string_view sliceText) {
    const bool perTensor = elementCount(shape) == 1 && shape.size() <= 1;
    const bool perSlice = sliceCount > 0 && shape.size() == 1 && shape[0] == sliceCount;
    if (perTensor || perSlice) return;
    std::string expected = "a scalar or [1]";
    if (sliceCount > 0) {
        expected += ", or [" + std::to_string(sliceCount) + "] for " + std::string(sliceText);
    }
    opError(node, std::string(name) + " must be " + expected + ", got " + shapeString(shape));
}

void checkZeroPointDType(const Node& node, std::string_view name, DType zeroPoint,
                         std::string_view owner, DType ownerDType) {
    if (zeroPoint == ownerDType) return;
    opError(node, std::string(name) + " is " + std::string(dtypeName(zeroPoint)) + " but " +
                      std::string(owner) + " is " + std::string(dtypeName(ownerDType)) +
                      "; they must have the same dtype");
}

double quantParamAt(const Tensor& parameter, int64_t slice) {
    return parameter.valueAt(parameter.elementCount() == 1 ? 0 : slice);
}

float scaleAt(const Tensor& scale, int64_t slice) {
    return scale.as<float>()[scale.elementCount() == 1 ? 0 : slice];
}

int32_t quantizeRounded(float value, int32_t zeroPoint, DType dtype) {
    const double low = dtype == DType::Int8 ? -128 : 0;
    const double high = dtype == DType::Int8 ? 127 : 255;
    // nearbyint rounds half to even in the default rounding mode.
    const double rounded = std::isnan(value) ? 0.0 : std::nearbyint(static_cast<double>(value));
    return static_cast<int32_t>(std::clamp(rounded + zeroPoint, low, high));
}

void storeQuantized(Tensor& tensor, int64_t index, int32_t value) {
    if (tensor.dtype == DType::Int8) {
        tensor.as<int8_t>()[index] = static_cast<int8_t>(value);
    } else {
        tensor.as<uint8_t>()[index] = static_cast<uint8_t>(value);
    }
}

}  // namespace npusim::compiler::ops
