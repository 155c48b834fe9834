// Affine int8/uint8 quantization shared by QuantizeLinear, DequantizeLinear, QLinearConv and
// QLinearMatMul: real = (q - zero_point) * scale and q = saturate(round(real / scale) +
// zero_point), rounding half to even. Internal to compiler/graph.
#pragma once

#include <cstdint>
#include <string_view>

#include "compiler/graph/graph.h"

namespace npusim::compiler::ops {

/// Checks a scale or zero point: one element (per tensor) or, when `sliceCount` > 0, also a 1-D
/// tensor of `sliceCount` elements, one per slice (`sliceText` names the slices in messages:
/// "X's dim 1 (3)"); opError otherwise.
void checkQuantParam(const Node& node, std::string_view name, const Shape& shape,
                     int64_t sliceCount = 0, std::string_view sliceText = {});

/// Checks that a zero point has the dtype of the tensor it belongs to.
void checkZeroPointDType(const Node& node, std::string_view name, DType zeroPoint,
                         std::string_view owner, DType ownerDType);

/// Element `slice` of a per-tensor or per-slice parameter, as a double.
double quantParamAt(const Tensor& parameter, int64_t slice);
/// Element `slice` of a per-tensor or per-slice fp32 scale.
float scaleAt(const Tensor& scale, int64_t slice);

/// round_half_to_even(value) + zeroPoint, saturated to the range of `dtype` (int8 or uint8).
/// NaN, which ONNX leaves undefined, becomes the zero point saturated likewise.
int32_t quantizeRounded(float value, int32_t zeroPoint, DType dtype);

/// Writes `value` (already in range) as element `index` of an int8 or uint8 tensor.
void storeQuantized(Tensor& tensor, int64_t index, int32_t value);

}  // namespace npusim::compiler::ops
