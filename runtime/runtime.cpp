// Loading, input binding, execution and output read-back.
#include "runtime/runtime.h"

#include "arch/error.h"

namespace npusim::runtime {

Runtime::Runtime(driver::Driver& driver, uint64_t timeoutCycles)
    : driver_(driver), timeoutCycles_(timeoutCycles) {}

LoadedModel Runtime::load(Artifact artifact) {
    if (!artifact.sections.contains(kCommandsSection)) {
        throw InputError("artifact has no '" + std::string(kCommandsSection) + "' section");
    }
    LoadedModel model;
    model.context = driver_.createContext(artifact.manifest.dramBytes);
    const auto weights = artifact.sections.find(kWeightsSection);
    if (weights != artifact.sections.end() && !weights->second.empty()) {
        driver_.write(model.context, artifact.manifest.weightsOffset, weights->second);
    }
    model.commands = driver_.uploadCommands(artifact.sections.at(kCommandsSection));
    model.artifact = std::move(artifact);
    return model;
}

RunResult Runtime::run(const LoadedModel& model, const std::map<std::string, Tensor>& inputs) {
    const ArtifactManifest& manifest = model.artifact.manifest;
    for (const TensorBinding& binding : manifest.inputs) {
        const auto it = inputs.find(binding.name);
        if (it == inputs.end()) throw InputError("missing input '" + binding.name + "'");
        const Tensor& tensor = it->second;
        if (tensor.dtype != binding.dtype || tensor.shape != binding.shape) {
            throw InputError("input '" + binding.name + "': expected " +
                             std::string(dtypeName(binding.dtype)) + shapeString(binding.shape) +
                             ", got " + std::string(dtypeName(tensor.dtype)) +
                             shapeString(tensor.shape));
        }
        driver_.write(model.context, binding.dramOffset, tensor.bytes);
    }
    for (const auto& [name, tensor] : inputs) {
        bool known = false;
        for (const TensorBinding& binding : manifest.inputs) known = known || binding.name == name;
        if (!known) throw InputError("the model has no input named '" + name + "'");
    }

    RunResult result;
    result.job = driver_.run(model.context, model.commands, timeoutCycles_);
    for (const TensorBinding& binding : manifest.outputs) {
        Tensor output = Tensor::zeros(binding.dtype, binding.shape);
        driver_.read(model.context, binding.dramOffset, output.bytes);
        result.outputs.push_back(std::move(output));
    }
    return result;
}

void Runtime::unload(const LoadedModel& model) {
    driver_.releaseCommands(model.commands);
    driver_.destroyContext(model.context);
}

}  // namespace npusim::runtime
