// The registry of graph passes.
#include "compiler/passes/graph_pass.h"

#include <array>

namespace npusim::compiler {

std::span<const GraphPass> graphPasses() {
    static constexpr std::array<GraphPass, 17> kPasses = {{
        {"recognize-normalization", "turn layer and RMS normalisation spelled out op by op back into one op",
         recognizeNormalization},
        {"recognize-activations", "turn GELU and HardSwish spelled out op by op back into one op",
         recognizeActivations},
        {"decompose-normalizations",
         "rewrite InstanceNormalization as a LayerNormalization and MeanVarianceNormalization as reductions",
         decomposeNormalizations},
        {"expand-functions", "replace each function op (a vendor's QuickGelu...) by its body of other ops", expandFunctions},
        {"lower-einsum", "rewrite float Einsum contractions as Transpose, Reshape, ReduceSum and MatMul", lowerEinsum},
        {"upsample-to-resize", "rewrite Upsample as Resize's opset-10 form (scales as input 1)", upsampleToResize},
        {"draw-random-numbers", "draw Bernoulli's and a training Dropout's random numbers into constants compared on the NPU",
         drawRandomNumbers},
        {"batch-statistics", "spell out a training-mode BatchNormalization as reductions over the batch",
         batchStatistics},
        {"split-softmax-cross-entropy", "split SoftmaxCrossEntropyLoss into LogSoftmax and NegativeLogLikelihoodLoss",
         splitSoftmaxCrossEntropy},
        {"max-pool-indices", "compute MaxPool's Indices from an Im2Col of its windows, an ArgMax and integer arithmetic",
         computeMaxPoolIndices},
        {"arg-extreme-to-reductions", "rewrite ArgMax and ArgMin as reductions, a comparison and arithmetic",
         argExtremeToReductions},
        {"unroll-recurrences", "unroll LSTM, GRU and RNN into one Gemm for the inputs and per step a Gemm and gates",
         unrollRecurrences},
        {"fold-batch-norm", "fold a BatchNormalization into the Conv it follows (constant weights and statistics)",
         foldBatchNorm},
        {"convolution-to-gemm", "rewrite each Conv and ConvTranspose as Im2Col and a Gemm per group, the bias in the Gemm",
         convolutionToGemm},
        {"assign-layouts", "keep convolution results channels first until a reader needs another layout; Reformat there",
         assignLayouts},
        {"integer-matmul", "spell out run-time or per-axis zero points and QLinearMatMul's requantisation",
         decomposeIntegerMatMul},
        {"fold-gemm-constants",
         "pre-transpose constant Gemm operands and fold beta into a constant C", foldGemmConstants},
    }};
    return kPasses;
}

}  // namespace npusim::compiler
