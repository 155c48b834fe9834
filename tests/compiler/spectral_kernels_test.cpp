// The DFT, STFT and TfIdfVectorizer CPU kernels against the reference: real and complex signals,
// inner axes, onesided and inverse transforms, cut and padded lengths, windows; every weighting
// of TfIdfVectorizer over int32 and int64 rows with skips.
#include <gtest/gtest.h>

#include "graph_test_support.h"
#include "host_kernel_test_support.h"

namespace npusim::compiler {
namespace {

using namespace testing;

TEST(SpectralKernels, DftMatchesTheReference) {
    const Tensor real = randomFp32({2, 6, 3, 1}, 101), complex = randomFp32({2, 6, 3, 2}, 102);
    for (const Tensor* x : {&real, &complex}) {
        for (int64_t axis : {1, 2, -2}) {
            expectKernelMatchesReference(singleOpGraph(OpKind::DFT, {*x}, {{"axis", axis}}), {{"in0", *x}});
        }
        expectKernelMatchesReference(singleOpGraph(OpKind::DFT, {*x}, {{"onesided", int64_t{1}}}), {{"in0", *x}});
        expectKernelMatchesReference(singleOpGraph(OpKind::DFT, {*x}, {{"inverse", int64_t{1}}}), {{"in0", *x}});
        for (int64_t length : {4, 9}) {
            expectKernelMatchesReference(constantOperandGraph(OpKind::DFT, {*x, int64({}, {length})}, {1}), {{"in0", *x}});
        }
    }
}

TEST(SpectralKernels, StftMatchesTheReference) {
    const Tensor signal = randomFp32({2, 40, 1}, 103), complex = randomFp32({1, 33, 2}, 104);
    const Tensor window = randomFp32({8}, 105, 0.0f, 1.0f);
    expectKernelMatchesReference(constantOperandGraph(OpKind::STFT, {signal, int64({}, {5}), std::nullopt, int64({}, {8})}, {1, 3}),
                                 {{"in0", signal}});
    expectKernelMatchesReference(constantOperandGraph(OpKind::STFT, {signal, int64({}, {3}), window}, {1}, {{"onesided", int64_t{0}}}),
                                 {{"in0", signal}, {"in2", window}});
    expectKernelMatchesReference(constantOperandGraph(OpKind::STFT, {complex, int32({}, {4}), window}, {1}),
                                 {{"in0", complex}, {"in2", window}});
}

TEST(SpectralKernels, TfIdfVectorizerMatchesTheReference) {
    std::map<std::string, Attribute> attributes = {
        {"min_gram_length", int64_t{1}}, {"max_gram_length", int64_t{3}}, {"max_skip_count", int64_t{2}},
        {"ngram_counts", std::vector<int64_t>{0, 3, 7}}, {"ngram_indexes", std::vector<int64_t>{4, 0, 1, 2, 3, 2, 5}},
        {"pool_int64s", std::vector<int64_t>{1, 2, 5000000000, 1, 2, 2, 3, 1, 2, 3}},
        {"weights", std::vector<double>{0.5, 1.5, 2, 3, 0.25, 4}}};
    const Tensor narrow = smallIntegers(DType::Int32, {3, 12}, 106, 8), wide = smallIntegers(DType::Int64, {20}, 107, 8);
    for (const char* mode : {"TF", "IDF", "TFIDF"}) {
        SCOPED_TRACE(mode);
        attributes["mode"] = std::string(mode);
        expectKernelMatchesReference(singleOpGraph(OpKind::TfIdfVectorizer, {narrow}, attributes), {{"in0", narrow}});
        expectKernelMatchesReference(singleOpGraph(OpKind::TfIdfVectorizer, {wide}, attributes), {{"in0", wide}});
    }
}

}  // namespace
}  // namespace npusim::compiler
