// VectorBuilder: operand modes, rewrites for broadcast first operands, and buffer reuse.
#include "compiler/tile/vector_builder.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace npusim::compiler {
namespace {

/// The type the vector unit computes a narrow type in: int32 for the small integers and bool,
/// fp32 for the 16-bit floats; other types are their own.
DType wideType(DType dtype) {
    switch (dtype) {
        case DType::Int8:
        case DType::UInt8:
        case DType::Bool: return DType::Int32;
        case DType::Fp16:
        case DType::Bf16: return DType::Fp32;
        default: return dtype;
    }
}

bool commutative(isa::VectorOp op) {
    return op == isa::VectorOp::Add || op == isa::VectorOp::Mul || op == isa::VectorOp::Max ||
           op == isa::VectorOp::Min;
}

/// True when the dims [begin, end) have more than one index and the view reads the same
/// element at all of them.
bool broadcastAlong(const VectorProblem& problem, const TensorView& view, size_t begin, size_t end) {
    bool several = false;
    for (size_t d = begin; d < end; ++d) {
        if (problem.dims[d] == 1) continue;
        if (view.strides[d] != 0) return false;
        several = true;
    }
    return several;
}

}  // namespace

uint32_t fp32Bits(float value) { return std::bit_cast<uint32_t>(value); }

VectorBuilder::VectorBuilder(uint32_t opId, std::string name, Shape dims, int colDims) {
    problem_.opId = opId;
    problem_.name = std::move(name);
    problem_.dims = std::move(dims);
    problem_.colDims = colDims;
}

uint32_t VectorBuilder::newBuffer(DType dtype, BufferExtent extent) {
    problem_.buffers.push_back({dtype, extent, 0});
    loadOf_.emplace_back();
    return static_cast<uint32_t>(problem_.buffers.size() - 1);
}

uint32_t VectorBuilder::load(const TensorView& view, DType dtype) {
    const auto rowDims = static_cast<size_t>(problem_.rowDims());
    const bool sameInEveryRow = broadcastAlong(problem_, view, 0, rowDims);
    const bool sameInEveryCol = broadcastAlong(problem_, view, rowDims, problem_.dims.size());
    const BufferExtent extent = sameInEveryCol   ? BufferExtent::Column
                                : sameInEveryRow ? BufferExtent::Row
                                                 : BufferExtent::Block;
    const uint32_t buffer = newBuffer(dtype, extent);
    loadOf_[buffer] = problem_.loads.size();
    problem_.loads.push_back({view, buffer, std::nullopt, std::nullopt});
    return buffer;
}

uint32_t VectorBuilder::loadBlock(const TensorView& view, DType dtype) {
    const uint32_t buffer = newBuffer(dtype, BufferExtent::Block);
    loadOf_[buffer] = problem_.loads.size();
    problem_.loads.push_back({view, buffer, std::nullopt, std::nullopt});
    return buffer;
}

uint32_t VectorBuilder::loadRows(const TensorView& table, DType dtype, RowIndices indices) {
    const uint32_t buffer = newBuffer(dtype, BufferExtent::Block);
    loadOf_[buffer] = problem_.loads.size();
    problem_.loads.push_back({table, buffer, std::nullopt, std::move(indices)});
    return buffer;
}

uint32_t VectorBuilder::loadPlane(const TensorView& rows, DType dtype, PlaneLayout plane, int64_t width) {
    const uint32_t buffer = newBuffer(dtype, BufferExtent::Block);
    problem_.buffers[buffer].width = width;
    loadOf_[buffer] = problem_.loads.size();
    problem_.loads.push_back({rows, buffer, std::move(plane), std::nullopt});
    return buffer;
}

uint32_t VectorBuilder::window(isa::VectorOp op, uint32_t plane, WindowRead read, std::optional<uint32_t> src1) {
    const DType dtype = dtypeOf(plane);
    if (!isa::vectorSupports(op, dtype, dtype)) {
        throw VectorUnsupported("the vector unit has no " + std::string(isa::vectorOpName(op)) + " on " +
                                std::string(dtypeName(dtype)));
    }
    if (src1 && (dtypeOf(*src1) != dtype || extentOf(*src1) == BufferExtent::Row)) {
        throw std::logic_error("vector builder: a window's operand must be a block or column of its type");
    }
    const uint32_t dst = newBuffer(dtype, BufferExtent::Block);
    problem_.steps.push_back({op, dst, plane, src1, std::nullopt, 0, std::move(read)});
    return dst;
}

uint32_t VectorBuilder::widened(uint32_t buffer) {
    const DType wide = wideType(dtypeOf(buffer));
    if (wide == dtypeOf(buffer)) return buffer;
    if (const auto it = widened_.find(buffer); it != widened_.end()) return it->second;
    const uint32_t result = unary(isa::VectorOp::Cast, buffer, wide);
    widened_[buffer] = result;
    return result;
}

uint32_t VectorBuilder::step(isa::VectorOp op, uint32_t dst, uint32_t src0,
                             std::optional<uint32_t> src1, std::optional<uint32_t> imm,
                             uint32_t imm2) {
    // int8, uint8 and bool are computed in int32, fp16 and bf16 in fp32 (but where the unit
    // takes them as they are: a max of two int8 values): narrow operands are widened, and a
    // result of their type is wide too (the kernel narrows what it stores).
    const DType wide = wideType(dtypeOf(src0));
    const bool wideOperand = src1 && dtypeOf(*src1) == wide;
    if (wide != dtypeOf(src0) && (wideOperand || !isa::vectorSupports(op, dtypeOf(src0), dtypeOf(dst)))) {
        const DType wideOut = dtypeOf(dst) == dtypeOf(src0) ? wide : dtypeOf(dst);
        if (isa::vectorSupports(op, wide, wideOut)) {
            src0 = widened(src0);
            problem_.buffers[dst].dtype = wideOut;
        }
    }
    if (src1 && dtypeOf(*src1) != dtypeOf(src0) && wideType(dtypeOf(*src1)) == dtypeOf(src0)) src1 = widened(*src1);
    const DType in = dtypeOf(src0), out = dtypeOf(dst);
    if (!isa::vectorSupports(op, in, out)) {
        std::string message = "the vector unit has no " + std::string(isa::vectorOpName(op)) + " on " +
                              std::string(dtypeName(in));
        if (out != in) message += " to " + std::string(dtypeName(out));
        throw VectorUnsupported(message);
    }
    problem_.steps.push_back({op, dst, src0, src1, imm, imm2, std::nullopt});
    return dst;
}

uint32_t VectorBuilder::fill(DType dtype, uint32_t bits) {
    const uint32_t dst = newBuffer(dtype, BufferExtent::Block);
    return step(isa::VectorOp::Fill, dst, dst, std::nullopt, bits, 0);  // src0 unread
}

uint32_t VectorBuilder::unary(isa::VectorOp op, uint32_t src, std::optional<DType> out) {
    const uint32_t dst = newBuffer(out.value_or(dtypeOf(src)), extentOf(src));
    return step(op, dst, src, std::nullopt, std::nullopt, 0);
}

uint32_t VectorBuilder::immediate(isa::VectorOp op, uint32_t src, uint32_t imm, uint32_t imm2,
                                  std::optional<DType> out) {
    const uint32_t dst = newBuffer(out.value_or(dtypeOf(src)), extentOf(src));
    return step(op, dst, src, std::nullopt, imm, imm2);
}

uint32_t VectorBuilder::scalar(isa::VectorOp op, uint32_t src, float value) {
    const bool integer = dtypeOf(src) != DType::Fp32;  // int32, or a narrow integer computed so
    return immediate(op, src, integer ? static_cast<uint32_t>(static_cast<int32_t>(value)) : fp32Bits(value));
}

uint32_t VectorBuilder::binary(isa::VectorOp op, uint32_t a, uint32_t b) {
    if (op == isa::VectorOp::Div && dtypeOf(a) != DType::Fp32) {
        // Integer division, truncating: exact through fp32 for magnitudes below 2^24.
        const uint32_t quotient = binary(op, unary(isa::VectorOp::Cast, a, DType::Fp32), unary(isa::VectorOp::Cast, b, DType::Fp32));
        return unary(isa::VectorOp::Cast, quotient, DType::Int32);
    }
    const BufferExtent ea = extentOf(a), eb = extentOf(b);
    if (ea == eb || ea == BufferExtent::Block) {
        const uint32_t dst = newBuffer(dtypeOf(a), ea);
        return step(op, dst, a, b, std::nullopt, 0);
    }
    if (eb == BufferExtent::Block) {
        if (commutative(op)) return binary(op, b, a);
        if (op == isa::VectorOp::Sub) {
            return scalar(isa::VectorOp::Mul, binary(isa::VectorOp::Sub, b, a), -1.0f);
        }
        if (op == isa::VectorOp::Div && dtypeOf(b) == DType::Fp32) {
            return binary(isa::VectorOp::Mul, unary(isa::VectorOp::Reciprocal, b), a);
        }
    }
    // A column against a row (or a non-commutative op with a broadcast first operand): the
    // first operand is loaded again as a whole block.
    if (!loadOf_[a]) {
        throw std::logic_error("vector builder: cannot broadcast a computed operand of " + problem_.name);
    }
    const TensorView view = problem_.loads[*loadOf_[a]].view;
    return binary(op, loadBlock(view, dtypeOf(a)), b);
}

uint32_t VectorBuilder::binary(isa::VectorOp op, const Operand& a, const Operand& b) {
    if (a.buffer && b.buffer) return binary(op, *a.buffer, *b.buffer);
    if (a.buffer) return scalar(op, *a.buffer, b.value);
    if (!b.buffer) throw std::logic_error("vector builder: " + problem_.name + " of two constants");
    // A constant first operand.
    if (commutative(op)) return scalar(op, *b.buffer, a.value);
    if (op == isa::VectorOp::Sub) return scalar(isa::VectorOp::Add, scalar(isa::VectorOp::Mul, *b.buffer, -1.0f), a.value);
    if (op == isa::VectorOp::Div) return scalar(isa::VectorOp::Mul, unary(isa::VectorOp::Reciprocal, *b.buffer), a.value);
    throw VectorUnsupported(std::string(isa::vectorOpName(op)) + " with a constant first operand");
}

uint32_t VectorBuilder::reduce(isa::VectorOp op, uint32_t src) {
    const uint32_t dst = newBuffer(dtypeOf(src), BufferExtent::Column);
    return step(op, dst, src, std::nullopt, std::nullopt, 0);
}

void VectorBuilder::store(uint32_t buffer, const TensorView& view) {
    problem_.stores.push_back({buffer, view});
}

VectorProblem VectorBuilder::finish() {
    reuseDeadBuffers(problem_);
    return std::move(problem_);
}

void reuseDeadBuffers(VectorProblem& p) {
    // Events in block order: loads, steps, stores. A buffer is free after its last use.
    const size_t n = p.buffers.size();
    std::vector<size_t> lastUse(n, 0);
    size_t event = 0;
    for (const VectorLoad& load : p.loads) lastUse[load.buffer] = event++;
    for (const VectorStep& s : p.steps) {
        lastUse[s.src0] = event;
        if (s.src1) lastUse[*s.src1] = event;
        lastUse[s.dst] = std::max(lastUse[s.dst], event);
        ++event;
    }
    for (const VectorStore& store : p.stores) lastUse[store.buffer] = event++;

    // Each logical buffer gets a physical one: a dead buffer of the same type and extent when
    // there is one (elementwise steps may write over their own sources), else a new one.
    std::vector<uint32_t> physical(n, UINT32_MAX);
    std::vector<VectorBuffer> buffers;
    std::vector<std::pair<size_t, uint32_t>> live;  // (last use, physical)
    auto assign = [&](uint32_t logical, std::optional<size_t> now) {
        if (physical[logical] != UINT32_MAX) return;
        const VectorBuffer& want = p.buffers[logical];
        auto free = std::find_if(live.begin(), live.end(), [&](const auto& entry) {
            return now && entry.first <= *now && buffers[entry.second].dtype == want.dtype &&
                   buffers[entry.second].extent == want.extent && buffers[entry.second].width == want.width &&
                   std::none_of(live.begin(), live.end(), [&](const auto& other) {
                       return other.second == entry.second && other.first > *now;
                   });
        });
        if (free != live.end()) {
            physical[logical] = free->second;
        } else {
            physical[logical] = static_cast<uint32_t>(buffers.size());
            buffers.push_back(want);
        }
        live.emplace_back(lastUse[logical], physical[logical]);
    };
    // Loads all land before the first step: none may share a buffer.
    for (const VectorLoad& load : p.loads) assign(load.buffer, std::nullopt);
    event = p.loads.size();
    for (const VectorStep& s : p.steps) assign(s.dst, event++);
    for (const VectorStore& store : p.stores) assign(store.buffer, event);

    for (VectorLoad& load : p.loads) load.buffer = physical[load.buffer];
    for (VectorStep& s : p.steps) {
        s.dst = physical[s.dst];
        s.src0 = physical[s.src0];
        if (s.src1) s.src1 = physical[*s.src1];
    }
    for (VectorStore& store : p.stores) store.buffer = physical[store.buffer];
    p.buffers = std::move(buffers);
}

}  // namespace npusim::compiler
