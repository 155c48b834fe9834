#include "cli/calibrate/microbenchmarks.h"

namespace npusim::cli {
namespace {

std::string dims(std::initializer_list<int64_t> sizes) {
    std::string text;
    for (int64_t size : sizes) {
        if (!text.empty()) text += ',';
        text += std::to_string(size);
    }
    return "[" + text + "]";
}

Microbenchmark gemm(const std::string& dtype, int64_t m, int64_t n, int64_t k) {
    const bool integer = dtype == "int8";
    const std::string out = integer ? "int32" : "fp32";
    const std::string op = integer ? "MatMulInteger" : "MatMul";
    return {"gemm_" + dtype + "_" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
            "graph @bench(%a: " + dtype + dims({m, k}) + ") -> (%y: " + out + dims({m, n}) + ") {\n" +
                "  %w = constant " + dtype + dims({k, n}) + "\n" +
                "  %y = " + op + "(%a, %w) {name = \"gemm\"}\n  return %y\n}\n",
            true};
}

Microbenchmark elementwise(const std::string& op, int64_t rows, int64_t cols) {
    const std::string type = "fp32" + dims({rows, cols});
    const bool binary = op != "Relu";
    return {op + "_" + std::to_string(rows) + "x" + std::to_string(cols),
            "graph @bench(%a: " + type + (binary ? ", %b: " + type : "") + ") -> (%y: " + type + ") {\n" +
                "  %y = " + op + "(%a" + (binary ? ", %b" : "") + ") {name = \"" + op + "\"}\n  return %y\n}\n",
            true};
}

Microbenchmark transpose(int64_t rows, int64_t cols) {
    return {"transpose_" + std::to_string(rows) + "x" + std::to_string(cols),
            "graph @bench(%a: fp32" + dims({rows, cols}) + ") -> (%y: fp32" + dims({cols, rows}) + ") {\n" +
                "  %y = Transpose(%a) {name = \"transpose\", perm = [1, 0]}\n  return %y\n}\n",
            true};
}

Microbenchmark conv(int64_t channels, int64_t size, int64_t filters) {
    return {"conv_" + std::to_string(channels) + "x" + std::to_string(size) + "x" + std::to_string(size) + "_" +
                std::to_string(filters),
            "graph @bench(%x: fp32" + dims({1, channels, size, size}) + ") -> (%y: fp32" +
                dims({1, filters, size, size}) + ") {\n" + "  %w = constant fp32" + dims({filters, channels, 3, 3}) +
                "\n  %y = Conv(%x, %w) {name = \"conv\", kernel_shape = [3, 3], pads = [1, 1, 1, 1]}\n  return %y\n}\n",
            false};
}

/// A 3x3 window with padding 1 over `channels` planes: a depthwise convolution or a max pool
/// (the vector unit's window kernels, or its box kernels, whichever the compiler picks).
Microbenchmark window(bool pool, int64_t channels, int64_t size, int64_t stride) {
    const int64_t out = (size - 1) / stride + 1;
    const std::string attributes = "kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = " + dims({stride, stride});
    const std::string op = pool ? "MaxPool(%x) {name = \"pool\", " + attributes + "}"
                                : "Conv(%x, %w) {name = \"depthwise\", group = " + std::to_string(channels) + ", " + attributes + "}";
    return {std::string(pool ? "max_pool_" : "depthwise_") + std::to_string(channels) + "x" + std::to_string(size) + "x" +
                std::to_string(size) + "_s" + std::to_string(stride),
            "graph @bench(%x: fp32" + dims({1, channels, size, size}) + ") -> (%y: fp32" + dims({1, channels, out, out}) +
                ") {\n" + (pool ? "" : "  %w = constant fp32" + dims({channels, 1, 3, 3}) + "\n") + "  %y = " + op +
                "\n  return %y\n}\n",
            false};
}

}  // namespace

std::vector<Microbenchmark> microbenchmarkSuite(const ArchConfig& config) {
    const int64_t r = config.tensor.rows, c = config.tensor.cols, lanes = config.vector.lanes;
    std::vector<Microbenchmark> suite;
    // GEMMs: M from a few rows to many, N and K from one array width to several, in both
    // dtypes, with tails (sizes that are not multiples of the array).
    for (const std::string dtype : {"fp32", "int8"}) {
        for (int64_t m : {int64_t{16}, int64_t{96}, int64_t{256}}) {
            for (const auto& [n, k] : {std::pair{c, 4 * r}, std::pair{4 * c, r}, std::pair{3 * c + c / 2, 2 * r + r / 4},
                                       std::pair{8 * c, 8 * r}}) {
                suite.push_back(gemm(dtype, m, n, k));
            }
        }
    }
    for (const std::string op : {"Add", "Mul", "Relu"}) {
        for (const auto& [rows, cols] : {std::pair{int64_t{64}, 4 * lanes}, std::pair{int64_t{256}, 16 * lanes},
                                         std::pair{int64_t{1000}, lanes + 3}}) {
            suite.push_back(elementwise(op, rows, cols));
        }
    }
    for (const auto& [rows, cols] : {std::pair{int64_t{64}, 8 * lanes}, std::pair{int64_t{256}, 2 * lanes}}) {
        suite.push_back(transpose(rows, cols));
    }
    for (const auto& [channels, size, filters] : {std::tuple{int64_t{8}, int64_t{32}, c}, std::tuple{c, int64_t{16}, 2 * c}}) {
        suite.push_back(conv(channels, size, filters));
    }
    for (const auto& [pool, channels, size, stride] : {std::tuple{false, lanes, int64_t{28}, int64_t{1}},
                                                       std::tuple{false, 2 * lanes, int64_t{14}, int64_t{2}},
                                                       std::tuple{true, lanes, int64_t{56}, int64_t{2}}}) {
        suite.push_back(window(pool, channels, size, stride));
    }
    return suite;
}

}  // namespace npusim::cli
