// LSTM, GRU and RNN reference semantics: a bidirectional RNN against hand-computed states, and
// the located errors of malformed recurrences. (The ONNX backend cases cover LSTM and GRU.)
#include <gtest/gtest.h>

#include <cmath>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::runOp;
using testing::singleOpGraph;

TEST(InterpreterRecurrent, BidirectionalRnnRunsTheReverseDirectionFromTheLastStep) {
    // x = (1, 2), W = 0.5, R = 1: forward h1 = tanh(0.5), h2 = tanh(1 + h1); reverse starts at
    // t = 1 with tanh(1), then t = 0 with tanh(0.5 + tanh(1)). Y is [steps, directions, 1, 1].
    const Tensor y = runOp(OpKind::RNN, {fp32({2, 1, 1}, {1, 2}), fp32({2, 1, 1}, {0.5f, 0.5f}), fp32({2, 1, 1}, {1, 1})},
                           {{"hidden_size", int64_t{1}}, {"direction", std::string("bidirectional")}});
    const auto t = [](double v) { return static_cast<float>(std::tanh(v)); };
    testing::expectTensorNear(y, fp32({2, 2, 1, 1}, {t(0.5), t(0.5 + std::tanh(1.0)), t(1 + std::tanh(0.5)), t(1.0)}));
}

TEST(InterpreterRecurrent, MalformedRecurrencesAreLocatedErrors) {
    const Tensor x = fp32({2, 1, 1}, {1, 2}), r = fp32({1, 4, 1}, {1, 1, 1, 1});
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::LSTM, {x, fp32({4, 1}, {1, 1, 1, 1}), r}); }),
              "op 'op' (LSTM): W is [4,1]; it must have rank 3");
    EXPECT_EQ(inputErrorOf([&] {
                  singleOpGraph(OpKind::LSTM, {x, fp32({1, 4, 1}, {1, 1, 1, 1}), r}, {{"clip", 1.0}});
              }),
              "op 'op' (LSTM): attribute 'clip' is not supported: npusim runs the default activations, unclipped");
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::GRU, {x, fp32({1, 4, 1}, {1, 1, 1, 1}), r}); }),
              "op 'op' (GRU): W is [1,4,1]; expected [1,3,1]");
}

}  // namespace
}  // namespace npusim::compiler
