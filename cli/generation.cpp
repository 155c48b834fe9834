// Compiling a KV-cache decoder's two plans and running a request through them.
#include "cli/generation.h"

#include <algorithm>
#include <cmath>
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

/// One plan: the model at `dims`, its presents as appends, compiled.
compiler::Compilation compilePlan(const GenerationRequest& request, const ArchConfig& config,
                                  const compiler::CompileOptions& options, const runtime::DecoderSignature& signature,
                                  const std::map<std::string, int64_t>& dims) {
    compiler::CompileOptions sized = options;
    for (const auto& [symbol, size] : dims) sized.dims[symbol] = size;
    compiler::Graph graph = compiler::importOnnx(request.model, sized.bindings, sized.dims);
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const runtime::KvPair& pair : signature.kv) pairs.emplace_back(pair.past, pair.present);
    compiler::presentsAsAppends(graph, pairs);
    return compiler::compileGraph(std::move(graph), config, request.model.stem().string(),
                                  fileSha256(request.model.string()), sized);
}

/// The step's reference: the same plans' graphs on the interpreter, with a cache of their own.
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
            for (const TensorBinding& input : plans.decode.artifact.manifest.inputs) {
                if (input.name == pair.past) caches_.push_back(Tensor::zeros(input.dtype, input.shape));
            }
        }
    }

    /// The last position's logits of a step, its entries appended to the reference's cache.
    Tensor step(bool prefill, const Tensor& tokens, int64_t length) {
        const compiler::Compilation& plan = prefill ? plans_.prefill : plans_.decode;
        const ArtifactManifest& manifest = plan.artifact.manifest;
        const runtime::DecoderSignature& signature = plans_.signature;
        std::map<std::string, Tensor> inputs =
            runtime::decoderStepInputs(signature, manifest, tokens, prefill ? 1 : plans_.capacity, length);
        for (size_t k = 0; k < signature.kv.size(); ++k) {
            for (const TensorBinding& input : manifest.inputs) {
                if (input.name != signature.kv[k].past) continue;
                inputs[input.name] = prefill ? Tensor::zeros(input.dtype, input.shape) : caches_[k];
            }
        }
        const std::vector<Tensor> outputs = compiler::interpretGraph(plan.source, inputs);
        for (size_t k = 0; k < signature.kv.size(); ++k) {
            for (size_t o = 0; o < manifest.outputs.size(); ++o) {
                if (manifest.outputs[o].name == signature.kv[k].present) {
                    runtime::appendEntries(caches_[k], outputs[o], signature.kv[k].axis, length);
                }
            }
        }
        return runtime::lastLogits(signature, manifest, outputs);
    }

private:
    const GenerationPlans& plans_;
    std::vector<Tensor> caches_;  ///< per KV pair, at the decode plan's capacity
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
    if (!s.batchSymbol.empty()) {
        prefill[s.batchSymbol] = decode[s.batchSymbol] = request.batch;
    } else {
        for (const TensorBinding& input : onnx.inputs) {
            if (input.name == s.tokens && input.shape.front() != request.batch) {
                throw InputError("the model's batch is fixed at " + std::to_string(input.shape.front()) + "; --batch " +
                                 std::to_string(request.batch) + " cannot run it");
            }
        }
    }
    plans.prefill = compilePlan(request, config, options, s, prefill);
    plans.decode = compilePlan(request, config, options, s, decode);
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
    for (int64_t i = 0; i < request.batch * request.promptLength; ++i) result.prompt.push_back(anyToken(rng));
    std::optional<ReferenceDecoder> reference;
    if (request.check) reference.emplace(plans);

    std::function<sim::DramTraffic()> dram;
    sim::runSystem(
        config, nullptr, false,
        [&](driver::Driver& driver) {
            runtime::Runtime runtime(driver, request.watchdog, {config.host.cpuOpsPerCycle});
            runtime::KvSession session(runtime, driver, plans.prefill.artifact, plans.decode.artifact, plans.signature);
            result.cacheBytes = session.cacheBytes();
            result.cacheBytesPerToken = session.bytesPerToken();
            const auto step = [&](bool prefill, const Tensor& tokens) {
                GenerationStep s;
                s.prefill = prefill;
                s.cacheLength = session.length();
                const sim::DramTraffic before = dram();
                const runtime::StepOutput out = prefill ? session.prefill(tokens) : session.decode(tokens);
                const sim::DramTraffic after = dram();
                s.startCycle = out.timing.start;
                s.cycles = out.timing.end - out.timing.start;
                s.jobCycles = out.timing.job.cycles;
                s.dramRead = after.bytesRead - before.bytesRead;
                s.dramWritten = after.bytesWritten - before.bytesWritten;
                s.tokens = chooseTokens(out.logits, request.sampler, rng);
                if (reference) {
                    const Tensor expected = reference->step(prefill, tokens, s.cacheLength);
                    s.logitError = relativeError(out.logits, expected);
                    if (request.sampler == "greedy") {
                        std::mt19937_64 unused;
                        s.referenceAgrees = chooseTokens(expected, "greedy", unused) == s.tokens;
                    }
                }
                result.steps.push_back(s);
                return tokenTensor(s.tokens, request.batch);
            };
            Tensor next = step(true, tokenTensor(result.prompt, request.batch));
            for (int64_t t = 1; t < request.newTokens; ++t) next = step(false, next);
        },
        &dram);
    return result;
}

}  // namespace npusim::cli
