// ONNX node names made unique and nodes put in topological order (Kahn's algorithm, lowest file
// index first, so an already sorted file keeps its order).
#include "compiler/frontend/onnx_nodes.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "arch/error.h"

namespace npusim::compiler::frontend {
namespace {

/// For each node, the indices of the nodes producing its inputs (each listed once).
std::vector<std::vector<int>> producersOfInputs(const onnx::GraphProto& graph) {
    std::unordered_map<std::string, int> producer;
    for (int i = 0; i < graph.node_size(); ++i) {
        for (const std::string& output : graph.node(i).output()) {
            if (!output.empty()) producer.emplace(output, i);
        }
    }
    std::vector<std::vector<int>> producers(graph.node_size());
    for (int i = 0; i < graph.node_size(); ++i) {
        for (const std::string& input : graph.node(i).input()) {
            const auto it = producer.find(input);
            if (it == producer.end()) continue;
            std::vector<int>& list = producers[i];
            if (std::find(list.begin(), list.end(), it->second) == list.end()) {
                list.push_back(it->second);
            }
        }
    }
    return producers;
}

}  // namespace

bool isDefaultDomain(const std::string& domain) {
    return domain.empty() || domain == "ai.onnx";
}

std::string onnxNodeLabel(const onnx::NodeProto& node) {
    const std::string type =
        isDefaultDomain(node.domain()) ? node.op_type() : node.domain() + "." + node.op_type();
    return "op '" + node.name() + "' (" + type + ")";
}

void nameNodes(onnx::GraphProto& graph) {
    std::unordered_set<std::string> taken;
    for (const onnx::NodeProto& node : graph.node()) {
        if (!node.name().empty()) taken.insert(node.name());
    }
    std::unordered_set<std::string> seen;
    for (int i = 0; i < graph.node_size(); ++i) {
        onnx::NodeProto& node = *graph.mutable_node(i);
        if (!node.name().empty() && seen.insert(node.name()).second) continue;
        std::string base = node.name();
        if (base.empty()) {
            base = node.op_type();
            std::transform(base.begin(), base.end(), base.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            base += '_';
            base += std::to_string(i);
        }
        std::string name = base;
        for (int suffix = 1; taken.contains(name); ++suffix) {
            name = base + "_" + std::to_string(suffix);
        }
        taken.insert(name);
        node.set_name(name);
    }
}

void sortNodesTopologically(onnx::GraphProto& graph, const std::string& model) {
    const std::vector<std::vector<int>> producers = producersOfInputs(graph);
    const auto count = static_cast<int>(producers.size());
    std::vector<std::vector<int>> consumers(count);
    std::vector<size_t> pending(count);
    std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
    for (int i = 0; i < count; ++i) {
        for (int producer : producers[i]) consumers[producer].push_back(i);
        pending[i] = producers[i].size();
        if (pending[i] == 0) ready.push(i);
    }
    std::vector<int> order;
    while (!ready.empty()) {
        const int next = ready.top();
        ready.pop();
        order.push_back(next);
        for (int consumer : consumers[next]) {
            if (--pending[consumer] == 0) ready.push(consumer);
        }
    }

    if (static_cast<int>(order.size()) < count) {
        // Every node left waits on another node left; following those links must come back
        // to a node already visited, and that node is on a cycle.
        int node = static_cast<int>(
            std::find_if(pending.begin(), pending.end(), [](size_t p) { return p > 0; }) -
            pending.begin());
        std::vector<bool> visited(count);
        while (!visited[node]) {
            visited[node] = true;
            node = *std::find_if(producers[node].begin(), producers[node].end(),
                                 [&](int producer) { return pending[producer] > 0; });
        }
        throw InputError(model + ": the nodes form a cycle through " +
                         onnxNodeLabel(graph.node(node)));
    }

    bool alreadySorted = true;
    for (int i = 0; i < count; ++i) alreadySorted = alreadySorted && order[i] == i;
    if (alreadySorted) return;
    std::vector<onnx::NodeProto> sorted;
    sorted.reserve(count);
    for (int index : order) sorted.push_back(std::move(*graph.mutable_node(index)));
    graph.clear_node();
    for (onnx::NodeProto& node : sorted) *graph.add_node() = std::move(node);
}

}  // namespace npusim::compiler::frontend
