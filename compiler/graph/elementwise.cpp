// Widening host tensor elements to double or int64 and narrowing them back.
#include "compiler/graph/elementwise.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "arch/float_formats.h"

namespace npusim::compiler::ops {
namespace {

template <class T>
T load(const Tensor& tensor, int64_t index) {
    T value;
    std::memcpy(&value, tensor.bytes.data() + index * static_cast<int64_t>(sizeof(T)), sizeof(T));
    return value;
}

template <class T>
void store(Tensor& tensor, int64_t index, T value) {
    std::memcpy(tensor.bytes.data() + index * static_cast<int64_t>(sizeof(T)), &value, sizeof(T));
}

[[noreturn]] void wrongDType(DType dtype, const char* wanted) {
    throw std::logic_error(std::string(dtypeName(dtype)) + " is not " + wanted);
}

}  // namespace

std::vector<double> floatValues(const Tensor& tensor) {
    std::vector<double> values(static_cast<size_t>(tensor.elementCount()));
    for (int64_t i = 0; i < tensor.elementCount(); ++i) values[i] = tensor.valueAt(i);
    return values;
}

std::vector<float> widenedFloats(const Tensor& tensor) {
    if (!isFloat(tensor.dtype)) wrongDType(tensor.dtype, "a float dtype");
    const std::vector<double> values = floatValues(tensor);  // exact: every float dtype fits fp32's range and bits
    return {values.begin(), values.end()};
}

std::vector<int64_t> integerValues(const Tensor& tensor) {
    std::vector<int64_t> values(static_cast<size_t>(tensor.elementCount()));
    for (int64_t i = 0; i < tensor.elementCount(); ++i) {
        switch (tensor.dtype) {
            case DType::Int8:
                values[i] = load<int8_t>(tensor, i);
                break;
            case DType::UInt8:
                values[i] = load<uint8_t>(tensor, i);
                break;
            case DType::Bool:
                values[i] = load<uint8_t>(tensor, i) != 0;
                break;
            case DType::Int32:
                values[i] = load<int32_t>(tensor, i);
                break;
            case DType::Int64:
                values[i] = load<int64_t>(tensor, i);
                break;
            default:
                wrongDType(tensor.dtype, "an integer dtype");
        }
    }
    return values;
}

Tensor floatTensor(DType dtype, Shape shape, std::span<const double> values) {
    Tensor tensor = Tensor::zeros(dtype, std::move(shape));
    for (int64_t i = 0; i < tensor.elementCount(); ++i) {
        const auto value = static_cast<float>(values[i]);
        switch (dtype) {
            case DType::Fp32:
                store(tensor, i, value);
                break;
            case DType::Fp16:
                store(tensor, i, floatToFp16(value));
                break;
            case DType::Bf16:
                store(tensor, i, floatToBf16(value));
                break;
            default:
                wrongDType(dtype, "a float dtype");
        }
    }
    return tensor;
}

Tensor integerTensor(DType dtype, Shape shape, std::span<const int64_t> values) {
    Tensor tensor = Tensor::zeros(dtype, std::move(shape));
    for (int64_t i = 0; i < tensor.elementCount(); ++i) {
        // Conversions to narrower integers are modular since C++20.
        switch (dtype) {
            case DType::Int8:
                store(tensor, i, static_cast<int8_t>(values[i]));
                break;
            case DType::UInt8:
                store(tensor, i, static_cast<uint8_t>(values[i]));
                break;
            case DType::Bool:
                store(tensor, i, static_cast<uint8_t>(values[i] != 0));
                break;
            case DType::Int32:
                store(tensor, i, static_cast<int32_t>(values[i]));
                break;
            case DType::Int64:
                store(tensor, i, values[i]);
                break;
            default:
                wrongDType(dtype, "an integer dtype");
        }
    }
    return tensor;
}

}  // namespace npusim::compiler::ops
