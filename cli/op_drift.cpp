#include "cli/op_drift.h"

#include <cmath>

#include "compiler/graph/interpreter.h"

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
            double largest = 0, worst = 0, dot = 0, got2 = 0, want2 = 0;
            for (int64_t k = 0; k < outputs[i].elementCount(); ++k) {
                const double x = outputs[i].valueAt(k), y = want->second.valueAt(k);
                if (std::isnan(x) != std::isnan(y)) worst = INFINITY;
                if (!std::isfinite(x) || !std::isfinite(y)) continue;
                largest = std::max(largest, std::fabs(y));
                worst = std::max(worst, std::fabs(x - y));
                dot += x * y;
                got2 += x * x;
                want2 += y * y;
            }
            const double cosine = got2 == 0 && want2 == 0 ? 1.0 : got2 == 0 || want2 == 0 ? 0.0 : dot / std::sqrt(got2 * want2);
            drift[name] = {producer.at(name), name, largest > 0 ? worst / largest : worst, cosine};
        }
    });
    std::vector<reports::OpDrift> ordered;
    for (const std::string& name : order) {
        if (const auto found = drift.find(name); found != drift.end()) ordered.push_back(found->second);
    }
    return ordered;
}

}  // namespace npusim::cli
