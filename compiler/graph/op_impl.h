// Internal to the op table: each op's type function and reference semantics, and the operand
// checks they share. Only op_table.cpp, constant_eval.cpp and the op implementation files
// include this.
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/graph/strided_copy.h"

namespace npusim::compiler::ops {

/// Checks the node's input and output counts against its table entry, that every value id is in
/// range and that every required input is present.
void checkArity(const Graph& graph, const Node& node);
/// The value of input `index`; nullptr when that optional input is absent.
const Value* optionalInput(const Graph& graph, const Node& node, size_t index);
/// Throws "<operand> is <dtype>; <Op> supports <allowed>" unless `dtype` is allowed.
void requireDType(const Node& node, std::string_view operand, DType dtype,
                  std::initializer_list<DType> allowed);
/// Throws "<aName> is <a> but <bName> is <b>; both must have the same dtype" unless a == b.
void requireSameDType(const Node& node, std::string_view aName, DType a, std::string_view bName, DType b);
/// Records the dtype and shape of the node's single output.
void setOutput(Graph& graph, const Node& node, DType dtype, Shape shape);

void inferMatMul(Graph& graph, const Node& node);
std::vector<Tensor> interpretMatMul(const Node& node, std::span<const Tensor* const> inputs);

void inferMatMulInteger(Graph& graph, const Node& node);
std::vector<Tensor> interpretMatMulInteger(const Node& node, std::span<const Tensor* const> inputs);

void inferGemm(Graph& graph, const Node& node);
std::vector<Tensor> interpretGemm(const Node& node, std::span<const Tensor* const> inputs);

void inferRelu(Graph& graph, const Node& node);
std::vector<Tensor> interpretRelu(const Node& node, std::span<const Tensor* const> inputs);

// Elementwise, activations, reductions and normalisation.
/// Shared type functions: Add/Sub/Mul/Div (one numeric dtype, broadcast), Max/Min/Sum/Mean
/// (variadic, broadcast), the unary ops (X's dtype and shape) and the Reduce* family.
void inferArithmetic(Graph& graph, const Node& node);
void inferVariadic(Graph& graph, const Node& node);
void inferUnary(Graph& graph, const Node& node);
void inferReduce(Graph& graph, const Node& node);

std::vector<Tensor> interpretAdd(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretSub(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretMul(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretDiv(const Node& node, std::span<const Tensor* const> inputs);
void inferBitShift(Graph& graph, const Node& node);
std::vector<Tensor> interpretBitShift(const Node& node, std::span<const Tensor* const> inputs);
void inferPow(Graph& graph, const Node& node);
std::vector<Tensor> interpretPow(const Node& node, std::span<const Tensor* const> inputs);
void inferMod(Graph& graph, const Node& node);
std::vector<Tensor> interpretMod(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretMax(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretMin(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretSum(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretMean(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretSqrt(const Node& node, std::span<const Tensor* const> inputs);
/// math_ops.cpp: Sin, Cos, ..., Floor, Ceil, Round, Sign, Softsign, Shrink, Celu, IsNaN, IsInf.
void inferMath(Graph& graph, const Node& node);
std::vector<Tensor> interpretMath(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretExp(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretLog(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretNeg(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretAbs(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretReciprocal(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretSigmoid(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretTanh(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretErf(const Node& node, std::span<const Tensor* const> inputs);
void inferIdentity(Graph& graph, const Node& node);
std::vector<Tensor> interpretIdentity(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretElu(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretSelu(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretSoftplus(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretThresholdedRelu(const Node& node,
                                             std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretLeakyRelu(const Node& node, std::span<const Tensor* const> inputs);
void inferRecurrent(Graph& graph, const Node& node);
std::vector<Tensor> interpretRecurrent(const Node& node, std::span<const Tensor* const> inputs);
void inferPRelu(Graph& graph, const Node& node);
std::vector<Tensor> interpretPRelu(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretHardSigmoid(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretHardSwish(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretGelu(const Node& node, std::span<const Tensor* const> inputs);
void inferClip(Graph& graph, const Node& node);
std::vector<Tensor> interpretClip(const Node& node, std::span<const Tensor* const> inputs);
void inferDropout(Graph& graph, const Node& node);
std::vector<Tensor> interpretDropout(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretReduce(const Node& node, std::span<const Tensor* const> inputs);
void inferSoftmax(Graph& graph, const Node& node);
std::vector<Tensor> interpretSoftmax(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretLogSoftmax(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretHardmax(const Node& node, std::span<const Tensor* const> inputs);
void inferLayerNormalization(Graph& graph, const Node& node);
std::vector<Tensor> interpretLayerNormalization(const Node& node,
                                                std::span<const Tensor* const> inputs);
/// loss_ops.cpp: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
void inferLoss(Graph& graph, const Node& node);
std::vector<Tensor> interpretNegativeLogLikelihoodLoss(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretSoftmaxCrossEntropyLoss(const Node& node, std::span<const Tensor* const> inputs);
/// channel_normalization_ops.cpp: InstanceNormalization, MeanVarianceNormalization and LRN.
void inferChannelNormalization(Graph& graph, const Node& node);
std::vector<Tensor> interpretInstanceNormalization(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretMeanVarianceNormalization(const Node& node, std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretLrn(const Node& node, std::span<const Tensor* const> inputs);
void inferBatchNormalization(Graph& graph, const Node& node);
std::vector<Tensor> interpretBatchNormalization(const Node& node,
                                                std::span<const Tensor* const> inputs);

// Convolution, pooling, resize and quantisation.
void inferConv(Graph& graph, const Node& node);
std::vector<Tensor> interpretConv(const Node& node, std::span<const Tensor* const> inputs);
void inferConvTranspose(Graph& graph, const Node& node);
std::vector<Tensor> interpretConvTranspose(const Node& node, std::span<const Tensor* const> inputs);
void inferConvInteger(Graph& graph, const Node& node);
std::vector<Tensor> interpretConvInteger(const Node& node, std::span<const Tensor* const> inputs);
void inferQLinearConv(Graph& graph, const Node& node);
std::vector<Tensor> interpretQLinearConv(const Node& node, std::span<const Tensor* const> inputs);
void inferMaxPool(Graph& graph, const Node& node);
std::vector<Tensor> interpretMaxPool(const Node& node, std::span<const Tensor* const> inputs);
void inferAveragePool(Graph& graph, const Node& node);
std::vector<Tensor> interpretAveragePool(const Node& node, std::span<const Tensor* const> inputs);
/// GlobalAveragePool and GlobalMaxPool: X's dtype, spatial dims reduced to 1.
void inferGlobalPool(Graph& graph, const Node& node);
std::vector<Tensor> interpretGlobalAveragePool(const Node& node,
                                               std::span<const Tensor* const> inputs);
std::vector<Tensor> interpretGlobalMaxPool(const Node& node,
                                           std::span<const Tensor* const> inputs);
void inferResize(Graph& graph, const Node& node);
std::vector<Tensor> interpretResize(const Node& node, std::span<const Tensor* const> inputs);
void inferGridSample(Graph& graph, const Node& node);
std::vector<Tensor> interpretGridSample(const Node& node, std::span<const Tensor* const> inputs);
void inferRoiAlign(Graph& graph, const Node& node);
std::vector<Tensor> interpretRoiAlign(const Node& node, std::span<const Tensor* const> inputs);
void inferMaxUnpool(Graph& graph, const Node& node);
std::vector<Tensor> interpretMaxUnpool(const Node& node, std::span<const Tensor* const> inputs);
/// spectral_ops.cpp: DFT and STFT; window_ops.cpp: the window functions and MelWeightMatrix.
void inferDft(Graph& graph, const Node& node);
std::vector<Tensor> interpretDft(const Node& node, std::span<const Tensor* const> inputs);
void inferStft(Graph& graph, const Node& node);
std::vector<Tensor> interpretStft(const Node& node, std::span<const Tensor* const> inputs);
void inferWindow(Graph& graph, const Node& node);
std::vector<Tensor> interpretWindow(const Node& node, std::span<const Tensor* const> inputs);
void inferMelWeightMatrix(Graph& graph, const Node& node);
std::vector<Tensor> interpretMelWeightMatrix(const Node& node, std::span<const Tensor* const> inputs);
void inferTfIdfVectorizer(Graph& graph, const Node& node);
std::vector<Tensor> interpretTfIdfVectorizer(const Node& node, std::span<const Tensor* const> inputs);
void inferEinsum(Graph& graph, const Node& node);
std::vector<Tensor> interpretEinsum(const Node& node, std::span<const Tensor* const> inputs);
/// upsample_op.cpp: Resize's opset-10 form.
void inferUpsample(Graph& graph, const Node& node);
std::vector<Tensor> interpretUpsample(const Node& node, std::span<const Tensor* const> inputs);
void inferQuantizeLinear(Graph& graph, const Node& node);
std::vector<Tensor> interpretQuantizeLinear(const Node& node,
                                            std::span<const Tensor* const> inputs);
void inferDequantizeLinear(Graph& graph, const Node& node);
std::vector<Tensor> interpretDequantizeLinear(const Node& node,
                                              std::span<const Tensor* const> inputs);
void inferQLinearMatMul(Graph& graph, const Node& node);
std::vector<Tensor> interpretQLinearMatMul(const Node& node,
                                           std::span<const Tensor* const> inputs);
void inferDynamicQuantizeLinear(Graph& graph, const Node& node);
std::vector<Tensor> interpretDynamicQuantizeLinear(const Node& node,
                                                   std::span<const Tensor* const> inputs);

// Shape and data movement.
/// Shape's and Size's outputs, from the input shape alone (the frontend folds both).
Tensor shapeTensor(const Node& node, const Shape& input);
Tensor sizeTensor(const Shape& input);
/// EyeLike's output of `dtype` for an input of `shape` (matrix_ops.cpp).
Tensor eyeLikeTensor(const Node& node, DType dtype, const Shape& shape);

void inferReshape(Graph& graph, const Node& node);
std::vector<Tensor> interpretReshape(const Node& node, std::span<const Tensor* const> inputs);
void inferFlatten(Graph& graph, const Node& node);
std::vector<Tensor> interpretFlatten(const Node& node, std::span<const Tensor* const> inputs);
void inferSqueeze(Graph& graph, const Node& node);
std::vector<Tensor> interpretSqueeze(const Node& node, std::span<const Tensor* const> inputs);
void inferUnsqueeze(Graph& graph, const Node& node);
std::vector<Tensor> interpretUnsqueeze(const Node& node, std::span<const Tensor* const> inputs);
void inferTranspose(Graph& graph, const Node& node);
std::vector<Tensor> interpretTranspose(const Node& node, std::span<const Tensor* const> inputs);
/// DepthToSpace and SpaceToDepth.
void inferBlockPermute(Graph& graph, const Node& node);
std::vector<Tensor> interpretBlockPermute(const Node& node, std::span<const Tensor* const> inputs);
void inferConcat(Graph& graph, const Node& node);
std::vector<Tensor> interpretConcat(const Node& node, std::span<const Tensor* const> inputs);
void inferSplit(Graph& graph, const Node& node);
std::vector<Tensor> interpretSplit(const Node& node, std::span<const Tensor* const> inputs);
void inferSlice(Graph& graph, const Node& node);
std::vector<Tensor> interpretSlice(const Node& node, std::span<const Tensor* const> inputs);
void inferGather(Graph& graph, const Node& node);
std::vector<Tensor> interpretGather(const Node& node, std::span<const Tensor* const> inputs);
void inferGatherElements(Graph& graph, const Node& node);
std::vector<Tensor> interpretGatherElements(const Node& node,
                                            std::span<const Tensor* const> inputs);
/// GatherElements' and ScatterElements' axis, and the check of their indices: the rank of data,
/// no dim larger than data's outside the axis.
int64_t gatherAxis(const Node& node, const Shape& data);
void checkElementIndices(const Node& node, const Shape& data, const Shape& indices);
void inferGatherNd(Graph& graph, const Node& node);
std::vector<Tensor> interpretGatherNd(const Node& node, std::span<const Tensor* const> inputs);
/// scatter_ops.cpp: ScatterElements (and Scatter, its old name) and ScatterND.
void inferScatterElements(Graph& graph, const Node& node);
std::vector<Tensor> interpretScatterElements(const Node& node, std::span<const Tensor* const> inputs);
void inferScatterNd(Graph& graph, const Node& node);
std::vector<Tensor> interpretScatterNd(const Node& node, std::span<const Tensor* const> inputs);
void inferOneHot(Graph& graph, const Node& node);
std::vector<Tensor> interpretOneHot(const Node& node, std::span<const Tensor* const> inputs);
void inferExpand(Graph& graph, const Node& node);
std::vector<Tensor> interpretExpand(const Node& node, std::span<const Tensor* const> inputs);
void inferTile(Graph& graph, const Node& node);
std::vector<Tensor> interpretTile(const Node& node, std::span<const Tensor* const> inputs);
// Data movement as strided copies (compiler/graph/strided_copy.h), from the same layout logic
// as the reference semantics above.
std::vector<StridedCopy> transposeCopies(const Graph& graph, const Node& node);
std::vector<StridedCopy> blockPermuteCopies(const Graph& graph, const Node& node);
std::vector<StridedCopy> concatCopies(const Graph& graph, const Node& node);
std::vector<StridedCopy> splitCopies(const Graph& graph, const Node& node);
std::vector<StridedCopy> sliceCopies(const Graph& graph, const Node& node);
/// nullopt when the indices are not constant.
std::optional<std::vector<StridedCopy>> gatherCopies(const Graph& graph, const Node& node);
std::vector<StridedCopy> expandCopies(const Graph& graph, const Node& node);
std::vector<StridedCopy> tileCopies(const Graph& graph, const Node& node);
std::vector<StridedCopy> padCopies(const Graph& graph, const Node& node);
/// nullopt when k is not constant.
std::optional<std::vector<StridedCopy>> triluCopies(const Graph& graph, const Node& node);

void inferPad(Graph& graph, const Node& node);
void inferRmsNormalization(Graph& graph, const Node& node);
std::vector<Tensor> interpretRmsNormalization(const Node& node, std::span<const Tensor* const> inputs);
void inferIm2Col(Graph& graph, const Node& node);
std::vector<Tensor> interpretIm2Col(const Node& node, std::span<const Tensor* const> inputs);
std::vector<StridedCopy> im2colCopies(const Graph& graph, const Node& node);
std::vector<Tensor> interpretPad(const Node& node, std::span<const Tensor* const> inputs);
void inferShape(Graph& graph, const Node& node);
std::vector<Tensor> interpretShape(const Node& node, std::span<const Tensor* const> inputs);
void inferSize(Graph& graph, const Node& node);
std::vector<Tensor> interpretSize(const Node& node, std::span<const Tensor* const> inputs);
void inferConstantOfShape(Graph& graph, const Node& node);
std::vector<Tensor> interpretConstantOfShape(const Node& node,
                                             std::span<const Tensor* const> inputs);
void inferRange(Graph& graph, const Node& node);
std::vector<Tensor> interpretRange(const Node& node, std::span<const Tensor* const> inputs);
void inferCast(Graph& graph, const Node& node);
std::vector<Tensor> interpretCast(const Node& node, std::span<const Tensor* const> inputs);
void inferCastLike(Graph& graph, const Node& node);
std::vector<Tensor> interpretCastLike(const Node& node, std::span<const Tensor* const> inputs);
/// Equal, Less, Greater, LessOrEqual, GreaterOrEqual, And, Or and Xor: bool results.
void inferBinaryLogic(Graph& graph, const Node& node);
std::vector<Tensor> interpretBinaryLogic(const Node& node, std::span<const Tensor* const> inputs);
void inferNot(Graph& graph, const Node& node);
std::vector<Tensor> interpretNot(const Node& node, std::span<const Tensor* const> inputs);
void inferWhere(Graph& graph, const Node& node);
std::vector<Tensor> interpretWhere(const Node& node, std::span<const Tensor* const> inputs);
/// ArgMax and ArgMin.
void inferArgExtreme(Graph& graph, const Node& node);
std::vector<Tensor> interpretArgExtreme(const Node& node, std::span<const Tensor* const> inputs);
void inferTrilu(Graph& graph, const Node& node);
std::vector<Tensor> interpretTrilu(const Node& node, std::span<const Tensor* const> inputs);
void inferCumSum(Graph& graph, const Node& node);
std::vector<Tensor> interpretCumSum(const Node& node, std::span<const Tensor* const> inputs);
void inferReverseSequence(Graph& graph, const Node& node);
std::vector<Tensor> interpretReverseSequence(const Node& node, std::span<const Tensor* const> inputs);
/// matrix_ops.cpp: EyeLike and Det.
void inferEyeLike(Graph& graph, const Node& node);
std::vector<Tensor> interpretEyeLike(const Node& node, std::span<const Tensor* const> inputs);
void inferDet(Graph& graph, const Node& node);
std::vector<Tensor> interpretDet(const Node& node, std::span<const Tensor* const> inputs);
void inferTopK(Graph& graph, const Node& node);
std::vector<Tensor> interpretTopK(const Node& node, std::span<const Tensor* const> inputs);

// random_ops.cpp: RandomUniform, RandomNormal and their -Like forms; Bernoulli.
void inferRandom(Graph& graph, const Node& node);
std::vector<Tensor> interpretRandom(const Node& node, std::span<const Tensor* const> inputs);
void inferBernoulli(Graph& graph, const Node& node);
std::vector<Tensor> interpretBernoulli(const Node& node, std::span<const Tensor* const> inputs);

// data_dependent_ops.cpp: outputs at their bound, then the size output.
void inferNonZero(Graph& graph, const Node& node);
std::vector<Tensor> interpretNonZero(const Node& node, std::span<const Tensor* const> inputs);
void inferCompress(Graph& graph, const Node& node);
std::vector<Tensor> interpretCompress(const Node& node, std::span<const Tensor* const> inputs);
void inferUnique(Graph& graph, const Node& node);
std::vector<Tensor> interpretUnique(const Node& node, std::span<const Tensor* const> inputs);
void inferNonMaxSuppression(Graph& graph, const Node& node);
std::vector<Tensor> interpretNonMaxSuppression(const Node& node, std::span<const Tensor* const> inputs);

}  // namespace npusim::compiler::ops
