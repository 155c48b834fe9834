// fuse-vector-kernels: producer and reader kernels merged into one program (the fusions into
// GEMMs are gemm_epilogue_fusion.cpp and gathered_operand_fusion.cpp).
#include "compiler/tiling/fusion.h"

#include <algorithm>
#include <map>
#include <set>

#include "compiler/tile/vector_builder.h"
#include "compiler/tiling/tiling.h"

namespace npusim::compiler {
namespace {

bool sameView(const TensorView& a, const TensorView& b) {
    return a.value == b.value && a.offset == b.offset && a.strides == b.strides;
}

/// The row dims that refine both `a` and `b` (row-major splits of the same count, each a
/// product of consecutive refined dims); nullopt when no such refinement exists.
std::optional<Shape> commonRefinement(const Shape& a, const Shape& b) {
    // The suffix products (from the innermost dim) of both must form one divisibility chain.
    std::set<int64_t> boundaries;
    for (const Shape* shape : {&a, &b}) {
        int64_t product = 1;
        for (size_t d = shape->size(); d-- > 0;) boundaries.insert(product *= (*shape)[d]);
    }
    Shape refined;
    int64_t inner = 1;
    for (int64_t boundary : boundaries) {
        if (boundary % inner != 0) return std::nullopt;
        if (boundary != inner) refined.insert(refined.begin(), boundary / inner);
        inner = boundary;
    }
    return refined;
}

/// The problem with its row dims split into `rows` (a refinement of them); every view follows.
VectorProblem withRowDims(const VectorProblem& p, const Shape& rows) {
    VectorProblem out = p;
    out.dims = rows;
    out.dims.insert(out.dims.end(), p.dims.begin() + p.rowDims(), p.dims.end());
    auto split = [&](std::vector<int64_t> strides) {
        std::vector<int64_t> result;
        size_t next = 0;
        for (int d = 0; d < p.rowDims(); ++d) {
            // Refined dims covering old dim d, outermost first: the innermost keeps its stride.
            // (A single-index dim covers none; a single row is the refinement {1}.)
            const int64_t extent = p.dims[static_cast<size_t>(d)];
            std::vector<int64_t> parts;
            for (int64_t covered = 1; covered < extent; covered *= parts.back()) parts.push_back(rows[next++]);
            std::vector<int64_t> partStrides(parts.size());
            int64_t stride = strides[static_cast<size_t>(d)];
            for (size_t i = parts.size(); i-- > 0;) {
                partStrides[i] = stride;
                stride *= parts[i];
            }
            result.insert(result.end(), partStrides.begin(), partStrides.end());
        }
        if (next == 0) result.assign(rows.size(), 0);  // rows == {1}
        result.insert(result.end(), strides.begin() + p.rowDims(), strides.end());
        return result;
    };
    for (VectorLoad& load : out.loads) {
        load.view.strides = split(load.view.strides);
        if (load.indices) load.indices->list.strides = split(load.indices->list.strides);
    }
    for (VectorStore& store : out.stores) store.view.strides = split(store.view.strides);
    return out;
}

/// An elementwise reader of a window kernel's result re-expressed in the window kernel's index
/// space (and padded block rows): when the producer stores its result densely and the reader
/// reads and writes only whole blocks, each view walking its tensor densely, every view becomes
/// the producer's store view of its own tensor (the same element order). nullopt otherwise.
std::optional<VectorProblem> inWindowSpace(const VectorProblem& producer, VectorProblem reader) {
    const TensorView& result = producer.stores.at(0).view;
    const int64_t elements = elementCount(producer.dims);
    if (!denseWalk(producer, result, elements) || !reader.colPitch.empty()) return std::nullopt;
    const auto dense = [&](const TensorView& view, uint32_t buffer) {
        return reader.buffers[buffer].extent == BufferExtent::Block && denseWalk(reader, view, elements);
    };
    for (const VectorLoad& load : reader.loads) {
        if (load.plane || load.indices || !dense(load.view, load.buffer)) return std::nullopt;
    }
    for (const VectorStore& store : reader.stores) {
        if (!dense(store.view, store.buffer)) return std::nullopt;
    }
    for (const VectorStep& step : reader.steps) {
        if (reader.buffers[step.dst].extent != BufferExtent::Block) return std::nullopt;
    }
    reader.dims = producer.dims;
    reader.colDims = producer.colDims;
    reader.colPitch = producer.colPitch;
    reader.padRows = producer.padRows;
    for (VectorLoad& load : reader.loads) load.view.strides = result.strides;
    for (VectorStore& store : reader.stores) store.view.strides = result.strides;
    return reader;
}

/// The reader's program with the producer's prepended: the producer's result buffer stands in
/// for every load of `value` in the reader; nullopt when the two do not line up. Kernels whose
/// rows are the same but whose row dims are cut differently are brought to a common cut.
std::optional<VectorProblem> merged(VectorProblem producer, VectorProblem reader, ValueId value) {
    if (producer.stores.size() != 1 || hasWindows(reader)) return std::nullopt;
    if (hasWindows(producer)) {
        std::optional<VectorProblem> aligned = inWindowSpace(producer, std::move(reader));
        if (!aligned) return std::nullopt;
        reader = std::move(*aligned);
    }
    if (producer.colDims != reader.colDims || producer.cols() != reader.cols()) return std::nullopt;
    if (producer.dims != reader.dims) {
        const Shape producerRows(producer.dims.begin(), producer.dims.begin() + producer.rowDims());
        const Shape readerRows(reader.dims.begin(), reader.dims.begin() + reader.rowDims());
        if (std::vector<int64_t>(producer.dims.begin() + producer.rowDims(), producer.dims.end()) !=
            std::vector<int64_t>(reader.dims.begin() + reader.rowDims(), reader.dims.end())) {
            return std::nullopt;
        }
        std::optional<Shape> rows = commonRefinement(producerRows, readerRows);
        if (!rows) return std::nullopt;
        if (rows->empty()) rows = Shape{1};
        producer = withRowDims(producer, *rows);
        reader = withRowDims(reader, *rows);
    }
    const VectorStore& store = producer.stores[0];
    if (store.view.value != value || producer.buffers[store.buffer].extent != BufferExtent::Block) return std::nullopt;
    for (const VectorLoad& load : reader.loads) {
        if (load.view.value == value && (!sameView(load.view, store.view) ||
                                         reader.buffers[load.buffer].extent != BufferExtent::Block)) {
            return std::nullopt;
        }
    }
    VectorProblem m = reader;
    m.name = producer.name + "+" + reader.name;
    const auto shift = static_cast<uint32_t>(producer.buffers.size());
    m.buffers = producer.buffers;
    m.buffers.insert(m.buffers.end(), reader.buffers.begin(), reader.buffers.end());
    // Reader buffers move up by `shift`; the first loaded from `value` becomes the producer's
    // result. Any other load of it (a reader that fused two readers of `value`, such as x and
    // sigmoid(x) of a SiLU) becomes a copy of the result: the reader may overwrite the first in
    // place before it reads the others.
    std::vector<uint32_t> rename(reader.buffers.size());
    for (uint32_t b = 0; b < rename.size(); ++b) rename[b] = b + shift;
    m.loads = producer.loads;
    m.steps = producer.steps;
    bool renamed = false;
    for (const VectorLoad& load : reader.loads) {
        if (load.view.value != value) {
            m.loads.push_back(load);
            m.loads.back().buffer = rename[load.buffer];
        } else if (!renamed) {
            rename[load.buffer] = store.buffer;
            renamed = true;
        } else {
            m.steps.push_back({isa::VectorOp::Copy, rename[load.buffer], store.buffer, std::nullopt, std::nullopt, 0,
                               std::nullopt});
        }
    }
    for (VectorStep step : reader.steps) {
        step.dst = rename[step.dst];
        step.src0 = rename[step.src0];
        if (step.src1) step.src1 = rename[*step.src1];
        m.steps.push_back(step);
    }
    for (VectorStore& out : m.stores) out.buffer = rename[out.buffer];
    reuseDeadBuffers(m);
    return m;
}

}  // namespace

int fuseVectorKernels(TileProgram& program, const Graph& graph, const ArchConfig& config, const CostModel& model) {
    // Readers of each value, by op, and the tile op of each graph op.
    std::map<ValueId, std::vector<uint32_t>> readers;
    std::map<uint32_t, size_t> position;
    for (size_t i = 0; i < program.ops.size(); ++i) {
        const uint32_t opId = tileOpId(program.ops[i]);
        position[opId] = i;
        for (ValueId id : graph.nodes.at(opId).inputs) {
            if (id != kNoValue) readers[id].push_back(opId);
        }
    }
    const std::set<ValueId> outputs(graph.outputs.begin(), graph.outputs.end());
    int merges = 0;
    for (TileOp& op : program.ops) {
        auto* reader = std::get_if<VectorTiles>(&op);
        if (!reader || reader->kernels.size() != 1) continue;
        // Each value the reader loads that one vector kernel produced for it alone.
        for (bool changed = true; changed;) {
            changed = false;
            for (const VectorLoad& load : reader->kernels[0].problem.loads) {
                const ValueId value = load.view.value;
                const Value& v = graph.value(value);
                if (v.producer < 0 || outputs.contains(value) || program.views.contains(value)) continue;
                const std::vector<uint32_t>& users = readers[value];
                if (std::any_of(users.begin(), users.end(), [&](uint32_t user) { return user != reader->opId; })) continue;
                auto* producer = std::get_if<VectorTiles>(&program.ops[position.at(static_cast<uint32_t>(v.producer))]);
                if (!producer || producer->kernels.size() != 1 || graph.nodes.at(producer->opId).outputs.size() != 1) continue;
                std::optional<VectorProblem> m = merged(producer->kernels[0].problem, reader->kernels[0].problem, value);
                if (!m) continue;
                const std::optional<VectorSchedule> schedule = chooseVectorSchedule(*m, config, model);
                if (!schedule) continue;
                reader->kernels[0] = {std::move(*m), *schedule};
                producer->kernels.clear();
                // The reader now reads what the producer read.
                for (ValueId id : graph.nodes.at(producer->opId).inputs) {
                    if (id == kNoValue) continue;
                    for (uint32_t& user : readers[id]) user = user == producer->opId ? reader->opId : user;
                }
                producer->fusedInto = reader->opId;
                for (TileOp& other : program.ops) {  // ops fused into the producer move along
                    auto* fused = std::get_if<VectorTiles>(&other);
                    if (fused && fused->fusedInto == producer->opId) fused->fusedInto = reader->opId;
                }
                ++merges;
                changed = true;
                break;
            }
        }
    }
    return merges;
}

}  // namespace npusim::compiler
