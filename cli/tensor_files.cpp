// Input/output files and output comparison.
#include "cli/tensor_files.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "arch/error.h"
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
        if (a.shape != e.shape) {
            result.passed = false;
            result.maxAbsError = INFINITY;
            result.worstOutput = bindings[i].name;
            continue;
        }
        const bool exact = !isFloat(e.dtype);
        double largest = 0, worst = 0;
        for (int64_t k = 0; k < e.elementCount(); ++k) {
            const double x = a.valueAt(k), y = e.valueAt(k);
            const double error = x == y                            ? 0
                                 : std::isnan(x) != std::isnan(y) ? INFINITY
                                 : std::isnan(y)                  ? 0
                                                                  : std::fabs(x - y);
            result.passed = result.passed && (exact ? x == y : error == 0 || error <= atol + rtol * std::fabs(y));
            largest = std::max(largest, std::fabs(y));
            worst = std::max(worst, error);
        }
        if (result.worstOutput.empty() || worst > result.maxAbsError) {
            result.maxAbsError = worst;
            result.worstOutput = bindings[i].name;
        }
        // Relative to the output's largest magnitude: elements near zero do not inflate it.
        result.maxRelError = std::max(result.maxRelError, largest > 0 ? worst / largest : worst);
    }
    return result;
}

}  // namespace npusim::cli
