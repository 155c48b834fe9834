#include "cli/op_drift.h"

#include "compiler/graph/interpreter.h"
#include "cli/tensor_files.h"

namespace npusim::cli {

std::vector<reports::OpDrift> opDrift(const compiler::Graph& reference, const compiler::Graph& program,
                                      const std::map<std::string, Tensor>& inputs) {
    // The reference's float op results by value name, and which op computed each.
    std::map<std::string, Tensor> expected;
    std::map<std::string, std::string> producer;
    std::vector<std::string> order;
    compiler::interpretGraph(reference, inputs, [&](const compiler::Node& node, std::span<const Tensor> outputs) {
        for (size_t i = 0; i < outputs.size(); ++i) {
            if (!isFloat(outputs[i].dtype)) continue;
            const std::string& name = reference.value(node.outputs[i]).name;
            expected.emplace(name, outputs[i]);
            producer[name] = node.name;
            order.push_back(name);
        }
    });
    std::map<std::string, reports::OpDrift> drift;
    compiler::interpretGraph(program, inputs, [&](const compiler::Node& node, std::span<const Tensor> outputs) {
        for (size_t i = 0; i < outputs.size(); ++i) {
            const std::string& name = program.value(node.outputs[i]).name;
            const auto want = expected.find(name);
            if (want == expected.end() || want->second.shape != outputs[i].shape || !isFloat(outputs[i].dtype)) continue;
            TensorBinding binding;
            binding.name = name;
            const reports::OutputAccuracy a = compareOutputs({&binding, 1}, {&outputs[i], 1}, {&want->second, 1}, 0, 0).outputs.at(0);
            drift[name] = {producer.at(name), name, a.maxRelError, a.cosine};
        }
    });
    std::vector<reports::OpDrift> ordered;
    for (const std::string& name : order) {
        if (const auto found = drift.find(name); found != drift.end()) ordered.push_back(found->second);
    }
    return ordered;
}

}  // namespace npusim::cli
