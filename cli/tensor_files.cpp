// Input/output files and output comparison.
#include "cli/tensor_files.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "arch/error.h"
#include "arch/float_formats.h"
#include "compiler/frontend/tensor_proto.h"
#include "cli/npy.h"

namespace npusim::cli {
namespace {

Tensor readTensorFile(const std::filesystem::path& directory, const TensorBinding& binding,
                      const std::string& protoName, const char* what) {
    const std::string& name = binding.name;
    const std::filesystem::path npy = directory / (name + ".npy");
    const std::filesystem::path proto = directory / protoName;
    if (std::filesystem::exists(npy)) return readNpy(npy, binding.dtype);
    if (std::filesystem::exists(proto)) return compiler::readTensorProto(proto, binding.dtype);
    throw InputError("no file for " + std::string(what) + " '" + name + "' in '" + directory.string() +
                     "' (expected " + name + ".npy or " + protoName + ")");
}

void requireMatch(const TensorBinding& binding, const Tensor& tensor, const char* what) {
    if (tensor.dtype != binding.dtype || tensor.shape != binding.shape) {
        throw InputError(std::string(what) + " '" + binding.name + "': expected " +
                         std::string(dtypeName(binding.dtype)) + shapeString(binding.shape) + ", got " +
                         std::string(dtypeName(tensor.dtype)) + shapeString(tensor.shape));
    }
}

void requireDirectory(const std::filesystem::path& directory) {
    if (!std::filesystem::is_directory(directory)) {
        throw InputError("'" + directory.string() + "' is not a directory");
    }
}

/// Over the rows of class scores (the last dim), the share of rows whose highest score is the
/// reference's, and whose reference class is among the five highest scores.
std::pair<double, double> classAgreement(const Tensor& actual, const Tensor& expected) {
    const auto classes = static_cast<size_t>(expected.shape.back());
    const size_t rows = static_cast<size_t>(expected.elementCount()) / classes;
    if (rows == 0) return {1.0, 1.0};
    size_t top1 = 0, top5 = 0;
    std::vector<std::pair<double, size_t>> scores(classes);
    for (size_t row = 0; row < rows; ++row) {
        size_t reference = 0;
        for (size_t c = 0; c < classes; ++c) {
            const auto index = static_cast<int64_t>(row * classes + c);
            const double score = actual.valueAt(index);
            scores[c] = {std::isnan(score) ? -INFINITY : score, c};
            if (expected.valueAt(index) > expected.valueAt(static_cast<int64_t>(row * classes + reference))) reference = c;
        }
        // Highest first; ties by class, as an argmax takes the first.
        std::partial_sort(scores.begin(), scores.begin() + 5, scores.end(),
                          [](const auto& x, const auto& y) { return x.first > y.first || (x.first == y.first && x.second < y.second); });
        top1 += scores[0].second == reference ? 1 : 0;
        top5 += std::any_of(scores.begin(), scores.begin() + 5, [&](const auto& s) { return s.second == reference; }) ? 1 : 0;
    }
    return {static_cast<double>(top1) / static_cast<double>(rows), static_cast<double>(top5) / static_cast<double>(rows)};
}

}  // namespace

std::map<std::string, Tensor> readInputs(const std::filesystem::path& directory,
                                         std::span<const TensorBinding> bindings, const std::string& anySize) {
    requireDirectory(directory);
    std::map<std::string, Tensor> inputs;
    for (size_t i = 0; i < bindings.size(); ++i) {
        Tensor tensor = readTensorFile(directory, bindings[i], "input_" + std::to_string(i) + ".pb", "input");
        TensorBinding binding = bindings[i];
        for (size_t d = 0; d < binding.symbols.size() && d < tensor.shape.size() && d < binding.shape.size(); ++d) {
            if (!anySize.empty() && binding.symbols[d] == anySize) binding.shape[d] = tensor.shape[d];
        }
        requireMatch(binding, tensor, "input");
        inputs.emplace(bindings[i].name, std::move(tensor));
    }
    return inputs;
}

std::vector<compiler::CalibrationSet> readCalibrationSets(const std::filesystem::path& directory, const compiler::Graph& graph) {
    requireDirectory(directory);
    std::vector<std::filesystem::path> samples;
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
        if (entry.is_directory()) samples.push_back(entry.path());
    }
    if (samples.empty()) {
        throw InputError(directory.string() + " holds no sample directories (one subdirectory of inputs per sample)");
    }
    std::sort(samples.begin(), samples.end());
    std::vector<TensorBinding> bindings;
    for (compiler::ValueId id : graph.inputs) {
        const compiler::Value& value = graph.value(id);
        bindings.push_back({value.name, value.dtype, value.shape, 0, value.symbols});
    }
    std::vector<compiler::CalibrationSet> sets;
    for (const std::filesystem::path& sample : samples) sets.push_back(readInputs(sample, bindings));
    return sets;
}

std::map<std::string, Tensor> randomInputs(std::span<const TensorBinding> bindings, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::map<std::string, Tensor> inputs;
    for (const TensorBinding& binding : bindings) {
        Tensor tensor = Tensor::zeros(binding.dtype, binding.shape);
        switch (binding.dtype) {
            case DType::Fp32: {
                std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
                for (float& v : tensor.as<float>()) v = uniform(rng);
                break;
            }
            case DType::Fp16:
            case DType::Bf16: {
                std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
                const bool half = binding.dtype == DType::Fp16;
                for (uint16_t& v : tensor.as<uint16_t>()) v = half ? floatToFp16(uniform(rng)) : floatToBf16(uniform(rng));
                break;
            }
            case DType::Int8:
                for (int8_t& v : tensor.as<int8_t>()) v = static_cast<int8_t>(rng() % 256 - 128);
                break;
            case DType::UInt8:
                for (uint8_t& v : tensor.as<uint8_t>()) v = static_cast<uint8_t>(rng() % 256);
                break;
            case DType::Int32:
                for (int32_t& v : tensor.as<int32_t>()) v = static_cast<int32_t>(rng() % 2001) - 1000;
                break;
            default:
                throw InputError("input '" + binding.name + "': cannot make random " +
                                 std::string(dtypeName(binding.dtype)) + " values; give --inputs DIR");
        }
        inputs.emplace(binding.name, std::move(tensor));
    }
    return inputs;
}

std::vector<Tensor> readExpectedOutputs(const std::filesystem::path& directory, std::span<const TensorBinding> bindings,
                                        std::span<const TensorBinding> sizes) {
    requireDirectory(directory);
    std::vector<Tensor> outputs;
    for (size_t i = 0; i < bindings.size(); ++i) {
        Tensor tensor = readTensorFile(directory, bindings[i], "output_" + std::to_string(i) + ".pb", "output");
        // A data-dependent dim holds what the run gives, up to the binding's bound.
        TensorBinding binding = bindings[i];
        for (size_t d = 0; d < binding.symbols.size() && d < tensor.shape.size(); ++d) {
            const bool sized = std::any_of(sizes.begin(), sizes.end(), [&](const TensorBinding& s) { return s.name == binding.symbols[d]; });
            if (sized && tensor.shape[d] <= binding.shape[d]) binding.shape[d] = tensor.shape[d];
        }
        requireMatch(binding, tensor, "expected output");
        outputs.push_back(std::move(tensor));
    }
    return outputs;
}

void writeOutputs(OutputFiles& files, const std::filesystem::path& directory,
                  std::span<const TensorBinding> bindings, std::span<const Tensor> outputs) {
    files.makeDirectory(directory);
    for (size_t i = 0; i < bindings.size(); ++i) {
        files.stage(directory / (bindings[i].name + ".npy"), npyBytes(outputs[i]));
    }
}

reports::CheckResult compareOutputs(std::span<const TensorBinding> bindings, std::span<const Tensor> actual,
                                    std::span<const Tensor> expected, double rtol, double atol) {
    reports::CheckResult result;
    result.passed = true;
    for (size_t i = 0; i < bindings.size(); ++i) {
        const Tensor& a = actual[i];
        const Tensor& e = expected[i];
        reports::OutputAccuracy accuracy{bindings[i].name};
        if (a.shape != e.shape) {
            result.passed = false;
            result.maxAbsError = INFINITY;
            result.worstOutput = bindings[i].name;
            accuracy.maxAbsError = accuracy.maxRelError = INFINITY;
            accuracy.snrDb = -INFINITY;
            accuracy.cosine = 0;
            result.outputs.push_back(accuracy);
            continue;
        }
        const bool exact = !isFloat(e.dtype);
        double largest = 0, worst = 0, signal = 0, noise = 0, dot = 0, actualPower = 0;
        for (int64_t k = 0; k < e.elementCount(); ++k) {
            const double x = a.valueAt(k), y = e.valueAt(k);
            const double error = x == y                            ? 0
                                 : std::isnan(x) != std::isnan(y) ? INFINITY
                                 : std::isnan(y)                  ? 0
                                                                  : std::fabs(x - y);
            result.passed = result.passed && (exact ? x == y : error == 0 || error <= atol + rtol * std::fabs(y));
            largest = std::max(largest, std::fabs(y));
            worst = std::max(worst, error);
            if (std::isfinite(x) && std::isfinite(y)) {
                signal += y * y;
                noise += (x - y) * (x - y);
                dot += x * y;
                actualPower += x * x;
            }
        }
        if (result.worstOutput.empty() || worst > result.maxAbsError) {
            result.maxAbsError = worst;
            result.worstOutput = bindings[i].name;
        }
        // Relative to the output's largest magnitude: elements near zero do not inflate it.
        accuracy.maxAbsError = worst;
        accuracy.maxRelError = largest > 0 ? worst / largest : worst;
        result.maxRelError = std::max(result.maxRelError, accuracy.maxRelError);
        accuracy.snrDb = noise == 0 ? INFINITY : signal == 0 ? -INFINITY : 10 * std::log10(signal / noise);
        accuracy.cosine = signal == 0 && actualPower == 0 ? 1.0
                          : signal == 0 || actualPower == 0 ? 0.0
                                                            : dot / std::sqrt(signal * actualPower);
        if (isFloat(e.dtype) && (e.shape.size() == 2 || e.shape.size() == 3) && e.shape.back() >= 5) {
            const auto [top1, top5] = classAgreement(a, e);
            accuracy.top1 = top1;
            accuracy.top5 = top5;
        }
        result.outputs.push_back(accuracy);
    }
    return result;
}

}  // namespace npusim::cli
