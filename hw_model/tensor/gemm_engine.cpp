// oneDNN matmul primitives, cached by shape and type, behind GemmEngine.
#include "hw_model/tensor/gemm_engine.h"

#include <cstring>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <dnnl.hpp>
#include <omp.h>

namespace npusim::hw {

struct GemmEngine::Library {
    using Key = std::tuple<DType, uint32_t, uint32_t, uint32_t, bool>;
    struct Primitive {
        std::optional<dnnl::matmul> matmul;  ///< none: oneDNN has no kernel for it on this CPU
        dnnl::memory a, b, c;                ///< pointed at each tile's data before execution
        std::unordered_map<int, dnnl::memory> arguments;
    };

    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    std::map<Key, Primitive> primitives;
    std::vector<int32_t> partial;  ///< an integer tile's products, before they are added to C
    std::vector<uint32_t> sums;    ///< C while they are

    static dnnl::memory::data_type typeOf(DType dtype) {
        switch (dtype) {
            case DType::Int8: return dnnl::memory::data_type::s8;
            case DType::Fp16: return dnnl::memory::data_type::f16;
            case DType::Bf16: return dnnl::memory::data_type::bf16;
            default: return dnnl::memory::data_type::f32;
        }
    }

    /// int8 products go to an int32 tile that is then added with wrap-around; float products
    /// are summed into C by the primitive itself.
    Primitive& primitive(const GemmTile& t) {
        const bool sumIntoC = t.dtype != DType::Int8 && t.accumulate;
        const Key key{t.dtype, t.m, t.n, t.k, sumIntoC};
        auto it = primitives.find(key);
        if (it != primitives.end()) return it->second;
        const auto m = static_cast<dnnl::memory::dim>(t.m), n = static_cast<dnnl::memory::dim>(t.n),
                   k = static_cast<dnnl::memory::dim>(t.k);
        const auto tag = dnnl::memory::format_tag::ab;
        Primitive p;
        const dnnl::memory::desc a({m, k}, typeOf(t.dtype), tag), b({k, n}, typeOf(t.dtype), tag),
            c({m, n}, t.dtype == DType::Int8 ? dnnl::memory::data_type::s32 : dnnl::memory::data_type::f32, tag);
        dnnl::primitive_attr attributes;
        if (sumIntoC) {
            dnnl::post_ops ops;
            ops.append_sum(1.0f);
            attributes.set_post_ops(ops);
        }
        try {
            p.matmul = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, c), attributes, engine));
            // Memory objects made once per shape (making them per tile costs more than a
            // small tile's arithmetic); each execution points them at the tile's data.
            p.a = dnnl::memory(a, engine, DNNL_MEMORY_NONE);
            p.b = dnnl::memory(b, engine, DNNL_MEMORY_NONE);
            p.c = dnnl::memory(c, engine, DNNL_MEMORY_NONE);
            p.arguments = {{DNNL_ARG_SRC, p.a}, {DNNL_ARG_WEIGHTS, p.b}, {DNNL_ARG_DST, p.c}};
        } catch (const dnnl::error&) {
            // e.g. fp16 without the CPU extension oneDNN needs for it: the reference computes it
        }
        return primitives.emplace(key, std::move(p)).first->second;
    }

    /// False when oneDNN cannot compute the tile.
    bool compute(const GemmTile& t) {
        Primitive& p = primitive(t);
        if (!p.matmul) return false;
        // Integer products that must be added to C go to a scratch tile first.
        const bool addLater = t.dtype == DType::Int8 && t.accumulate;
        if (addLater) partial.resize(static_cast<size_t>(t.m) * t.n);
        void* const out = addLater ? static_cast<void*>(partial.data()) : static_cast<void*>(t.c);
        p.a.set_data_handle(const_cast<std::byte*>(t.a));
        p.b.set_data_handle(const_cast<std::byte*>(t.b));
        p.c.set_data_handle(out);
        p.matmul->execute(stream, p.arguments);
        stream.wait();
        if (!addLater) return true;
        // The int32 accumulator wraps: add as unsigned, in bulk so that it vectorises.
        sums.resize(partial.size());
        std::memcpy(sums.data(), t.c, sums.size() * 4);
        for (size_t i = 0; i < sums.size(); ++i) sums[i] += static_cast<uint32_t>(partial[i]);
        std::memcpy(t.c, sums.data(), sums.size() * 4);
        return true;
    }
};

GemmEngine::GemmEngine() : library_(std::make_unique<Library>()) {
    // The simulation is one thread; library threads would only spin beside it on small tiles.
    omp_set_num_threads(1);
}
GemmEngine::~GemmEngine() = default;

void GemmEngine::compute(const GemmTile& tile) {
    const bool libraryCovers = tile.aZeroPoint == 0 && tile.bZeroPoint == 0 &&
                               (tile.dtype == DType::Int8 || tile.dtype == DType::Fp32 ||
                                tile.dtype == DType::Fp16 || tile.dtype == DType::Bf16);
    if (!libraryCovers || !library_->compute(tile)) referenceGemmTile(tile);
}

}  // namespace npusim::hw
