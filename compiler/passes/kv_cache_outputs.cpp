// Present outputs as the entries a decoder step appends to its KV cache.
#include "compiler/passes/kv_cache_outputs.h"

#include <algorithm>

#include "arch/error.h"

namespace npusim::compiler {

void presentsAsAppends(Graph& graph, std::span<const std::pair<std::string, std::string>> pairs) {
    for (const auto& [past, present] : pairs) {
        const auto output = std::find_if(graph.outputs.begin(), graph.outputs.end(),
                                         [&](ValueId id) { return graph.value(id).name == present; });
        if (output == graph.outputs.end()) throw InputError("the model has no output '" + present + "'");
        const int producer = graph.value(*output).producer;
        const Node* concat = producer < 0 ? nullptr : &graph.nodes.at(static_cast<size_t>(producer));
        const bool appends = concat && concat->kind == OpKind::Concat && concat->inputs.size() == 2 &&
                             graph.value(concat->inputs[0]).name == past && graph.value(concat->inputs[0]).producer < 0;
        if (!appends) {
            throw InputError("the present output '" + present + "' is not the past input '" + past +
                             "' concatenated with the new entries: the cache cannot be appended in place");
        }
        const ValueId added = concat->inputs[1];
        if (std::find(graph.outputs.begin(), graph.outputs.end(), added) != graph.outputs.end() ||
            std::find(graph.inputs.begin(), graph.inputs.end(), added) != graph.inputs.end()) {
            throw InputError("the new entries of '" + present + "' are themselves a graph input or output");
        }
        graph.value(*output).name = present + "/with_past";
        graph.value(*output).symbols.clear();
        graph.value(added).name = present;
        *output = added;
    }
}

}  // namespace npusim::compiler
