// Einsum: each output element is the sum, over every value of the labels the output lacks, of
// the product of the operands' elements those labels (and the output's) pick. A label repeated in
// an operand takes its diagonal. Floats are summed in double and rounded once; integers wrap.
#include "compiler/graph/einsum.h"

#include <algorithm>
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

constexpr std::string_view kEllipsis = "...";

/// The equation without spaces, split at "->" (output nullopt when implicit) and ','.
std::pair<std::vector<std::string>, std::optional<std::string>> splitEquation(const Node& node) {
    std::string text = stringAttr(node, "equation", "");
    std::erase(text, ' ');
    std::optional<std::string> output;
    if (const size_t arrow = text.find("->"); arrow != std::string::npos) {
        output = text.substr(arrow + 2);
        text.resize(arrow);
    }
    std::vector<std::string> inputs;
    for (size_t start = 0;;) {
        const size_t comma = text.find(',', start);
        inputs.push_back(text.substr(start, comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return {inputs, output};
}

/// `term` with its ellipsis replaced by the last `count` of the ellipsis labels.
std::string expandEllipsis(const Node& node, const std::string& term, size_t count, size_t ellipsisRank) {
    const size_t at = term.find(kEllipsis);
    if (at == std::string::npos) return term;
    if (term.find(kEllipsis, at + 1) != std::string::npos) opError(node, "'" + term + "' has more than one ellipsis");
    std::string labels;
    for (size_t i = ellipsisRank - count; i < ellipsisRank; ++i) labels += static_cast<char>('0' + i);
    return term.substr(0, at) + labels + term.substr(at + kEllipsis.size());
}

bool isLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

}  // namespace

std::string EinsumEquation::contracted() const {
    std::string labels;
    for (const std::string& input : inputs) {
        for (char c : input) {
            if (output.find(c) == std::string::npos && labels.find(c) == std::string::npos) labels += c;
        }
    }
    return labels;
}

Shape EinsumEquation::outputShape() const {
    Shape shape;
    for (char c : output) shape.push_back(sizes.at(c));
    return shape;
}

EinsumEquation parseEinsum(const Node& node, const std::vector<Shape>& shapes) {
    auto [terms, output] = splitEquation(node);
    if (terms.size() != shapes.size()) {
        opError(node, "the equation names " + std::to_string(terms.size()) + " operands, the node has " +
                          std::to_string(shapes.size()));
    }
    // Dims each operand's ellipsis covers; the widest sets the ellipsis labels.
    std::vector<size_t> covered(terms.size(), 0);
    size_t ellipsisRank = 0;
    for (size_t i = 0; i < terms.size(); ++i) {
        std::string letters = terms[i];
        if (const size_t at = letters.find(kEllipsis); at != std::string::npos) letters.erase(at, kEllipsis.size());
        if (!std::all_of(letters.begin(), letters.end(), isLetter)) opError(node, "'" + terms[i] + "' holds a label that is not a letter");
        const bool hasEllipsis = terms[i].find(kEllipsis) != std::string::npos;
        if (hasEllipsis ? letters.size() > shapes[i].size() : letters.size() != shapes[i].size()) {
            opError(node, "operand " + std::to_string(i) + " '" + terms[i] + "' does not fit its shape " + shapeString(shapes[i]));
        }
        covered[i] = hasEllipsis ? shapes[i].size() - letters.size() : 0;
        ellipsisRank = std::max(ellipsisRank, covered[i]);
    }
    if (ellipsisRank > 10) opError(node, "an ellipsis covers more than 10 dims");
    EinsumEquation e;
    for (size_t i = 0; i < terms.size(); ++i) {
        e.inputs.push_back(expandEllipsis(node, terms[i], covered[i], ellipsisRank));
        for (size_t d = 0; d < shapes[i].size(); ++d) {
            const char label = e.inputs[i][d];
            auto [it, added] = e.sizes.emplace(label, shapes[i][d]);
            if (!added && it->second != shapes[i][d] && it->second != 1 && shapes[i][d] != 1) {
                opError(node, "label '" + std::string(1, label) + "' has sizes " + std::to_string(it->second) + " and " +
                                  std::to_string(shapes[i][d]));
            }
            it->second = std::max(it->second, shapes[i][d]);
        }
    }
    if (output) {
        e.output = expandEllipsis(node, *output, ellipsisRank, ellipsisRank);
    } else {
        for (size_t i = 0; i < ellipsisRank; ++i) e.output += static_cast<char>('0' + i);
        std::string once;
        for (const auto& [label, size] : e.sizes) {
            size_t uses = 0;
            for (const std::string& input : e.inputs) uses += static_cast<size_t>(std::count(input.begin(), input.end(), label));
            if (isLetter(label) && uses == 1) once += label;
        }
        e.output += once;  // the map holds them in ASCII order
    }
    for (char c : e.output) {
        if (!e.sizes.contains(c) || std::count(e.output.begin(), e.output.end(), c) != 1) {
            opError(node, "output label '" + std::string(1, c) + "' must appear once in the output and in some operand");
        }
    }
    return e;
}

void inferEinsum(Graph& graph, const Node& node) {
    checkArity(graph, node);
    std::vector<Shape> shapes;
    const DType dtype = graph.value(node.inputs[0]).dtype;
    requireDType(node, "Inputs", dtype, kNumericDTypes);
    for (ValueId id : node.inputs) {
        requireSameDType(node, "an operand", graph.value(id).dtype, "the first", dtype);
        shapes.push_back(graph.value(id).shape);
    }
    setOutput(graph, node, dtype, parseEinsum(node, shapes).outputShape());
}

std::vector<Tensor> interpretEinsum(const Node& node, std::span<const Tensor* const> inputs) {
    std::vector<Shape> shapes;
    for (const Tensor* input : inputs) shapes.push_back(input->shape);
    const EinsumEquation e = parseEinsum(node, shapes);
    // Every label, the output's first: one position of this space per term of the sums.
    const std::string labels = e.output + e.contracted();
    Shape space;
    for (char c : labels) space.push_back(e.sizes.at(c));
    // Per operand and label, its stride in the operand (summed over repeats, 0 where broadcast).
    std::vector<std::vector<int64_t>> strides;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const std::vector<int64_t> dense = rowMajorStrides(shapes[i]);
        std::vector<int64_t> perLabel(labels.size(), 0);
        for (size_t d = 0; d < shapes[i].size(); ++d) {
            if (shapes[i][d] != 1) perLabel[labels.find(e.inputs[i][d])] += dense[d];
        }
        strides.push_back(std::move(perLabel));
    }
    const int64_t outputCount = elementCount(e.outputShape());
    const int64_t terms = elementCount(space) / std::max<int64_t>(outputCount, 1);
    const bool real = isFloat(inputs[0]->dtype);
    std::vector<std::vector<double>> reals;
    std::vector<std::vector<int64_t>> integers;
    for (const Tensor* input : inputs) {
        if (real) reals.push_back(floatValues(*input));
        else integers.push_back(integerValues(*input));
    }
    std::vector<double> realSums(static_cast<size_t>(outputCount), 0.0);
    std::vector<int64_t> integerSums(static_cast<size_t>(outputCount), 0);
    int64_t term = 0;
    forEachPosition(space, [&](const std::vector<int64_t>& position) {
        double realProduct = 1;
        int64_t integerProduct = 1;
        for (size_t i = 0; i < inputs.size(); ++i) {
            int64_t at = 0;
            for (size_t l = 0; l < labels.size(); ++l) at += position[l] * strides[i][l];
            if (real) realProduct *= reals[i][at];
            else integerProduct = wrappingMul(integerProduct, integers[i][at]);
        }
        const int64_t out = term++ / terms;
        if (real) realSums[out] += realProduct;
        else integerSums[out] = wrappingAdd(integerSums[out], integerProduct);
    });
    if (real) return {floatTensor(inputs[0]->dtype, e.outputShape(), realSums)};
    return {integerTensor(inputs[0]->dtype, e.outputShape(), integerSums)};
}

}  // namespace npusim::compiler::ops
