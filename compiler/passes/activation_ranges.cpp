// int8 calibration: activation ranges from the reference interpreter, and their int8 scales.
#include "compiler/passes/activation_ranges.h"

#include <algorithm>
#include <cmath>

#include "arch/error.h"
#include "compiler/graph/interpreter.h"

namespace npusim::compiler {

QuantParams activationParams(ActivationRange range, ActivationScheme scheme) {
    const double low = std::min(range.min, 0.0), high = std::max(range.max, 0.0);
    QuantParams q;
    if (scheme == ActivationScheme::Symmetric) {
        const double magnitude = std::max(-low, high);
        q.scale = magnitude > 0 ? static_cast<float>(magnitude / 127.0) : 1.0f;
        return q;
    }
    if (high - low <= 0) return q;
    q.scale = static_cast<float>((high - low) / 255.0);
    q.zeroPoint = static_cast<int8_t>(std::clamp(std::nearbyint(-128.0 - low / q.scale), -128.0, 127.0));
    return q;
}

std::map<ValueId, ActivationRange> calibrateRanges(const Graph& graph, const std::set<ValueId>& values,
                                                   std::span<const CalibrationSet> sets, const QuantizationOptions& options) {
    std::map<ValueId, ActivationRange> ranges;
    if (values.empty()) return ranges;  // nothing to quantise: no run needed
    const auto observe = [&](ValueId id, const Tensor& tensor) {
        if (!values.contains(id) || tensor.dtype != DType::Fp32 || tensor.elementCount() == 0) return;
        std::vector<float> x(tensor.as<float>().begin(), tensor.as<float>().end());
        if (!std::all_of(x.begin(), x.end(), [](float v) { return std::isfinite(v); })) {
            throw InputError("calibration: '" + graph.value(id).name +
                             "' has NaN or infinite values, which int8 cannot hold (a sample with such inputs?)");
        }
        ActivationRange range;
        if (options.method == CalibrationMethod::MinMax) {
            const auto [low, high] = std::minmax_element(x.begin(), x.end());
            range = {*low, *high};
        } else {
            const auto rank = [&](double fraction) {
                const auto k = static_cast<size_t>(std::llround(fraction * static_cast<double>(x.size() - 1)));
                std::nth_element(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(k), x.end());
                return static_cast<double>(x[k]);
            };
            range = {rank(1.0 - options.percentile / 100.0), rank(options.percentile / 100.0)};
        }
        auto [it, fresh] = ranges.try_emplace(id, range);
        if (fresh) return;
        if (options.method == CalibrationMethod::MinMax) {
            it->second = {std::min(it->second.min, range.min), std::max(it->second.max, range.max)};
        } else {  // summed here, divided by the number of sets below
            it->second = {it->second.min + range.min, it->second.max + range.max};
        }
    };
    for (const CalibrationSet& set : sets) {
        for (ValueId id : graph.inputs) {
            if (const auto input = set.find(graph.value(id).name); input != set.end()) observe(id, input->second);
        }
        interpretGraph(graph, set, [&](const Node& node, std::span<const Tensor> outputs) {
            for (size_t i = 0; i < outputs.size(); ++i) observe(node.outputs[i], outputs[i]);
        });
    }
    if (options.method == CalibrationMethod::Percentile) {
        for (auto& [id, range] : ranges) range = {range.min / static_cast<double>(sets.size()), range.max / static_cast<double>(sets.size())};
    }
    return ranges;
}

}  // namespace npusim::compiler
