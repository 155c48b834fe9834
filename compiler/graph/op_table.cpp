// The op table (one entry per OpKind), op lookup, located diagnostics and shared operand checks.
#include "compiler/graph/op_table.h"

#include <array>

#include "arch/error.h"
#include "compiler/graph/op_impl.h"

namespace npusim::compiler {
namespace {

constexpr std::array kOps = {
    OpInfo{OpKind::MatMul, "MatMul", 2, 2, 1, 1, ops::inferMatMul, ops::interpretMatMul},
    OpInfo{OpKind::Gemm, "Gemm", 2, 3, 1, 1, ops::inferGemm, ops::interpretGemm},
    OpInfo{OpKind::MatMulInteger, "MatMulInteger", 2, 4, 1, 1, ops::inferMatMulInteger,
           ops::interpretMatMulInteger},
    OpInfo{OpKind::Relu, "Relu", 1, 1, 1, 1, ops::inferRelu, ops::interpretRelu},
    // Elementwise, activations, reductions and normalisation.
    OpInfo{OpKind::Add, "Add", 2, 2, 1, 1, ops::inferArithmetic, ops::interpretAdd},
    OpInfo{OpKind::Sub, "Sub", 2, 2, 1, 1, ops::inferArithmetic, ops::interpretSub},
    OpInfo{OpKind::Mul, "Mul", 2, 2, 1, 1, ops::inferArithmetic, ops::interpretMul},
    OpInfo{OpKind::Div, "Div", 2, 2, 1, 1, ops::inferArithmetic, ops::interpretDiv},
    OpInfo{OpKind::Pow, "Pow", 2, 2, 1, 1, ops::inferPow, ops::interpretPow},
    OpInfo{OpKind::Max, "Max", 1, kUnbounded, 1, 1, ops::inferVariadic, ops::interpretMax},
    OpInfo{OpKind::Min, "Min", 1, kUnbounded, 1, 1, ops::inferVariadic, ops::interpretMin},
    OpInfo{OpKind::Sum, "Sum", 1, kUnbounded, 1, 1, ops::inferVariadic, ops::interpretSum},
    OpInfo{OpKind::Mean, "Mean", 1, kUnbounded, 1, 1, ops::inferVariadic, ops::interpretMean},
    OpInfo{OpKind::Sqrt, "Sqrt", 1, 1, 1, 1, ops::inferUnary, ops::interpretSqrt},
    OpInfo{OpKind::Exp, "Exp", 1, 1, 1, 1, ops::inferUnary, ops::interpretExp},
    OpInfo{OpKind::Log, "Log", 1, 1, 1, 1, ops::inferUnary, ops::interpretLog},
    OpInfo{OpKind::Neg, "Neg", 1, 1, 1, 1, ops::inferUnary, ops::interpretNeg},
    OpInfo{OpKind::Abs, "Abs", 1, 1, 1, 1, ops::inferUnary, ops::interpretAbs},
    OpInfo{OpKind::Reciprocal, "Reciprocal", 1, 1, 1, 1, ops::inferUnary, ops::interpretReciprocal},
    OpInfo{OpKind::Sigmoid, "Sigmoid", 1, 1, 1, 1, ops::inferUnary, ops::interpretSigmoid},
    OpInfo{OpKind::Tanh, "Tanh", 1, 1, 1, 1, ops::inferUnary, ops::interpretTanh},
    OpInfo{OpKind::Erf, "Erf", 1, 1, 1, 1, ops::inferUnary, ops::interpretErf},
    OpInfo{OpKind::Identity, "Identity", 1, 1, 1, 1, ops::inferIdentity, ops::interpretIdentity},
    OpInfo{OpKind::Elu, "Elu", 1, 1, 1, 1, ops::inferUnary, ops::interpretElu},
    OpInfo{OpKind::Selu, "Selu", 1, 1, 1, 1, ops::inferUnary, ops::interpretSelu},
    OpInfo{OpKind::Softplus, "Softplus", 1, 1, 1, 1, ops::inferUnary, ops::interpretSoftplus},
    OpInfo{OpKind::ThresholdedRelu, "ThresholdedRelu", 1, 1, 1, 1, ops::inferUnary,
           ops::interpretThresholdedRelu},
    OpInfo{OpKind::LeakyRelu, "LeakyRelu", 1, 1, 1, 1, ops::inferUnary, ops::interpretLeakyRelu},
    OpInfo{OpKind::HardSigmoid, "HardSigmoid", 1, 1, 1, 1, ops::inferUnary,
           ops::interpretHardSigmoid},
    OpInfo{OpKind::HardSwish, "HardSwish", 1, 1, 1, 1, ops::inferUnary, ops::interpretHardSwish},
    OpInfo{OpKind::Clip, "Clip", 1, 3, 1, 1, ops::inferClip, ops::interpretClip},
    OpInfo{OpKind::Dropout, "Dropout", 1, 3, 1, 2, ops::inferDropout, ops::interpretDropout},
    OpInfo{OpKind::ReduceSum, "ReduceSum", 1, 2, 1, 1, ops::inferReduce, ops::interpretReduce},
    OpInfo{OpKind::ReduceMean, "ReduceMean", 1, 2, 1, 1, ops::inferReduce, ops::interpretReduce},
    OpInfo{OpKind::ReduceMax, "ReduceMax", 1, 2, 1, 1, ops::inferReduce, ops::interpretReduce},
    OpInfo{OpKind::ReduceMin, "ReduceMin", 1, 2, 1, 1, ops::inferReduce, ops::interpretReduce},
    OpInfo{OpKind::ReduceProd, "ReduceProd", 1, 2, 1, 1, ops::inferReduce, ops::interpretReduce},
    OpInfo{OpKind::ReduceSumSquare, "ReduceSumSquare", 1, 2, 1, 1, ops::inferReduce,
           ops::interpretReduce},
    OpInfo{OpKind::ReduceL1, "ReduceL1", 1, 2, 1, 1, ops::inferReduce, ops::interpretReduce},
    OpInfo{OpKind::ReduceL2, "ReduceL2", 1, 2, 1, 1, ops::inferReduce, ops::interpretReduce},
    OpInfo{OpKind::ReduceLogSum, "ReduceLogSum", 1, 2, 1, 1, ops::inferReduce,
           ops::interpretReduce},
    OpInfo{OpKind::ReduceLogSumExp, "ReduceLogSumExp", 1, 2, 1, 1, ops::inferReduce,
           ops::interpretReduce},
    OpInfo{OpKind::Softmax, "Softmax", 1, 1, 1, 1, ops::inferSoftmax, ops::interpretSoftmax},
    OpInfo{OpKind::LogSoftmax, "LogSoftmax", 1, 1, 1, 1, ops::inferSoftmax,
           ops::interpretLogSoftmax},
    OpInfo{OpKind::LayerNormalization, "LayerNormalization", 2, 3, 1, 3,
           ops::inferLayerNormalization, ops::interpretLayerNormalization},
    OpInfo{OpKind::BatchNormalization, "BatchNormalization", 5, 5, 1, 5,
           ops::inferBatchNormalization, ops::interpretBatchNormalization},
    // Convolution, pooling, resize and quantisation.
    OpInfo{OpKind::Conv, "Conv", 2, 3, 1, 1, ops::inferConv, ops::interpretConv},
    OpInfo{OpKind::ConvTranspose, "ConvTranspose", 2, 3, 1, 1, ops::inferConvTranspose,
           ops::interpretConvTranspose},
    OpInfo{OpKind::ConvInteger, "ConvInteger", 2, 4, 1, 1, ops::inferConvInteger,
           ops::interpretConvInteger},
    OpInfo{OpKind::QLinearConv, "QLinearConv", 8, 9, 1, 1, ops::inferQLinearConv,
           ops::interpretQLinearConv},
    OpInfo{OpKind::MaxPool, "MaxPool", 1, 1, 1, 2, ops::inferMaxPool, ops::interpretMaxPool},
    OpInfo{OpKind::AveragePool, "AveragePool", 1, 1, 1, 1, ops::inferAveragePool,
           ops::interpretAveragePool},
    OpInfo{OpKind::GlobalAveragePool, "GlobalAveragePool", 1, 1, 1, 1, ops::inferGlobalPool,
           ops::interpretGlobalAveragePool},
    OpInfo{OpKind::GlobalMaxPool, "GlobalMaxPool", 1, 1, 1, 1, ops::inferGlobalPool,
           ops::interpretGlobalMaxPool},
    OpInfo{OpKind::Resize, "Resize", 1, 4, 1, 1, ops::inferResize, ops::interpretResize},
    OpInfo{OpKind::QuantizeLinear, "QuantizeLinear", 2, 3, 1, 1, ops::inferQuantizeLinear,
           ops::interpretQuantizeLinear},
    OpInfo{OpKind::DequantizeLinear, "DequantizeLinear", 2, 3, 1, 1, ops::inferDequantizeLinear,
           ops::interpretDequantizeLinear},
    OpInfo{OpKind::QLinearMatMul, "QLinearMatMul", 8, 8, 1, 1, ops::inferQLinearMatMul,
           ops::interpretQLinearMatMul},
    OpInfo{OpKind::DynamicQuantizeLinear, "DynamicQuantizeLinear", 1, 1, 3, 3,
           ops::inferDynamicQuantizeLinear, ops::interpretDynamicQuantizeLinear},
    // Shape and data movement.
    OpInfo{OpKind::Reshape, "Reshape", 2, 2, 1, 1, ops::inferReshape, ops::interpretReshape},
    OpInfo{OpKind::Flatten, "Flatten", 1, 1, 1, 1, ops::inferFlatten, ops::interpretFlatten},
    OpInfo{OpKind::Squeeze, "Squeeze", 1, 2, 1, 1, ops::inferSqueeze, ops::interpretSqueeze},
    OpInfo{OpKind::Unsqueeze, "Unsqueeze", 1, 2, 1, 1, ops::inferUnsqueeze,
           ops::interpretUnsqueeze},
    OpInfo{OpKind::Transpose, "Transpose", 1, 1, 1, 1, ops::inferTranspose,
           ops::interpretTranspose},
    OpInfo{OpKind::DepthToSpace, "DepthToSpace", 1, 1, 1, 1, ops::inferBlockPermute,
           ops::interpretBlockPermute},
    OpInfo{OpKind::SpaceToDepth, "SpaceToDepth", 1, 1, 1, 1, ops::inferBlockPermute,
           ops::interpretBlockPermute},
    OpInfo{OpKind::Concat, "Concat", 1, kUnbounded, 1, 1, ops::inferConcat, ops::interpretConcat},
    OpInfo{OpKind::Split, "Split", 1, 2, 1, kUnbounded, ops::inferSplit, ops::interpretSplit},
    OpInfo{OpKind::Slice, "Slice", 1, 5, 1, 1, ops::inferSlice, ops::interpretSlice},
    OpInfo{OpKind::Gather, "Gather", 2, 2, 1, 1, ops::inferGather, ops::interpretGather},
    OpInfo{OpKind::GatherElements, "GatherElements", 2, 2, 1, 1, ops::inferGatherElements,
           ops::interpretGatherElements},
    OpInfo{OpKind::OneHot, "OneHot", 3, 3, 1, 1, ops::inferOneHot, ops::interpretOneHot},
    OpInfo{OpKind::Expand, "Expand", 2, 2, 1, 1, ops::inferExpand, ops::interpretExpand},
    OpInfo{OpKind::Tile, "Tile", 2, 2, 1, 1, ops::inferTile, ops::interpretTile},
    OpInfo{OpKind::Pad, "Pad", 1, 4, 1, 1, ops::inferPad, ops::interpretPad},
    OpInfo{OpKind::Shape, "Shape", 1, 1, 1, 1, ops::inferShape, ops::interpretShape},
    OpInfo{OpKind::Size, "Size", 1, 1, 1, 1, ops::inferSize, ops::interpretSize},
    OpInfo{OpKind::ConstantOfShape, "ConstantOfShape", 1, 1, 1, 1, ops::inferConstantOfShape,
           ops::interpretConstantOfShape},
    OpInfo{OpKind::Range, "Range", 3, 3, 1, 1, ops::inferRange, ops::interpretRange},
    OpInfo{OpKind::Cast, "Cast", 1, 1, 1, 1, ops::inferCast, ops::interpretCast},
    OpInfo{OpKind::CastLike, "CastLike", 2, 2, 1, 1, ops::inferCastLike, ops::interpretCastLike},
    OpInfo{OpKind::Equal, "Equal", 2, 2, 1, 1, ops::inferBinaryLogic, ops::interpretBinaryLogic},
    OpInfo{OpKind::Less, "Less", 2, 2, 1, 1, ops::inferBinaryLogic, ops::interpretBinaryLogic},
    OpInfo{OpKind::Greater, "Greater", 2, 2, 1, 1, ops::inferBinaryLogic,
           ops::interpretBinaryLogic},
    OpInfo{OpKind::LessOrEqual, "LessOrEqual", 2, 2, 1, 1, ops::inferBinaryLogic,
           ops::interpretBinaryLogic},
    OpInfo{OpKind::GreaterOrEqual, "GreaterOrEqual", 2, 2, 1, 1, ops::inferBinaryLogic,
           ops::interpretBinaryLogic},
    OpInfo{OpKind::Not, "Not", 1, 1, 1, 1, ops::inferNot, ops::interpretNot},
    OpInfo{OpKind::And, "And", 2, 2, 1, 1, ops::inferBinaryLogic, ops::interpretBinaryLogic},
    OpInfo{OpKind::Or, "Or", 2, 2, 1, 1, ops::inferBinaryLogic, ops::interpretBinaryLogic},
    OpInfo{OpKind::Xor, "Xor", 2, 2, 1, 1, ops::inferBinaryLogic, ops::interpretBinaryLogic},
    OpInfo{OpKind::Where, "Where", 3, 3, 1, 1, ops::inferWhere, ops::interpretWhere},
    OpInfo{OpKind::ArgMax, "ArgMax", 1, 1, 1, 1, ops::inferArgExtreme, ops::interpretArgExtreme},
    OpInfo{OpKind::ArgMin, "ArgMin", 1, 1, 1, 1, ops::inferArgExtreme, ops::interpretArgExtreme},
    OpInfo{OpKind::Trilu, "Trilu", 1, 2, 1, 1, ops::inferTrilu, ops::interpretTrilu},
    OpInfo{OpKind::CumSum, "CumSum", 2, 2, 1, 1, ops::inferCumSum, ops::interpretCumSum},
    OpInfo{OpKind::TopK, "TopK", 2, 2, 2, 2, ops::inferTopK, ops::interpretTopK},
    OpInfo{OpKind::PRelu, "PRelu", 2, 2, 1, 1, ops::inferPRelu, ops::interpretPRelu},
    OpInfo{OpKind::Mod, "Mod", 2, 2, 1, 1, ops::inferMod, ops::interpretMod},
    OpInfo{OpKind::LSTM, "LSTM", 3, 8, 0, 3, ops::inferRecurrent, ops::interpretRecurrent},
    OpInfo{OpKind::GRU, "GRU", 3, 6, 0, 2, ops::inferRecurrent, ops::interpretRecurrent},
    OpInfo{OpKind::RNN, "RNN", 3, 6, 0, 2, ops::inferRecurrent, ops::interpretRecurrent},
    OpInfo{OpKind::Sin, "Sin", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Cos, "Cos", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Tan, "Tan", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Asin, "Asin", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Acos, "Acos", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Atan, "Atan", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Sinh, "Sinh", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Cosh, "Cosh", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Asinh, "Asinh", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Acosh, "Acosh", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Atanh, "Atanh", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Floor, "Floor", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Ceil, "Ceil", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Round, "Round", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Sign, "Sign", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Softsign, "Softsign", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Shrink, "Shrink", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::Celu, "Celu", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::IsNaN, "IsNaN", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::IsInf, "IsInf", 1, 1, 1, 1, ops::inferMath, ops::interpretMath},
    OpInfo{OpKind::NegativeLogLikelihoodLoss, "NegativeLogLikelihoodLoss", 2, 3, 1, 1, ops::inferLoss,
           ops::interpretNegativeLogLikelihoodLoss},
    OpInfo{OpKind::SoftmaxCrossEntropyLoss, "SoftmaxCrossEntropyLoss", 2, 3, 1, 2, ops::inferLoss,
           ops::interpretSoftmaxCrossEntropyLoss},
    OpInfo{OpKind::Hardmax, "Hardmax", 1, 1, 1, 1, ops::inferSoftmax, ops::interpretHardmax},
    OpInfo{OpKind::ReverseSequence, "ReverseSequence", 2, 2, 1, 1, ops::inferReverseSequence,
           ops::interpretReverseSequence},
    OpInfo{OpKind::BitShift, "BitShift", 2, 2, 1, 1, ops::inferBitShift, ops::interpretBitShift},
    OpInfo{OpKind::EyeLike, "EyeLike", 1, 1, 1, 1, ops::inferEyeLike, ops::interpretEyeLike},
    OpInfo{OpKind::InstanceNormalization, "InstanceNormalization", 3, 3, 1, 1, ops::inferChannelNormalization,
           ops::interpretInstanceNormalization},
    OpInfo{OpKind::MeanVarianceNormalization, "MeanVarianceNormalization", 1, 1, 1, 1,
           ops::inferChannelNormalization, ops::interpretMeanVarianceNormalization},
    OpInfo{OpKind::LRN, "LRN", 1, 1, 1, 1, ops::inferChannelNormalization, ops::interpretLrn},
    OpInfo{OpKind::Det, "Det", 1, 1, 1, 1, ops::inferDet, ops::interpretDet},
    OpInfo{OpKind::Upsample, "Upsample", 1, 2, 1, 1, ops::inferUpsample, ops::interpretUpsample},
    OpInfo{OpKind::ScatterElements, "ScatterElements", 3, 3, 1, 1, ops::inferScatterElements,
           ops::interpretScatterElements},
    OpInfo{OpKind::Scatter, "Scatter", 3, 3, 1, 1, ops::inferScatterElements, ops::interpretScatterElements},
    OpInfo{OpKind::ScatterND, "ScatterND", 3, 3, 1, 1, ops::inferScatterNd, ops::interpretScatterNd},
    OpInfo{OpKind::GatherND, "GatherND", 2, 2, 1, 1, ops::inferGatherNd, ops::interpretGatherNd},
    OpInfo{OpKind::GridSample, "GridSample", 2, 2, 1, 1, ops::inferGridSample, ops::interpretGridSample},
    OpInfo{OpKind::RoiAlign, "RoiAlign", 3, 3, 1, 1, ops::inferRoiAlign, ops::interpretRoiAlign},
    OpInfo{OpKind::MaxUnpool, "MaxUnpool", 2, 3, 1, 1, ops::inferMaxUnpool, ops::interpretMaxUnpool},
    OpInfo{OpKind::DFT, "DFT", 1, 2, 1, 1, ops::inferDft, ops::interpretDft},
    OpInfo{OpKind::STFT, "STFT", 2, 4, 1, 1, ops::inferStft, ops::interpretStft},
    OpInfo{OpKind::HannWindow, "HannWindow", 1, 1, 1, 1, ops::inferWindow, ops::interpretWindow},
    OpInfo{OpKind::HammingWindow, "HammingWindow", 1, 1, 1, 1, ops::inferWindow, ops::interpretWindow},
    OpInfo{OpKind::BlackmanWindow, "BlackmanWindow", 1, 1, 1, 1, ops::inferWindow, ops::interpretWindow},
    OpInfo{OpKind::MelWeightMatrix, "MelWeightMatrix", 5, 5, 1, 1, ops::inferMelWeightMatrix,
           ops::interpretMelWeightMatrix},
    OpInfo{OpKind::TfIdfVectorizer, "TfIdfVectorizer", 1, 1, 1, 1, ops::inferTfIdfVectorizer,
           ops::interpretTfIdfVectorizer},
    OpInfo{OpKind::Einsum, "Einsum", 1, kUnbounded, 1, 1, ops::inferEinsum, ops::interpretEinsum},
    // Random numbers drawn at compile time (compiler/graph/random_draws.h).
    OpInfo{OpKind::RandomUniform, "RandomUniform", 0, 0, 1, 1, ops::inferRandom, ops::interpretRandom},
    OpInfo{OpKind::RandomNormal, "RandomNormal", 0, 0, 1, 1, ops::inferRandom, ops::interpretRandom},
    OpInfo{OpKind::RandomUniformLike, "RandomUniformLike", 1, 1, 1, 1, ops::inferRandom, ops::interpretRandom},
    OpInfo{OpKind::RandomNormalLike, "RandomNormalLike", 1, 1, 1, 1, ops::inferRandom, ops::interpretRandom},
    OpInfo{OpKind::Bernoulli, "Bernoulli", 1, 1, 1, 1, ops::inferBernoulli, ops::interpretBernoulli},
    // Each with a last output, after ONNX's, holding its data-dependent size.
    OpInfo{OpKind::NonZero, "NonZero", 1, 1, 2, 2, ops::inferNonZero, ops::interpretNonZero},
    OpInfo{OpKind::Compress, "Compress", 2, 2, 2, 2, ops::inferCompress, ops::interpretCompress},
    OpInfo{OpKind::Unique, "Unique", 1, 1, 5, 5, ops::inferUnique, ops::interpretUnique},
    OpInfo{OpKind::NonMaxSuppression, "NonMaxSuppression", 2, 5, 2, 2, ops::inferNonMaxSuppression,
           ops::interpretNonMaxSuppression},
    OpInfo{OpKind::Im2Col, "npusim.Im2Col", 1, 2, 1, 1, ops::inferIm2Col, ops::interpretIm2Col},
    OpInfo{OpKind::RmsNormalization, "npusim.RMSNormalization", 2, 2, 1, 1, ops::inferRmsNormalization,
           ops::interpretRmsNormalization},
    // A tensor rewritten from the layout its producer writes ("from") to the one its readers
    // take ("to"): a Transpose by "perm" that layout assignment made explicit.
    OpInfo{OpKind::Reformat, "npusim.Reformat", 1, 1, 1, 1, ops::inferTranspose, ops::interpretTranspose},
    // x * (1 + erf(x / sqrt(2))) / 2, recognised from its spelled-out form (ONNX has Gelu from opset 20).
    OpInfo{OpKind::Gelu, "npusim.Gelu", 1, 1, 1, 1, ops::inferUnary, ops::interpretGelu},
};

constexpr bool tableFollowsEnumOrder() {
    for (size_t i = 0; i < kOps.size(); ++i) {
        if (static_cast<size_t>(kOps[i].kind) != i) return false;
    }
    return true;
}
static_assert(tableFollowsEnumOrder(), "kOps must list every OpKind in enum order");

/// "1 input", "3 inputs".
std::string counted(int count, const std::string& noun) {
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

}  // namespace

const OpInfo& opInfo(OpKind kind) {
    return kOps.at(static_cast<size_t>(kind));
}

bool isInternalOp(OpKind kind) { return opInfo(kind).name.starts_with("npusim."); }

std::optional<OpKind> findOpKind(std::string_view onnxOpType) {
    for (const OpInfo& info : kOps) {
        if (info.name == onnxOpType && !isInternalOp(info.kind)) return info.kind;
    }
    return std::nullopt;
}

std::optional<OpKind> findIrOpKind(std::string_view name) {
    for (const OpInfo& info : kOps) {
        if (info.name == name) return info.kind;
    }
    return std::nullopt;
}

std::string supportedOpList() {
    std::string list;
    for (const OpInfo& info : kOps) {
        if (isInternalOp(info.kind)) continue;
        if (!list.empty()) list += ", ";
        list += info.name;
    }
    return list;
}

std::span<const int> shapeOperands(OpKind kind) {
    static constexpr int kFirst[] = {0}, kSecond[] = {1}, kFirstThree[] = {0, 1, 2}, kSlice[] = {1, 2, 3, 4},
                         kResize[] = {1, 2, 3}, kPad[] = {1, 3},
                         kThird[] = {2}, kFifth[] = {4}, kStft[] = {1, 3}, kFirstFive[] = {0, 1, 2, 3, 4};
    switch (kind) {
        case OpKind::Resize: return kResize;  // opset 10: scales; 11 on: roi, scales, sizes
        case OpKind::DFT:                     // dft_length
        case OpKind::Upsample:                // scales, from opset 9
        case OpKind::ReduceSum:               // axes, from opset 13
        case OpKind::Reshape:
        case OpKind::Squeeze:    // axes, from opset 13
        case OpKind::Unsqueeze:  // axes, from opset 13
        case OpKind::Split:      // split, from opset 13
        case OpKind::Expand:
        case OpKind::Tile:
        case OpKind::Trilu:                   // k: which elements are kept
        case OpKind::TopK:                    // K
        case OpKind::OneHot: return kSecond;  // OneHot: depth
        case OpKind::MaxUnpool: return kThird;  // output_shape
        case OpKind::STFT: return kStft;        // frame_step, frame_length
        case OpKind::MelWeightMatrix: return kFirstFive;  // all: they decide where the filters lie
        case OpKind::Slice: return kSlice;
        case OpKind::Pad: return kPad;  // pads, and axes in opset 18
        case OpKind::HannWindow:  // size
        case OpKind::HammingWindow:
        case OpKind::BlackmanWindow:
        case OpKind::ConstantOfShape: return kFirst;
        case OpKind::Range: return kFirstThree;
        case OpKind::LSTM:
        case OpKind::GRU:
        case OpKind::RNN: return kFifth;  // sequence_lens: the steps run
        default: return {};
    }
}

std::string opDiagnostic(const Node& node, const std::string& message) {
    return "op '" + node.name + "' (" + std::string(opInfo(node.kind).name) + "): " + message;
}

void opError(const Node& node, const std::string& message) {
    throw InputError(opDiagnostic(node, message));
}

namespace ops {

void checkArity(const Graph& graph, const Node& node) {
    const OpInfo& info = opInfo(node.kind);
    const auto inputCount = static_cast<int>(node.inputs.size());
    if (inputCount < info.minInputs || inputCount > info.maxInputs) {
        const std::string expected =
            info.minInputs == info.maxInputs ? counted(info.minInputs, "input")
            : info.maxInputs == kUnbounded   ? "at least " + counted(info.minInputs, "input")
                                             : std::to_string(info.minInputs) + " to " +
                                                 counted(info.maxInputs, "input");
        opError(node, "expects " + expected + ", got " + std::to_string(inputCount));
    }
    const auto outputCount = static_cast<int>(node.outputs.size());
    if (outputCount < info.minOutputs || outputCount > info.maxOutputs) {
        const std::string expected =
            info.minOutputs == info.maxOutputs
                ? counted(info.minOutputs, "output")
                : std::to_string(info.minOutputs) + " to " + counted(info.maxOutputs, "output");
        opError(node, "expects " + expected + ", got " + std::to_string(outputCount));
    }
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        const ValueId id = node.inputs[i];
        if (id == kNoValue) {
            if (static_cast<int>(i) < info.minInputs) {
                opError(node, "required input " + std::to_string(i) + " is absent");
            }
        } else if (id >= graph.values.size()) {
            opError(node, "input " + std::to_string(i) + " refers to value id " +
                              std::to_string(id) + ", but the graph has " +
                              std::to_string(graph.values.size()) + " values");
        }
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
        if (node.outputs[i] >= graph.values.size()) {
            opError(node, "output " + std::to_string(i) + " refers to value id " +
                              std::to_string(node.outputs[i]) + ", but the graph has " +
                              std::to_string(graph.values.size()) + " values");
        }
    }
}

const Value* optionalInput(const Graph& graph, const Node& node, size_t index) {
    if (index >= node.inputs.size() || node.inputs[index] == kNoValue) return nullptr;
    return &graph.value(node.inputs[index]);
}

void requireDType(const Node& node, std::string_view operand, DType dtype,
                  std::initializer_list<DType> allowed) {
    std::string list;
    for (DType candidate : allowed) {
        if (candidate == dtype) return;
        if (!list.empty()) list += ", ";
        list += dtypeName(candidate);
    }
    opError(node, std::string(operand) + " is " + std::string(dtypeName(dtype)) + "; " +
                      std::string(opInfo(node.kind).name) + " supports " + list);
}

void requireSameDType(const Node& node, std::string_view aName, DType a, std::string_view bName, DType b) {
    if (a != b) {
        opError(node, std::string(aName) + " is " + std::string(dtypeName(a)) + " but " + std::string(bName) + " is " +
                          std::string(dtypeName(b)) + "; both must have the same dtype");
    }
}

void setOutput(Graph& graph, const Node& node, DType dtype, Shape shape) {
    Value& output = graph.value(node.outputs.at(0));
    output.dtype = dtype;
    output.shape = std::move(shape);
}

}  // namespace ops
}  // namespace npusim::compiler
