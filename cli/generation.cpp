// Compiling a KV-cache decoder's two plans and running a request through them.
#include "cli/generation.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <set>

#include "arch/checksum.h"
#include "arch/error.h"
#include "compiler/frontend/onnx_import.h"
#include "compiler/graph/interpreter.h"
#include "compiler/passes/kv_cache_outputs.h"
#include "cli/tensor_files.h"
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
    explicit ReferenceDecoder(const GenerationPlans& plans)
        : plans_(plans),
          rows_(input(plans.decode, plans.signature.tokens).shape[0], input(plans.prefills.front(), plans.signature.tokens).shape[0],
                plans.capacity) {
        std::vector<const compiler::Compilation*> all{&plans.decode};
        for (const compiler::Compilation& prefill : plans.prefills) all.push_back(&prefill);
        for (const compiler::Compilation* plan : all) {
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
    }

    Tensor prefill(int64_t request, const Tensor& prompt) {
        rows_.prefilled(request, prompt.shape[1]);
        return step(plans_.prefillFor(prompt.shape[1]), prompt, request * rows_.rowsPerRequest(),
                    std::vector<int64_t>(static_cast<size_t>(rows_.rowsPerRequest()), 0));
    }

    Tensor decode(const Tensor& tokens, const std::vector<bool>& active) {
        const std::vector<int64_t> slots = rows_.decodeSlots(active);
        const Tensor logits = step(plans_.decode, tokens, 0, slots);
        rows_.decoded(slots);
        return logits;
    }

private:
    static const TensorBinding& input(const compiler::Compilation& plan, const std::string& name) {
        return *runtime::findBinding(plan.artifact.manifest.inputs, name);
    }

    /// The last position's logits of a step (a prefill's inputs over no cache, a decode step's
    /// over the caches), its entries appended to the reference's caches from row `firstRow` on at
    /// `appendAt`.
    Tensor step(const compiler::Compilation& plan, const Tensor& tokens, int64_t firstRow, std::span<const int64_t> appendAt) {
        const ArtifactManifest& manifest = plan.artifact.manifest;
        const runtime::DecoderSignature& signature = plans_.signature;
        const bool prefill = &plan != &plans_.decode;
        std::map<std::string, Tensor> inputs = prefill ? runtime::prefillInputs(signature, manifest, tokens)
                                                       : runtime::decoderStepInputs(signature, manifest, tokens, plans_.capacity,
                                                                                    rows_.lengths());
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
    runtime::CacheRows rows_;
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

}  // namespace

const compiler::Compilation& GenerationPlans::prefillFor(int64_t promptLength) const {
    for (const compiler::Compilation& plan : prefills) {
        if (runtime::findBinding(plan.artifact.manifest.inputs, signature.tokens)->shape.at(1) == promptLength) return plan;
    }
    throw InputError("no prefill plan for a " + std::to_string(promptLength) + "-token prompt");
}

GenerationPlans compileGenerationPlans(const GenerationRequest& request, const ArchConfig& config,
                                       const compiler::CompileOptions& options) {
    if (request.batch < 1) throw InputError("--batch must be at least 1");
    if (request.requests < 1) throw InputError("--requests must be at least 1");
    if (request.capacity < 0) throw InputError("--capacity must be positive");
    for (const auto& [values, option] : {std::pair{&request.promptLengths, "--prompt-len"}, std::pair{&request.newTokens, "--new-tokens"}}) {
        if (values->size() != 1 && values->size() != static_cast<size_t>(request.requests)) {
            throw InputError(std::string(option) + " gives " + std::to_string(values->size()) + " values for " +
                             std::to_string(request.requests) + " requests: give one, or one per request");
        }
        for (int64_t value : *values) {
            if (value < 1) throw InputError(std::string(option) + " must be at least 1");
        }
    }
    if (request.schedule != "batch" && request.schedule != "round-robin") {
        throw InputError("--schedule '" + request.schedule + "' is not a schedule (batch, round-robin)");
    }
    if (request.sampler != "greedy" && request.sampler != "random") {
        throw InputError("--sampler '" + request.sampler + "' is not a sampler (greedy, random)");
    }
    if (options.precision.precision == compiler::Precision::Int8) {
        throw InputError("generate runs at fp32, bf16 or fp16: int8 would need calibration samples of every step's inputs");
    }
    // The last new token is chosen, not run: a cache holds its prompt and all but that one.
    int64_t needed = 0, longest = 0;
    std::set<int64_t> promptLengths;
    for (size_t r = 0; r < static_cast<size_t>(request.requests); ++r) {
        needed = std::max(needed, request.promptLength(r) + request.newTokenCount(r) - 1);
        longest = std::max(longest, request.promptLength(r) + request.newTokenCount(r));
        promptLengths.insert(request.promptLength(r));
    }
    const int64_t capacity = request.capacity > 0 ? request.capacity : longest;
    if (capacity < needed) {
        throw InputError("the KV cache's capacity of " + std::to_string(capacity) + " tokens is too small: a prompt and its new "
                         "tokens need " + std::to_string(needed) + " (raise --capacity)");
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
    std::map<std::string, int64_t> decode{{s.seqSymbol, 1}, {s.pastSymbol, capacity}, {s.totalSymbol, capacity + 1}};
    // Batched requests share the decode plan's rows; round-robin ones each load the plans.
    const int64_t decodeRows = request.batch * (request.schedule == "batch" ? request.requests : 1);
    if (!s.batchSymbol.empty()) {
        decode[s.batchSymbol] = decodeRows;
    } else {
        const TensorBinding* tokens = runtime::findBinding(onnx.inputs, s.tokens);
        if (tokens->shape.front() != request.batch || decodeRows != request.batch) {
            throw InputError("the model's batch is fixed at " + std::to_string(tokens->shape.front()) + "; --batch " +
                             std::to_string(request.batch) + (decodeRows != request.batch ? " with batched --requests" : "") +
                             " cannot run it");
        }
    }
    std::optional<runtime::PrefillSymbols> own;
    if (!request.prefillModel.empty()) {
        const compiler::OnnxInterface prefill = compiler::readOnnxInterface(request.prefillModel);
        own = runtime::checkPrefillSignature(prefill.inputs, prefill.outputs, s);
    }
    for (int64_t length : promptLengths) {
        std::map<std::string, int64_t> dims;
        if (own) {
            dims[own->seq] = length;
            if (!own->batch.empty()) dims[own->batch] = request.batch;
        } else {
            dims = {{s.seqSymbol, length}, {s.pastSymbol, 1}, {s.totalSymbol, length + 1}};
            if (!s.batchSymbol.empty()) dims[s.batchSymbol] = request.batch;
        }
        plans.prefills.push_back(compilePlan(own ? request.prefillModel : request.model, config, options, s, dims, !own,
                                             length > 1));
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
    for (size_t r = 0; r < result.requests.size(); ++r) {
        for (int64_t i = 0; i < request.batch * request.promptLength(r); ++i) result.requests[r].prompt.push_back(anyToken(rng));
        result.requests[r].tokens.resize(static_cast<size_t>(request.batch));
    }
    const bool batched = request.schedule == "batch";
    // One session (and reference) for batched requests; one per request for round-robin.
    const size_t sessions = batched ? 1 : result.requests.size();
    std::vector<ReferenceDecoder> references;
    if (request.check) {
        for (size_t i = 0; i < sessions; ++i) references.emplace_back(plans);
    }
    std::vector<const Artifact*> prefills;
    for (const compiler::Compilation& plan : plans.prefills) prefills.push_back(&plan.artifact);

    std::function<sim::DramTraffic()> dram;
    sim::runSystem(
        config, request.trace ? &result.trace : nullptr, false,
        [&](driver::Driver& driver) {
            runtime::Runtime runtime(driver, request.watchdog, {config.host.cpuOpsPerCycle});
            std::vector<std::unique_ptr<runtime::KvSession>> session;
            for (size_t i = 0; i < sessions; ++i) {
                session.push_back(std::make_unique<runtime::KvSession>(runtime, driver, prefills, plans.decode.artifact,
                                                                       plans.signature));
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
                    const TensorBinding logits{plans.signature.logits, DType::Fp32, expected.shape, 0, {}, -1};
                    record.logitError = compareOutputs({&logits, 1}, {&out.logits, 1}, {&expected, 1}, 0, 0).maxRelError;
                    if (request.sampler == "greedy") {
                        std::mt19937_64 unused;
                        record.referenceAgrees = chooseTokens(expected, "greedy", unused) == record.tokens;
                    }
                }
                // The rows of requests the step did not advance are no one's.
                const auto rows = static_cast<size_t>(request.batch);
                for (size_t row = 0; row < record.tokens.size(); ++row) {
                    const size_t owner = record.prefill || !batched ? static_cast<size_t>(stepRequest) : row / rows;
                    if (active && !(*active)[batched ? owner : 0]) continue;
                    result.requests[owner].tokens[row % rows].push_back(record.tokens[row]);
                    if (row % rows == 0) result.requests[owner].tokenCycles.push_back(out.timing.end);
                }
                const std::vector<int64_t> chosen = record.tokens;
                result.steps.push_back(std::move(record));
                return chosen;
            };
            const auto done = [&](size_t r) {
                return static_cast<int64_t>(result.requests[r].tokenCycles.size()) >= request.newTokenCount(r);
            };
            std::vector<std::vector<int64_t>> next(result.requests.size());
            for (size_t r = 0; r < result.requests.size(); ++r) {
                const size_t s = batched ? 0 : r;
                next[r] = step(s, static_cast<int64_t>(r), batched ? static_cast<int64_t>(r) : 0,
                               tokenTensor(result.requests[r].prompt, request.batch), nullptr);
            }
            for (;;) {
                std::vector<bool> active(result.requests.size());
                for (size_t r = 0; r < active.size(); ++r) active[r] = !done(r);
                if (std::none_of(active.begin(), active.end(), [](bool a) { return a; })) break;
                if (!batched) {  // each unfinished request's step in turn, in its own session
                    const std::vector<bool> itself{true};
                    for (size_t r = 0; r < next.size(); ++r) {
                        if (active[r]) next[r] = step(r, static_cast<int64_t>(r), 0, tokenTensor(next[r], request.batch), &itself);
                    }
                    continue;
                }
                // A finished request's rows run its last tokens again; nothing of theirs is kept.
                std::vector<int64_t> all;
                for (const std::vector<int64_t>& tokens : next) all.insert(all.end(), tokens.begin(), tokens.end());
                const std::vector<int64_t> chosen = step(0, -1, 0, tokenTensor(all, request.batch * request.requests), &active);
                for (size_t r = 0; r < next.size(); ++r) {
                    if (!active[r]) continue;
                    next[r].assign(chosen.begin() + static_cast<ptrdiff_t>(r) * request.batch,
                                   chosen.begin() + static_cast<ptrdiff_t>(r + 1) * request.batch);
                }
            }
        },
        &dram);
    return result;
}

}  // namespace npusim::cli
