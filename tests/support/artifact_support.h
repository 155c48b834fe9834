// Building artifact manifests in tests: an NPU segment, and a tensor binding at a DRAM offset
// (every dim fixed).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "arch/artifact.h"

namespace npusim::testing {

inline SegmentRecord npuSegment(std::string section, std::vector<WeightUpload> uploads = {}) {
    SegmentRecord segment;
    segment.section = std::move(section);
    segment.uploads = std::move(uploads);
    return segment;
}

inline TensorBinding binding(std::string name, DType dtype, Shape shape, uint64_t dramOffset) {
    TensorBinding b;
    b.name = std::move(name);
    b.dtype = dtype;
    b.shape = std::move(shape);
    b.dramOffset = dramOffset;
    return b;
}

}  // namespace npusim::testing
