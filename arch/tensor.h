// A host-side tensor value: element type, shape and the packed row-major bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "arch/dtype.h"

namespace npusim {

using Shape = std::vector<int64_t>;

/// Number of elements of a static shape (1 for a scalar).
int64_t elementCount(const Shape& shape);
/// "[256,512]"; a scalar prints as "[]".
std::string shapeString(const Shape& shape);

/// A dense row-major tensor held in host memory.
struct Tensor {
    DType dtype = DType::Fp32;
    Shape shape;
    std::vector<std::byte> bytes;

    /// A zero-filled tensor.
    static Tensor zeros(DType dtype, Shape shape);

    int64_t elementCount() const { return npusim::elementCount(shape); }

    /// Typed view of the elements; T must match the element size.
    template <class T>
    std::span<T> as() {
        return {reinterpret_cast<T*>(bytes.data()), bytes.size() / sizeof(T)};
    }
    template <class T>
    std::span<const T> as() const {
        return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
    }

    /// Element i converted to double, whatever the element type.
    double valueAt(int64_t index) const;
};

/// `tensor` in `shape` (of the same rank): zero-padded or cut along each dim to the target, the
/// elements in the box both share kept in place (a bucket's padding, a data-dependent size).
Tensor cropOrPad(const Tensor& tensor, const Shape& shape);

}  // namespace npusim
