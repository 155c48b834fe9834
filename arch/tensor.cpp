// Host-side tensor helpers.
#include "arch/tensor.h"

#include <algorithm>
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

Tensor cropOrPad(const Tensor& tensor, const Shape& shape) {
    Tensor out = Tensor::zeros(tensor.dtype, shape);
    const size_t elem = dtypeSize(tensor.dtype);
    const size_t rank = shape.size();
    if (rank == 0) {
        std::memcpy(out.bytes.data(), tensor.bytes.data(), elem);
        return out;
    }
    // Copy the common box row by row (the last dim's common run at a time).
    Shape common(rank);
    for (size_t d = 0; d < rank; ++d) common[d] = std::min(shape[d], tensor.shape[d]);
    if (elementCount(common) == 0) return out;
    std::vector<int64_t> index(rank, 0);
    const auto run = static_cast<size_t>(common.back()) * elem;
    while (true) {
        int64_t from = 0, to = 0;
        for (size_t d = 0; d < rank; ++d) {
            from = from * tensor.shape[d] + index[d];
            to = to * shape[d] + index[d];
        }
        std::memcpy(out.bytes.data() + static_cast<size_t>(to) * elem,
                    tensor.bytes.data() + static_cast<size_t>(from) * elem, run);
        size_t d = rank - 1;
        while (d-- > 0) {
            if (++index[d] < common[d]) break;
            index[d] = 0;
        }
        if (d == static_cast<size_t>(-1)) return out;
    }
}

}  // namespace npusim
