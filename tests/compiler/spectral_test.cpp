// DFT, STFT, the window functions, MelWeightMatrix and TfIdfVectorizer against hand-worked (and
// numpy-computed) results, and their located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::expectTensorNear;
using testing::fp32;
using testing::inputErrorOf;
using testing::int32;
using testing::int64;
using testing::runOp;
using testing::runWithConstants;
using testing::singleOpGraph;

TEST(InterpreterSpectral, DftOfARealAndAComplexSignal) {
    // fft([1, 2, 3, 4]) = [10, -2 + 2i, -2, -2 - 2i]; onesided keeps 3 bins.
    const Tensor x = fp32({1, 4, 1}, {1, 2, 3, 4});
    expectTensorNear(runOp(OpKind::DFT, {x}), fp32({1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2}), 1e-6);
    expectTensorNear(runOp(OpKind::DFT, {x}, {{"onesided", int64_t{1}}}), fp32({1, 3, 2}, {10, 0, -2, 2, -2, 0}), 1e-6);
    // The inverse of that spectrum is the signal; dft_length 2 cuts it, 6 pads it with zeros.
    expectTensorNear(runOp(OpKind::DFT, {fp32({1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2})}, {{"inverse", int64_t{1}}}),
                     fp32({1, 4, 2}, {1, 0, 2, 0, 3, 0, 4, 0}), 1e-6);
    expectTensorNear(runWithConstants(OpKind::DFT, {x, int64({}, {2})}, {1}).at(0), fp32({1, 2, 2}, {3, 0, -1, 0}), 1e-6);
    expectTensorNear(runWithConstants(OpKind::DFT, {x, int64({}, {6})}, {1}).at(0),
                     fp32({1, 6, 2}, {10, 0, -3.5f, -4.3301270f, 2.5f, 0.8660254f, -2, 0, 2.5f, -0.8660254f, -3.5f, 4.3301270f}), 1e-6);
    // Along axis 2 of [1, 2, 2, 1]: each row's 2-point transform.
    expectTensorNear(runOp(OpKind::DFT, {fp32({1, 2, 2, 1}, {1, 2, 3, 5})}, {{"axis", int64_t{2}}}),
                     fp32({1, 2, 2, 2}, {3, 0, -1, 0, 8, 0, -2, 0}), 1e-6);
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::DFT, {x}, {{"axis", int64_t{2}}}); }),
              "op 'op' (DFT): axis 2 is the components' dim, not a signal's");
}

TEST(InterpreterSpectral, StftTransformsWindowedFrames) {
    // Frames [1, 2] and [3, 4] (step 2): [3, -1] and [7, -1]; windowed by [1, 0.5]: [2, 0] and [5, 1].
    const Tensor signal = fp32({1, 4, 1}, {1, 2, 3, 4});
    expectTensorNear(runWithConstants(OpKind::STFT, {signal, int64({}, {2}), std::nullopt, int64({}, {2})}, {1, 3}).at(0),
                     fp32({1, 2, 2, 2}, {3, 0, -1, 0, 7, 0, -1, 0}), 1e-6);
    expectTensorNear(runWithConstants(OpKind::STFT, {signal, int64({}, {2}), fp32({2}, {1, 0.5f})}, {1}).at(0),
                     fp32({1, 2, 2, 2}, {2, 0, 0, 0, 5, 0, 1, 0}), 1e-6);
    EXPECT_EQ(inputErrorOf([&] { runWithConstants(OpKind::STFT, {signal, int64({}, {2})}, {1}); }),
              "op 'op' (STFT): needs a window or a frame_length");
}

TEST(InterpreterSpectral, WindowFunctionsAndMelWeights) {
    expectTensorNear(runWithConstants(OpKind::HannWindow, {int32({}, {4})}, {0}).at(0), fp32({4}, {0, 0.5f, 1, 0.5f}), 1e-6);
    expectTensorNear(runWithConstants(OpKind::HannWindow, {int32({}, {3})}, {0}, {{"periodic", int64_t{0}}}).at(0),
                     fp32({3}, {0, 1, 0}), 1e-6);
    expectTensorNear(runWithConstants(OpKind::HammingWindow, {int64({}, {2})}, {0}).at(0), fp32({2}, {4.0f / 46, 1}), 1e-6);
    expectTensorNear(runWithConstants(OpKind::BlackmanWindow, {int32({}, {4})}, {0}).at(0), fp32({4}, {0, 0.34f, 1, 0.34f}), 1e-6);
    // numpy, as ONNX's test computes it: 3 filters over a 16-point spectrum at 8 kHz, 100 Hz to 4 kHz.
    expectTensorNear(runWithConstants(OpKind::MelWeightMatrix,
                                      {int32({}, {3}), int32({}, {16}), int32({}, {8000}), fp32({}, {100}), fp32({}, {4000})},
                                      {0, 1, 2, 3, 4})
                         .at(0),
                     fp32({9, 3}, {1, 0, 0, 0, 1, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0.5f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::HannWindow, {int32({}, {4})}); }),
              "op 'op' (HannWindow): size ('in0') must be a constant (an initializer or a Constant node), since it decides "
              "the output shape");
}

TEST(InterpreterSpectral, TfIdfVectorizerCountsPoolNgrams) {
    // Pool: unigram [1] (column 0), bigrams [1, 2] (column 1) and [2, 3] (column 2).
    const std::map<std::string, Attribute> tf = {
        {"mode", std::string("TF")}, {"min_gram_length", int64_t{1}}, {"max_gram_length", int64_t{2}},
        {"max_skip_count", int64_t{1}}, {"ngram_counts", std::vector<int64_t>{0, 1}},
        {"ngram_indexes", std::vector<int64_t>{0, 1, 2}}, {"pool_int64s", std::vector<int64_t>{1, 1, 2, 2, 3}}};
    // [1, 2, 3, 1, 2]: 1 twice, [1, 2] twice; [2, 3] once next to each other; with one skip,
    // row 2's [2, 1, 3] holds [2, 3] too. Unigrams count once whatever the skip.
    const Tensor x = int32({2, 5}, {1, 2, 3, 1, 2, 2, 1, 3, 0, 0});
    expectTensorNear(runOp(OpKind::TfIdfVectorizer, {x}, tf), fp32({2, 3}, {2, 2, 1, 1, 0, 1}));
    std::map<std::string, Attribute> weighted = tf;
    weighted["weights"] = std::vector<double>{0.5, 2, 4};
    weighted["mode"] = std::string("TFIDF");
    expectTensorNear(runOp(OpKind::TfIdfVectorizer, {x}, weighted), fp32({2, 3}, {1, 4, 4, 0.5f, 0, 4}));
    weighted["mode"] = std::string("IDF");
    expectTensorNear(runOp(OpKind::TfIdfVectorizer, {x}, weighted), fp32({2, 3}, {0.5f, 2, 4, 0.5f, 0, 4}));
    std::map<std::string, Attribute> bad = tf;
    bad["ngram_counts"] = std::vector<int64_t>{0, 2};
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::TfIdfVectorizer, {x}, bad); }),
              "op 'op' (TfIdfVectorizer): ngram_counts 2 to 5 do not split the pool into 2-grams");
}

}  // namespace
}  // namespace npusim::compiler
