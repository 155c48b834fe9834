// Compiling a KV-cache decoder's two plans and running a request through them.
#include "cli/generation.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "arch/checksum.h"
#include "arch/error.h"
#include "compiler/frontend/onnx_import.h"
#include "compiler/graph/interpreter.h"
#include "compiler/passes/kv_cache_outputs.h"
#include "runtime/kv_session.h"
#include "sim/cosim.h"

namespace npusim::cli {
namespace {

/// One plan: `model` at `dims`, its presents as appends (a past-KV graph's), compiled; a plan of
/// more than one new token keeps its last position's logits only.
compiler::Compilation compilePlan(const std::filesystem::path& model, const ArchConfig& config,
                                  const compiler::CompileOptions& options, const runtime::DecoderSignature& signature,
                                  const std::map<std::string, int64_t>& dims, bool appends, bool lastPosition) {
    compiler::CompileOptions sized = options;
    for (const auto& [symbol, size] : dims) sized.dims[symbol] = size;
    compiler::Graph graph = compiler::importOnnx(model, sized.bindings, sized.dims);
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const runtime::KvPair& pair : signature.kv) pairs.emplace_back(pair.past, pair.present);
    if (appends) compiler::presentsAsAppends(graph, pairs);
    if (lastPosition) compiler::lastPositionOnly(graph, signature.logits, 1);
    return compiler::compileGraph(std::move(graph), config, model.stem().string(), fileSha256(model.string()), sized);
}

/// The steps' reference: the same plans' graphs on the interpreter, with caches of their own
/// laid out as a KvSession's.
class ReferenceDecoder {
public:
    explicit ReferenceDecoder(const GenerationPlans& plans) : plans_(plans) {
        for (const compiler::Compilation* plan : {&plans.prefill, &plans.decode}) {
            const ArtifactManifest& manifest = plan->artifact.manifest;
            const compiler::Graph& graph = plan->source;
            for (size_t i = 0; i < manifest.outputs.size(); ++i) {
                if (i >= graph.outputs.size() || graph.value(graph.outputs[i]).name != manifest.outputs[i].name) {
                    throw RunError("the reference graph's outputs are not the plan's, in the plan's order");
                }
            }
        }
        for (const runtime::KvPair& pair : plans.signature.kv) {
            const TensorBinding& past = input(plans.decode, pair.past);
            caches_.push_back(Tensor::zeros(past.dtype, past.shape));
        }
        rowsPerRequest_ = input(plans.prefill, plans.signature.tokens).shape[0];
        lengths_.assign(static_cast<size_t>(input(plans.decode, plans.signature.tokens).shape[0]), 0);
    }

    Tensor prefill(int64_t request, const Tensor& prompt) {
        const std::vector<int64_t> empty(static_cast<size_t>(rowsPerRequest_), 0);
        const Tensor logits = step(plans_.prefill, prompt, 0, empty, request * rowsPerRequest_, empty);
        std::fill_n(lengths_.begin() + request * rowsPerRequest_, rowsPerRequest_, prompt.shape[1]);
        return logits;
    }

    Tensor decode(const Tensor& tokens, const std::vector<bool>& active) {
        std::vector<int64_t> slots(lengths_.size(), -1);
        for (size_t row = 0; row < lengths_.size(); ++row) {
            if (active[row / static_cast<size_t>(rowsPerRequest_)]) slots[row] = lengths_[row];
        }
        const Tensor logits = step(plans_.decode, tokens, plans_.capacity, lengths_, 0, slots);
        for (size_t row = 0; row < lengths_.size(); ++row) lengths_[row] += slots[row] >= 0 ? 1 : 0;
        return logits;
    }

private:
    static const TensorBinding& input(const compiler::Compilation& plan, const std::string& name) {
        const std::vector<TensorBinding>& inputs = plan.artifact.manifest.inputs;
        return *std::find_if(inputs.begin(), inputs.end(), [&](const TensorBinding& b) { return b.name == name; });
    }

    /// The last position's logits of a step (over `slots` cache slots of `lengths` entries; a
    /// prefill's inputs are its own), its entries appended to the reference's caches.
    Tensor step(const compiler::Compilation& plan, const Tensor& tokens, int64_t slots, std::span<const int64_t> lengths,
                int64_t firstRow, std::span<const int64_t> appendAt) {
        const ArtifactManifest& manifest = plan.artifact.manifest;
        const runtime::DecoderSignature& signature = plans_.signature;
        const bool prefill = &plan == &plans_.prefill;
        std::map<std::string, Tensor> inputs = prefill ? runtime::prefillInputs(signature, manifest, tokens)
                                                       : runtime::decoderStepInputs(signature, manifest, tokens, slots, lengths);
        for (size_t k = 0; k < signature.kv.size() && !prefill; ++k) inputs[signature.kv[k].past] = caches_[k];
        const std::vector<Tensor> outputs = compiler::interpretGraph(plan.source, inputs);
        for (size_t k = 0; k < signature.kv.size(); ++k) {
            for (size_t o = 0; o < manifest.outputs.size(); ++o) {
                if (manifest.outputs[o].name != signature.kv[k].present) continue;
                runtime::appendEntries(caches_[k], outputs[o], signature.kv[k].axis, firstRow, appendAt);
            }
        }
        return runtime::lastLogits(signature, manifest, outputs);
    }

    const GenerationPlans& plans_;
    std::vector<Tensor> caches_;  ///< per KV pair, at the decode plan's rows and capacity
    int64_t rowsPerRequest_ = 1;
    std::vector<int64_t> lengths_;  ///< per row
};

/// The token per sequence of [batch, vocab] logits: the largest, or drawn from their softmax.
std::vector<int64_t> chooseTokens(const Tensor& logits, const std::string& sampler, std::mt19937_64& rng) {
    const int64_t batch = logits.shape[0], vocab = logits.shape[1];
    std::vector<int64_t> tokens;
    for (int64_t b = 0; b < batch; ++b) {
        const auto row = logits.as<float>().subspan(static_cast<size_t>(b * vocab), static_cast<size_t>(vocab));
        const auto largest = std::max_element(row.begin(), row.end());
        if (sampler == "greedy") {
            tokens.push_back(largest - row.begin());
            continue;
        }
        std::vector<double> weights;
        for (float logit : row) weights.push_back(std::exp(static_cast<double>(logit) - *largest));
        std::discrete_distribution<int64_t> draw(weights.begin(), weights.end());
        tokens.push_back(draw(rng));
    }
    return tokens;
}

Tensor tokenTensor(const std::vector<int64_t>& tokens, int64_t batch) {
    Tensor t = Tensor::zeros(DType::Int64, {batch, static_cast<int64_t>(tokens.size()) / batch});
    std::copy(tokens.begin(), tokens.end(), t.as<int64_t>().begin());
    return t;
}

/// The largest |a - b| over the largest |b|.
double relativeError(const Tensor& a, const Tensor& b) {
    double diff = 0, scale = 0;
    for (int64_t i = 0; i < b.elementCount(); ++i) {
        diff = std::max(diff, std::abs(a.valueAt(i) - b.valueAt(i)));
        scale = std::max(scale, std::abs(b.valueAt(i)));
    }
    return scale > 0 ? diff / scale : diff;
}

}  // namespace

GenerationPlans compileGenerationPlans(const GenerationRequest& request, const ArchConfig& config,
                                       const compiler::CompileOptions& options) {
    if (request.promptLength < 1) throw InputError("--prompt-len must be at least 1");
    if (request.newTokens < 1) throw InputError("--new-tokens must be at least 1");
    if (request.batch < 1) throw InputError("--batch must be at least 1");
    if (request.requests < 1) throw InputError("--requests must be at least 1");
    if (request.capacity < 0) throw InputError("--capacity must be positive");
    if (request.schedule != "batch" && request.schedule != "round-robin") {
        throw InputError("--schedule '" + request.schedule + "' is not a schedule (batch, round-robin)");
    }
    if (request.sampler != "greedy" && request.sampler != "random") {
        throw InputError("--sampler '" + request.sampler + "' is not a sampler (greedy, random)");
    }
    if (options.precision.precision == compiler::Precision::Int8) {
        throw InputError("generate runs at fp32, bf16 or fp16: int8 would need calibration samples of every step's inputs");
    }
    // The last new token is chosen, not run: the cache holds the prompt and all but that one.
    const int64_t needed = request.promptLength + request.newTokens - 1;
    const int64_t capacity = request.capacity > 0 ? request.capacity : request.promptLength + request.newTokens;
    if (capacity < needed) {
        throw InputError("the KV cache's capacity of " + std::to_string(capacity) + " tokens is too small: a " +
                         std::to_string(request.promptLength) + "-token prompt and " + std::to_string(request.newTokens) +
                         " new tokens need " + std::to_string(needed) + " (raise --capacity)");
    }
    const compiler::OnnxInterface onnx = compiler::readOnnxInterface(request.model);
    GenerationPlans plans;
    plans.signature = runtime::findDecoderSignature(onnx.inputs, onnx.outputs);
    plans.capacity = capacity;
    const runtime::DecoderSignature& s = plans.signature;
    for (const std::string& symbol : {s.seqSymbol, s.pastSymbol, s.totalSymbol, s.batchSymbol}) {
        if (!symbol.empty() && options.dims.contains(symbol)) {
            throw InputError("--dim " + symbol + " is set by generate (--prompt-len, --capacity, --batch)");
        }
    }
    std::map<std::string, int64_t> prefill{{s.seqSymbol, request.promptLength}, {s.pastSymbol, 1},
                                           {s.totalSymbol, request.promptLength + 1}};
    std::map<std::string, int64_t> decode{{s.seqSymbol, 1}, {s.pastSymbol, capacity}, {s.totalSymbol, capacity + 1}};
    // Batched requests share the decode plan's rows; round-robin ones each load the plans.
    const int64_t decodeRows = request.batch * (request.schedule == "batch" ? request.requests : 1);
    if (!s.batchSymbol.empty()) {
        prefill[s.batchSymbol] = request.batch;
        decode[s.batchSymbol] = decodeRows;
    } else {
        const auto tokens = std::find_if(onnx.inputs.begin(), onnx.inputs.end(),
                                         [&](const TensorBinding& b) { return b.name == s.tokens; });
        if (tokens->shape.front() != request.batch || decodeRows != request.batch) {
            throw InputError("the model's batch is fixed at " + std::to_string(tokens->shape.front()) + "; --batch " +
                             std::to_string(request.batch) + (decodeRows != request.batch ? " with batched --requests" : "") +
                             " cannot run it");
        }
    }
    const bool longPrompt = request.promptLength > 1;
    if (request.prefillModel.empty()) {
        plans.prefill = compilePlan(request.model, config, options, s, prefill, true, longPrompt);
    } else {
        const compiler::OnnxInterface own = compiler::readOnnxInterface(request.prefillModel);
        const runtime::PrefillSymbols symbols = runtime::checkPrefillSignature(own.inputs, own.outputs, s);
        std::map<std::string, int64_t> dims{{symbols.seq, request.promptLength}};
        if (!symbols.batch.empty()) dims[symbols.batch] = request.batch;
        plans.prefill = compilePlan(request.prefillModel, config, options, s, dims, false, longPrompt);
    }
    plans.decode = compilePlan(request.model, config, options, s, decode, true, false);
    return plans;
}

GenerationResult runGeneration(const GenerationRequest& request, const ArchConfig& config, const GenerationPlans& plans) {
    GenerationResult result;
    result.capacity = plans.capacity;
    for (const TensorBinding& output : plans.decode.artifact.manifest.outputs) {
        if (output.name == plans.signature.logits) result.vocab = output.shape.back();
    }
    std::mt19937_64 rng(request.seed);
    std::uniform_int_distribution<int64_t> anyToken(0, result.vocab - 1);
    result.requests.resize(static_cast<size_t>(request.requests));
    for (RequestRecord& r : result.requests) {
        for (int64_t i = 0; i < request.batch * request.promptLength; ++i) r.prompt.push_back(anyToken(rng));
        r.tokens.resize(static_cast<size_t>(request.batch));
    }
    const bool batched = request.schedule == "batch";
    // One session (and reference) for batched requests; one per request for round-robin.
    const size_t sessions = batched ? 1 : result.requests.size();
    std::vector<ReferenceDecoder> references;
    if (request.check) {
        for (size_t i = 0; i < sessions; ++i) references.emplace_back(plans);
    }

    std::function<sim::DramTraffic()> dram;
    sim::runSystem(
        config, &result.trace, false,
        [&](driver::Driver& driver) {
            runtime::Runtime runtime(driver, request.watchdog, {config.host.cpuOpsPerCycle});
            std::vector<std::unique_ptr<runtime::KvSession>> session;
            for (size_t i = 0; i < sessions; ++i) {
                session.push_back(std::make_unique<runtime::KvSession>(runtime, driver, plans.prefill.artifact,
                                                                       plans.decode.artifact, plans.signature));
                result.cacheBytes += session.back()->cacheBytes();
            }
            result.cacheBytesPerToken = session.front()->bytesPerToken();
            result.sessionCacheBytes = session.front()->cacheBytes();
            result.startCycle = driver.nowCycles();
            // Runs a step of session `s`: the prefill of its request `first` (without `active`)
            // or a decode step of its `active` requests; records the step and, per request, the
            // tokens it chose; returns them all, the next step's input.
            const auto step = [&](size_t s, int64_t stepRequest, int64_t first, const Tensor& tokens,
                                  const std::vector<bool>* active) {
                GenerationStep record;
                record.prefill = active == nullptr;
                record.request = stepRequest;
                record.cacheLength = session[s]->length(first);
                const sim::DramTraffic before = dram();
                const runtime::StepOutput out =
                    record.prefill ? session[s]->prefill(first, tokens) : session[s]->decode(tokens, *active);
                const sim::DramTraffic after = dram();
                record.startCycle = out.timing.start;
                record.cycles = out.timing.end - out.timing.start;
                record.job = out.timing.job;
                record.dramRead = after.bytesRead - before.bytesRead;
                record.dramWritten = after.bytesWritten - before.bytesWritten;
                record.dramRowHits = after.rowHits - before.rowHits;
                record.dramRowMisses = after.rowMisses - before.rowMisses;
                record.tokens = chooseTokens(out.logits, request.sampler, rng);
                if (!references.empty()) {
                    const Tensor expected = record.prefill ? references[s].prefill(first, tokens) : references[s].decode(tokens, *active);
                    record.logitError = relativeError(out.logits, expected);
                    if (request.sampler == "greedy") {
                        std::mt19937_64 unused;
                        record.referenceAgrees = chooseTokens(expected, "greedy", unused) == record.tokens;
                    }
                }
                // Rows of requests the step did not advance are not theirs to keep.
                const int64_t rows = request.batch;
                for (size_t row = 0; row < record.tokens.size(); ++row) {
                    const auto owner = static_cast<size_t>(record.prefill || !batched ? stepRequest : static_cast<int64_t>(row) / rows);
                    if (active && !(*active)[batched ? owner : 0]) continue;
                    result.requests[owner].tokens[row % static_cast<size_t>(rows)].push_back(record.tokens[row]);
                    if (row % static_cast<size_t>(rows) == 0) result.requests[owner].tokenCycles.push_back(out.timing.end);
                }
                const std::vector<int64_t> chosen = record.tokens;
                result.steps.push_back(std::move(record));
                return chosen;
            };
            std::vector<std::vector<int64_t>> next(result.requests.size());
            for (size_t r = 0; r < result.requests.size(); ++r) {
                const size_t s = batched ? 0 : r;
                next[r] = step(s, static_cast<int64_t>(r), batched ? static_cast<int64_t>(r) : 0,
                               tokenTensor(result.requests[r].prompt, request.batch), nullptr);
            }
            for (int64_t t = 1; t < request.newTokens; ++t) {
                if (batched) {
                    std::vector<int64_t> all;
                    for (const std::vector<int64_t>& tokens : next) all.insert(all.end(), tokens.begin(), tokens.end());
                    const std::vector<bool> active(result.requests.size(), true);
                    const std::vector<int64_t> chosen = step(0, -1, 0, tokenTensor(all, request.batch * request.requests), &active);
                    for (size_t r = 0; r < next.size(); ++r) {
                        next[r].assign(chosen.begin() + static_cast<ptrdiff_t>(r) * request.batch,
                                       chosen.begin() + static_cast<ptrdiff_t>(r + 1) * request.batch);
                    }
                    continue;
                }
                const std::vector<bool> active{true};
                for (size_t r = 0; r < next.size(); ++r) {
                    next[r] = step(r, static_cast<int64_t>(r), 0, tokenTensor(next[r], request.batch), &active);
                }
            }
        },
        &dram);
    return result;
}

}  // namespace npusim::cli
