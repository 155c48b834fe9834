// Host GEMM throughput on the tensor unit's tile shapes: the candidates for the functional
// model's arithmetic (reference loops, Eigen, OpenBLAS, oneDNN), and the tensor unit's
// GemmEngine (oneDNN plus its own bookkeeping) against oneDNN's raw throughput on the same
// shapes. Prints GMAC/s per candidate and the ratio; asserts nothing.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include <Eigen/Dense>
#include <cblas.h>
#include <dnnl.hpp>
#include <omp.h>

#include "hw_model/tensor/gemm_engine.h"

namespace {

using npusim::DType;
using Clock = std::chrono::steady_clock;

/// Seconds per call of `body`, timed over enough calls for about 0.3 s.
template <class Body>
double secondsPerCall(Body body) {
    body();  // warm up (primitive creation, caches)
    int calls = 1;
    while (true) {
        const auto start = Clock::now();
        for (int i = 0; i < calls; ++i) body();
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        if (seconds > 0.3) return seconds / calls;
        calls *= 2;
    }
}

void measure(DType dtype, int m, int n, int k) {
    std::mt19937 rng(1);
    const size_t e = npusim::dtypeSize(dtype);
    std::vector<std::byte> a(m * k * e), b(k * n * e), c(m * n * 4);
    for (auto& x : a) x = static_cast<std::byte>(rng() % 7);
    for (auto& x : b) x = static_cast<std::byte>(rng() % 7);
    const double macs = double(m) * n * k;
    npusim::hw::GemmTile tile{dtype, uint32_t(m), uint32_t(n), uint32_t(k), 0, 0, true, a.data(), b.data(), c.data()};

    const double reference = secondsPerCall([&] { npusim::hw::referenceGemmTile(tile); });
    npusim::hw::GemmEngine engine;
    const double ours = secondsPerCall([&] { engine.compute(tile); });

    // oneDNN on its own: the same shape into a scratch result.
    const bool int8 = dtype == DType::Int8;
    dnnl::engine cpu(dnnl::engine::kind::cpu, 0);
    dnnl::stream stream(cpu);
    const auto in = int8 ? dnnl::memory::data_type::s8 : dnnl::memory::data_type::f32;
    const auto out = int8 ? dnnl::memory::data_type::s32 : dnnl::memory::data_type::f32;
    const dnnl::memory::desc ad({m, k}, in, dnnl::memory::format_tag::ab), bd({k, n}, in, dnnl::memory::format_tag::ab),
        cd({m, n}, out, dnnl::memory::format_tag::ab);
    dnnl::matmul matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(ad, bd, cd), cpu));
    std::vector<std::byte> scratch(m * n * 4);
    dnnl::memory am(ad, cpu, a.data()), bm(bd, cpu, b.data()), cm(cd, cpu, scratch.data());
    const double raw = secondsPerCall([&] {
        matmul.execute(stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
        stream.wait();
    });

    // Eigen and, for fp32, OpenBLAS.
    double eigen = 0, openblas = 0;
    if (int8) {
        using MatI8 = Eigen::Matrix<int8_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        using MatI32 = Eigen::Matrix<int32_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        Eigen::Map<const MatI8> A(reinterpret_cast<const int8_t*>(a.data()), m, k), B(reinterpret_cast<const int8_t*>(b.data()), k, n);
        Eigen::Map<MatI32> C(reinterpret_cast<int32_t*>(scratch.data()), m, n);
        eigen = secondsPerCall([&] { C.noalias() += A.cast<int32_t>() * B.cast<int32_t>(); });
    } else {
        using MatF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        const auto* fa = reinterpret_cast<const float*>(a.data());
        const auto* fb = reinterpret_cast<const float*>(b.data());
        auto* fc = reinterpret_cast<float*>(scratch.data());
        Eigen::Map<const MatF> A(fa, m, k), B(fb, k, n);
        Eigen::Map<MatF> C(fc, m, n);
        eigen = secondsPerCall([&] { C.noalias() += A * B; });
        openblas = secondsPerCall([&] { cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, fa, k, fb, n, 1.0f, fc, n); });
    }
    auto gmacs = [&](double seconds) { return seconds > 0 ? macs / seconds / 1e9 : 0.0; };
    std::printf("%-5s %4dx%-4dx%-4d  reference %7.2f  eigen %7.2f  openblas %7.2f  onednn %7.2f  | GemmEngine %7.2f GMAC/s = %3.0f%% of oneDNN's own\n",
                npusim::dtypeName(dtype).data(), m, n, k, gmacs(reference), gmacs(eigen), gmacs(openblas), gmacs(raw),
                gmacs(ours), 100.0 * raw / ours);
}

}  // namespace

// The engine is hw_model code, linked with SystemC, whose library owns main().
extern "C" int sc_main(int, char*[]) {
    omp_set_num_threads(1);  // as in the simulator: one host thread
    std::printf("host GEMM throughput on tensor-unit tile shapes (m x n x k), one thread, GMAC/s\n");
    for (DType dtype : {DType::Int8, DType::Fp32}) {
        for (int tile : {16, 32, 128}) measure(dtype, 256, tile, tile);  // edge, mobile, server arrays
    }
    return 0;
}
