// Graph passes: each is one file with a one-function entry point, registered here with a name
// and a one-line summary. The pipeline runs them in the order of graphPasses().
#pragma once

#include <span>
#include <string_view>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

struct GraphPass {
    std::string_view name;
    std::string_view summary;
    void (*run)(Graph& graph);
};

/// The graph pipeline, in order.
std::span<const GraphPass> graphPasses();

/// Turns layer and RMS normalisation spelled out op by op back into LayerNormalization and
/// npusim.RMSNormalization.
void recognizeNormalization(Graph& graph);

/// Turns GELU and HardSwish spelled out op by op back into npusim.Gelu and HardSwish.
void recognizeActivations(Graph& graph);

/// Unrolls LSTM, GRU and RNN over their (static) sequences into Gemms and vector gates.
void unrollRecurrences(Graph& graph);

/// Rewrites InstanceNormalization as a LayerNormalization with per-channel scale and bias and
/// MeanVarianceNormalization as reductions and elementwise ops.
void decomposeNormalizations(Graph& graph);

/// Replaces every function op (OpInfo::expand) by its body of other ops.
void expandFunctions(Graph& graph);

/// Rewrites float Einsums that chain plain contractions as Transposes, Reshapes, ReduceSums and
/// MatMuls.
void lowerEinsum(Graph& graph);

/// Rewrites Upsample as Resize's opset-10 form.
void upsampleToResize(Graph& graph);

/// Splits SoftmaxCrossEntropyLoss into LogSoftmax along the classes and
/// NegativeLogLikelihoodLoss of its result.
void splitSoftmaxCrossEntropy(Graph& graph);

/// Computes MaxPool's Indices output from an Im2Col of the windows, an ArgMax over the taps
/// and integer arithmetic, leaving a MaxPool of the values alone.
void computeMaxPoolIndices(Graph& graph);

/// Rewrites ArgMax and ArgMin of fp32 or int32 data as reductions, a comparison and
/// arithmetic the vector unit runs.
void argExtremeToReductions(Graph& graph);

/// Folds an inference BatchNormalization into the Conv whose result only it reads, when the
/// weights, bias and statistics are constants.
void foldBatchNorm(Graph& graph);
void drawRandomNumbers(Graph& graph);
void batchStatistics(Graph& graph);

/// Rewrites each Conv and ConvTranspose as npusim.Im2Col + Gemm per group (bias in the Gemm),
/// the product laid out as the op's output.
void convolutionToGemm(Graph& graph);

/// Moves the Reformats convolution-to-gemm makes below the readers that compute the same in
/// either layout and into the Im2Cols of next convolutions, leaving them only where a reader
/// needs the declared layout.
void assignLayouts(Graph& graph);

/// Spells out the zero points the tensor unit does not take (given at run time, per row or per
/// column) and QLinearMatMul's requantisation in integer products and vector ops.
void decomposeIntegerMatMul(Graph& graph);

/// Pre-transposes constant Gemm operands (transA/transB) and folds beta into a constant C,
/// so that weights reach the tensor unit in the layout it reads.
void foldGemmConstants(Graph& graph);

}  // namespace npusim::compiler
