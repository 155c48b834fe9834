// Finding a KV-cache decoder's roles among its declared inputs and outputs.
#include "runtime/decoder_signature.h"

#include <algorithm>
#include <map>
#include <optional>

#include "arch/error.h"

namespace npusim::runtime {
namespace {

/// The rest of `name` after `prefix` and the separators that follow it; nullopt when `name`
/// does not start with the prefix.
std::optional<std::string> afterPrefix(const std::string& name, const std::string& prefix) {
    if (name.rfind(prefix, 0) != 0) return std::nullopt;
    const size_t rest = name.find_first_not_of("._-/", prefix.size());
    return rest == std::string::npos ? std::string() : name.substr(rest);
}

bool contains(const std::string& name, const char* part) { return name.find(part) != std::string::npos; }

std::string symbolAt(const TensorBinding& binding, size_t axis) {
    return axis < binding.symbols.size() ? binding.symbols[axis] : std::string();
}

/// The one axis along which a present extends its past: the only dim where their symbols
/// differ; InputError unless every other dim agrees.
size_t sequenceAxis(const TensorBinding& past, const TensorBinding& present) {
    const std::string pair = "past '" + past.name + "' and present '" + present.name + "'";
    if (past.shape.size() != present.shape.size() || past.dtype != present.dtype) {
        throw InputError(pair + " differ in rank or dtype");
    }
    std::optional<size_t> axis;
    for (size_t d = 0; d < past.shape.size(); ++d) {
        const std::string a = symbolAt(past, d), b = symbolAt(present, d);
        if (a == b && past.shape[d] == present.shape[d]) continue;
        if (axis || a.empty() || b.empty()) throw InputError(pair + " differ in more than one symbolic sequence dim");
        axis = d;
    }
    if (!axis) throw InputError(pair + " have the same shape: the present does not extend the past along a symbolic dim");
    return *axis;
}

}  // namespace

DecoderSignature findDecoderSignature(std::span<const TensorBinding> inputs, std::span<const TensorBinding> outputs) {
    DecoderSignature s;
    std::map<std::string, const TensorBinding*> presents;
    for (const TensorBinding& output : outputs) {
        if (const auto key = afterPrefix(output.name, "present")) {
            presents[*key] = &output;
        } else if (s.logits.empty()) {
            s.logits = output.name;
        } else {
            throw InputError("the model has two outputs that are not present key/values, '" + s.logits + "' and '" +
                             output.name + "'; a decoder has one, its logits");
        }
    }
    const TensorBinding* tokens = nullptr;
    const TensorBinding* mask = nullptr;
    std::vector<const TensorBinding*> others;  // inputs that are not past key/values
    for (const TensorBinding& input : inputs) {
        std::optional<std::string> key = afterPrefix(input.name, "past_key_values");
        if (!key) key = afterPrefix(input.name, "past");
        if (key) {
            const auto present = presents.find(*key);
            if (present == presents.end()) {
                throw InputError("the past input '" + input.name + "' has no present output of the same name ('present." +
                                 *key + "')");
            }
            const size_t axis = sequenceAxis(input, *present->second);
            if (!s.kv.empty() && (symbolAt(input, axis) != s.pastSymbol || symbolAt(*present->second, axis) != s.totalSymbol)) {
                throw InputError("the past input '" + input.name + "' grows along '" + symbolAt(input, axis) + "', not '" +
                                 s.pastSymbol + "' as '" + s.kv.front().past + "' does");
            }
            s.pastSymbol = symbolAt(input, axis);
            s.totalSymbol = symbolAt(*present->second, axis);
            s.kv.push_back({input.name, present->second->name, axis});
            presents.erase(present);
        } else {
            others.push_back(&input);
        }
    }
    if (s.kv.empty()) {
        throw InputError("the model has no past key/value inputs paired with present outputs (past.0.key -> present.0.key): "
                         "it has no KV cache to generate with");
    }
    for (const TensorBinding* input : others) {
        if (contains(input->name, "mask")) {
            mask = input;
        } else if (contains(input->name, "position")) {
            s.positions = input->name;
        } else if (!tokens && (contains(input->name, "ids") || contains(input->name, "token"))) {
            tokens = input;
        } else {
            throw InputError("the model's input '" + input->name +
                             "' is none of a decoder's: token ids, positions, an attention mask, past key/values");
        }
    }
    if (!presents.empty()) throw InputError("the present output '" + presents.begin()->second->name + "' has no past input");
    if (s.logits.empty()) throw InputError("the model has no logits output beside its present key/values");
    if (!tokens) throw InputError("the model has no token ids input (a name with 'ids' or 'token')");
    if (tokens->shape.size() != 2 || (tokens->dtype != DType::Int64 && tokens->dtype != DType::Int32) ||
        symbolAt(*tokens, 1).empty()) {
        throw InputError("the token ids input '" + tokens->name + "' is not an integer [batch, seq] with a symbolic seq dim");
    }
    s.tokens = tokens->name;
    s.seqSymbol = symbolAt(*tokens, 1);
    s.batchSymbol = symbolAt(*tokens, 0);
    if (!mask) {
        throw InputError("the model has no attention mask input: a KV cache of fixed capacity needs one to hide its empty slots");
    }
    if (mask->shape.size() != 2 || symbolAt(*mask, 1) != s.totalSymbol) {
        throw InputError("the attention mask '" + mask->name + "' is not [batch, " + s.totalSymbol +
                         "] (the presents' sequence dim)");
    }
    s.mask = mask->name;
    return s;
}

PrefillSymbols checkPrefillSignature(std::span<const TensorBinding> inputs, std::span<const TensorBinding> outputs,
                                     const DecoderSignature& signature) {
    const TensorBinding* tokens = nullptr;
    for (const TensorBinding& input : inputs) {
        if (afterPrefix(input.name, "past")) {
            throw InputError("the prefill model has a past input '" + input.name + "': a prefill graph has none");
        }
        if (input.name == signature.tokens) {
            tokens = &input;
        } else if (input.name != signature.positions && input.name != signature.mask) {
            throw InputError("the prefill model's input '" + input.name + "' is not among the decoder's ('" + signature.tokens +
                             "', '" + signature.positions + "', '" + signature.mask + "')");
        }
    }
    if (!tokens || tokens->shape.size() != 2 || symbolAt(*tokens, 1).empty()) {
        throw InputError("the prefill model has no token ids input '" + signature.tokens + "' [batch, seq] with a symbolic seq dim");
    }
    const PrefillSymbols symbols{symbolAt(*tokens, 1), symbolAt(*tokens, 0)};
    std::map<std::string, const TensorBinding*> byName;
    for (const TensorBinding& output : outputs) byName[output.name] = &output;
    if (!byName.contains(signature.logits)) throw InputError("the prefill model has no logits output '" + signature.logits + "'");
    for (const KvPair& pair : signature.kv) {
        const auto present = byName.find(pair.present);
        if (present == byName.end()) throw InputError("the prefill model has no present output '" + pair.present + "'");
        if (symbolAt(*present->second, pair.axis) != symbols.seq) {
            throw InputError("the prefill model's present '" + pair.present + "' is not as long as its prompt (dim " +
                             std::to_string(pair.axis) + " is not '" + symbols.seq + "')");
        }
    }
    if (byName.size() != signature.kv.size() + 1) {
        throw InputError("the prefill model has outputs beside the decoder's logits and presents");
    }
    return symbols;
}

}  // namespace npusim::runtime
