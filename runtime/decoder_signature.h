// The interface of a decoder-only language model with a KV cache, as exporters write it:
// token ids (and, optionally, their positions) and an attention mask in, logits out, and per
// layer past key/value inputs paired with present outputs that hold the past and the new
// tokens' entries. Found by name and shape from the model's declared inputs and outputs.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "arch/artifact.h"

namespace npusim::runtime {

/// A past input and the present output that extends it along `axis` (the sequence axis).
struct KvPair {
    std::string past, present;
    size_t axis = 0;
};

struct DecoderSignature {
    std::string tokens;     ///< int64 [batch, seq]
    std::string positions;  ///< int64 [batch, seq]; "" when the model has none
    std::string mask;       ///< [batch, past + seq]: 1 where a position may be attended, 0 where not
    std::string logits;     ///< [batch, seq, vocab]
    std::vector<KvPair> kv;
    /// The symbols of the new tokens' count, the past's length and their sum (the mask's and
    /// the presents' sequence dim); the batch's, or "" when the batch is fixed.
    std::string seqSymbol, pastSymbol, totalSymbol, batchSymbol;
};

/// Pairs `past...` inputs with `present...` outputs by the rest of their names (past.0.key and
/// present.0.key, past_key_values.0.key and present.0.key) and names the other roles. InputError
/// naming what is missing or does not fit: no pairs, a past without its present, no mask, an
/// input that is none of the roles, a pair whose shapes differ outside one symbolic axis.
DecoderSignature findDecoderSignature(std::span<const TensorBinding> inputs, std::span<const TensorBinding> outputs);

/// The other form exporters write for the prompt: a prefill graph without past inputs whose
/// presents hold the prompt's own entries. Checks it against the decoder's `signature` (the
/// same token, position and mask inputs, logits and presents by name, the presents along the
/// token ids' symbolic seq dim) and returns its seq and batch symbols; InputError naming what
/// does not match.
struct PrefillSymbols {
    std::string seq, batch;
};
PrefillSymbols checkPrefillSignature(std::span<const TensorBinding> inputs, std::span<const TensorBinding> outputs,
                                     const DecoderSignature& signature);

}  // namespace npusim::runtime
