// A KV-cache decoder's roles found among its declared inputs and outputs: past/present pairs by
// name (torch's and Hugging Face's spellings), the sequence axis by symbol, and the errors that
// name what a model lacks; and the step inputs and cache appends built from them.
#include <gtest/gtest.h>

#include "arch/error.h"
#include "runtime/decoder_signature.h"
#include "runtime/kv_session.h"

namespace npusim::runtime {
namespace {

TensorBinding binding(const std::string& name, DType dtype, Shape shape, std::vector<std::string> symbols) {
    TensorBinding b;
    b.name = name;
    b.dtype = dtype;
    b.shape = std::move(shape);
    b.symbols = std::move(symbols);
    return b;
}

std::vector<TensorBinding> inputs(const std::string& pastPrefix) {
    return {binding("input_ids", DType::Int64, {1, -1}, {"batch", "seq"}),
            binding("attention_mask", DType::Int64, {1, -1}, {"batch", "total"}),
            binding(pastPrefix + ".0.key", DType::Fp32, {1, 4, -1, 8}, {"batch", "", "past", ""}),
            binding(pastPrefix + ".0.value", DType::Fp32, {1, 4, -1, 8}, {"batch", "", "past", ""})};
}

std::vector<TensorBinding> outputs() {
    return {binding("logits", DType::Fp32, {1, -1, 32}, {"batch", "seq", ""}),
            binding("present.0.key", DType::Fp32, {1, 4, -1, 8}, {"batch", "", "total", ""}),
            binding("present.0.value", DType::Fp32, {1, 4, -1, 8}, {"batch", "", "total", ""})};
}

TEST(DecoderSignature, PairsPastAndPresentByNameInBothSpellings) {
    for (const std::string prefix : {"past", "past_key_values"}) {
        const std::vector<TensorBinding> in = inputs(prefix);
        const std::vector<TensorBinding> out = outputs();
        const DecoderSignature s = findDecoderSignature(in, out);
        ASSERT_EQ(s.kv.size(), 2u);
        EXPECT_EQ(s.kv[0].past, prefix + ".0.key");
        EXPECT_EQ(s.kv[0].present, "present.0.key");
        EXPECT_EQ(s.kv[1].axis, 2u);
        EXPECT_EQ(s.tokens, "input_ids");
        EXPECT_EQ(s.mask, "attention_mask");
        EXPECT_EQ(s.positions, "");
        EXPECT_EQ(s.logits, "logits");
        EXPECT_EQ(s.seqSymbol, "seq");
        EXPECT_EQ(s.pastSymbol, "past");
        EXPECT_EQ(s.totalSymbol, "total");
        EXPECT_EQ(s.batchSymbol, "batch");
    }
}

void expectRefused(std::vector<TensorBinding> in, std::vector<TensorBinding> out, const std::string& words) {
    try {
        findDecoderSignature(in, out);
        ADD_FAILURE() << "accepted; expected: " << words;
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
}

TEST(DecoderSignature, NamesWhatTheModelLacks) {
    std::vector<TensorBinding> in = inputs("past");
    std::vector<TensorBinding> out = outputs();
    expectRefused({in[0], in[1]}, {out[0]}, "no past key/value inputs");
    expectRefused(in, {out[0], out[1]}, "has no present output");
    expectRefused({in[0], in[2], in[3]}, out, "no attention mask");
    expectRefused({in[1], in[2], in[3]}, out, "no token ids");
    std::vector<TensorBinding> extra = in;
    extra.push_back(binding("pixels", DType::Fp32, {1, 3}, {}));
    expectRefused(extra, out, "'pixels' is none of a decoder's");
    std::vector<TensorBinding> fixed = out;
    fixed[1].symbols = in[2].symbols;
    expectRefused(in, fixed, "have the same shape");
}

TEST(KvSession, StepInputsMaskEachRowsEmptySlotsAndAppendsLandAtEachRowsSlot) {
    const std::vector<TensorBinding> in = inputs("past");
    const DecoderSignature s = findDecoderSignature(in, outputs());
    ArtifactManifest decode;
    decode.inputs = {binding("input_ids", DType::Int64, {2, 1}, {}), binding("attention_mask", DType::Int64, {2, 6}, {})};
    Tensor tokens = Tensor::zeros(DType::Int64, {2, 1});
    tokens.as<int64_t>()[0] = 7;
    tokens.as<int64_t>()[1] = 9;
    const std::vector<int64_t> lengths{3, 1};
    const auto step = decoderStepInputs(s, decode, tokens, 5, lengths);
    EXPECT_EQ(step.at("input_ids").as<int64_t>()[1], 9);
    const auto mask = step.at("attention_mask").as<int64_t>();
    EXPECT_EQ(std::vector<int64_t>(mask.begin(), mask.end()), (std::vector<int64_t>{1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1}));
    EXPECT_THROW(decoderStepInputs(s, decode, tokens, 5, std::vector<int64_t>{3}), InputError);

    Tensor cache = Tensor::zeros(DType::Fp32, {3, 2, 4, 1});  // 3 rows, 2 heads, 4 slots
    Tensor added = Tensor::zeros(DType::Fp32, {2, 2, 1, 1});  // rows 1 and 2's new entries
    for (int i = 0; i < 4; ++i) added.as<float>()[static_cast<size_t>(i)] = static_cast<float>(i + 1);
    appendEntries(cache, added, 2, 1, std::vector<int64_t>{3, -1});  // row 2 skipped
    const auto slots = cache.as<float>();
    std::vector<float> expected(24, 0);
    expected[8 + 3] = 1;   // row 1, head 0, slot 3
    expected[12 + 3] = 2;  // row 1, head 1, slot 3
    EXPECT_EQ(std::vector<float>(slots.begin(), slots.end()), expected);
    EXPECT_THROW(appendEntries(cache, added, 2, 1, std::vector<int64_t>{4, -1}), InputError);
    EXPECT_THROW(appendEntries(cache, added, 2, 2, std::vector<int64_t>{0, 0}), InputError);
}

}  // namespace
}  // namespace npusim::runtime
