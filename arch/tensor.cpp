// Host-side tensor helpers.
#include "arch/tensor.h"

#include <cstring>
#include <stdexcept>

#include "arch/float_formats.h"

namespace npusim {

int64_t elementCount(const Shape& shape) {
    int64_t count = 1;
    for (int64_t dim : shape) count *= dim;
    return count;
}

std::string shapeString(const Shape& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) text += ",";
        text += std::to_string(shape[i]);
    }
    return text + "]";
}

Tensor Tensor::zeros(DType dtype, Shape shape) {
    Tensor tensor;
    tensor.dtype = dtype;
    tensor.shape = std::move(shape);
    tensor.bytes.assign(static_cast<size_t>(tensor.elementCount()) * dtypeSize(dtype),
                        std::byte{0});
    return tensor;
}

double Tensor::valueAt(int64_t index) const {
    const std::byte* p = bytes.data() + static_cast<size_t>(index) * dtypeSize(dtype);
    switch (dtype) {
        case DType::Int8: return static_cast<double>(static_cast<int8_t>(*p));
        case DType::UInt8: return static_cast<double>(static_cast<uint8_t>(*p));
        case DType::Bool: return *p != std::byte{0} ? 1.0 : 0.0;
        case DType::Int32: {
            int32_t v;
            std::memcpy(&v, p, sizeof v);
            return v;
        }
        case DType::Int64: {
            int64_t v;
            std::memcpy(&v, p, sizeof v);
            return static_cast<double>(v);
        }
        case DType::Fp32: {
            float v;
            std::memcpy(&v, p, sizeof v);
            return v;
        }
        case DType::Fp16: {
            uint16_t v;
            std::memcpy(&v, p, sizeof v);
            return fp16ToFloat(v);
        }
        case DType::Bf16: {
            uint16_t v;
            std::memcpy(&v, p, sizeof v);
            return bf16ToFloat(v);
        }
    }
    throw std::logic_error("unknown dtype");
}

}  // namespace npusim
