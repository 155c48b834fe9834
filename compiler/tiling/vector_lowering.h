// Lowering of the ops the vector unit runs (everything but GEMMs) to vector problems, one
// file per op family. Internal to compiler/tile.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/graph/window_geometry.h"
#include "compiler/tile/index_space.h"
#include "compiler/tile/vector_builder.h"

namespace npusim::compiler {

/// Rows longer than this are split: a vector command's row stays within the ISA's fields and
/// a block keeps several rows to pipeline.
inline constexpr int64_t kMaxVectorCols = 4096;

/// The kernels of a non-GEMM op, unscheduled. Throws VectorUnsupported when the vector unit
/// cannot run it, InputError (located) when the op itself is malformed.
std::vector<VectorProblem> vectorProblemsFor(const Graph& graph, const Node& node, uint32_t opId);

/// Computes an elementwise result from its inputs' buffers (or immediates).
using ElementwiseBody = std::function<uint32_t(VectorBuilder&, std::span<const Operand>)>;

/// An elementwise kernel: the output's index space with every input broadcast to it,
/// simplified; single-element fp32 constants become immediates. `broadcastShapes`, when
/// given, says per input the shape it broadcasts as (BatchNormalization's [C] as [C,1,1]).
VectorProblem elementwiseProblem(const Graph& graph, uint32_t opId, std::string name,
                                 std::span<const ValueId> inputs, ValueId output, const ElementwiseBody& body,
                                 std::span<const Shape> broadcastShapes = {}, bool immediates = true);

/// Computes a row-wise kernel's outputs (Block or Column buffers) from its inputs.
using RowwiseBody = std::function<std::vector<uint32_t>(VectorBuilder&, std::span<const Operand>)>;

/// A row-wise kernel over a tensor of `shape`: the dims not in `reduced` are the rows, the
/// reduced dims form each row. Inputs broadcast to `shape`; an output is either of `shape`
/// (from a Block buffer) or holds one value per row (from a Column buffer, laid out densely
/// over the kept dims).
VectorProblem rowwiseProblem(const Graph& graph, uint32_t opId, std::string name, const Shape& shape,
                             const std::vector<bool>& reduced, std::span<const ValueId> inputs,
                             std::span<const ValueId> outputs, const RowwiseBody& body);

/// Reductions, Softmax, LogSoftmax and LayerNormalization; empty when `node` is none.
std::vector<VectorProblem> rowwiseProblemsFor(const Graph& graph, const Node& node, uint32_t opId);

/// A box of output positions of a sliding window (a run along every spatial axis) whose
/// windows all read the same kernel taps of the input, so a kernel per box never reads padding.
/// Strides and offsets are in elements of X (`tap...`) and Y (`output...`), spatial dims only.
struct WindowBox {
    Shape extents;                ///< output positions along each spatial axis
    Shape taps;                   ///< kernel taps read along each axis
    std::vector<int64_t> kFirst;  ///< the first of them
    int64_t paddedTaps = 1;       ///< taps inside the padded input (AveragePool's count_include_pad divisor)
    int64_t outputOffset = 0, tapOrigin = 0;  ///< the box's first output, and its first tap's input
    std::vector<int64_t> outputStrides, tapStrides;  ///< per output step along each axis
};

/// Calls visit for every box of the window's output; `in` and `out` are the row-major strides
/// of X and Y, whose spatial dims start at dim 2.
void forEachWindowBox(const ops::WindowGeometry& geometry, std::span<const int64_t> in, std::span<const int64_t> out,
                      const std::function<void(const WindowBox&)>& visit);

/// Depthwise convolutions (Conv with one group per input channel) as kernels of taps
/// multiplied by per-channel weights and summed, one kernel per box of output positions whose
/// windows read the same taps; empty when `node` is none.
std::vector<VectorProblem> depthwiseProblemsFor(const Graph& graph, const Node& node, uint32_t opId);

/// A depthwise convolution (one output channel per input channel) or a max or average pool
/// as one kernel over padded input planes, each kernel tap a window the vector unit reads on
/// chip (lower_window.cpp): one problem per block-row layout worth trying; none when `node` is
/// none of these or its shape does not fit (planes beyond the vector command's fields). Plane
/// rows are laid out a conflict-free pitch apart in `sram`'s banks.
std::vector<VectorProblem> windowProblemsFor(const Graph& graph, const Node& node, uint32_t opId, const MemoryConfig& sram);

/// A view of a DRAM tensor: which tensor and the element its index (0, 0, ...) reads.
struct ViewOrigin {
    ValueId value = kNoValue;
    int64_t offset = 0;
};

/// A view of an int64 tensor as the int32 low words of its elements (one past is the high).
TensorView lowWords(TensorView view);

/// Simplifies an index space and makes its last dim the row (split when longer than
/// kMaxVectorCols), with at least one row dim.
void shapeForRows(IndexSpace& space);

/// An elementwise kernel over an arbitrary index space: operand 0 of `space` is the output,
/// operand i + 1 the i-th input, each with its own origin. The space is simplified, its last
/// dim becomes the row. Inputs broadcast along the rows or columns load as column or row
/// operands, or, with `wholeBlocks`, always as whole blocks (the DMA repeating elements).
VectorProblem stridedProblem(const Graph& graph, uint32_t opId, std::string name, IndexSpace space,
                             ViewOrigin output, std::span<const ViewOrigin> inputs, const ElementwiseBody& body,
                             bool wholeBlocks = false);

/// The data-movement ops (stridedCopies): one load-and-store kernel per copy, no vector
/// steps; empty when `node` is not one.
std::vector<VectorProblem> movementProblemsFor(const Graph& graph, const Node& node, uint32_t opId);

/// Resize (nearest, linear, cubic): one kernel per box of output coordinates that sample alike;
/// empty when `node` is not a Resize.
std::vector<VectorProblem> resizeProblemsFor(const Graph& graph, const Node& node, uint32_t opId);

/// QuantizeLinear and DequantizeLinear (one kernel per slice of a per-axis quantisation);
/// empty when `node` is neither.
std::vector<VectorProblem> quantizeProblemsFor(const Graph& graph, const Node& node, uint32_t opId);

/// The elementwise ops (arithmetic, activations, casts); empty when `node` is not one.
std::vector<VectorProblem> elementwiseProblemsFor(const Graph& graph, const Node& node, uint32_t opId);

}  // namespace npusim::compiler
