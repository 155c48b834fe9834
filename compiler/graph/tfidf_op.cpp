// TfIdfVectorizer (integer inputs): per row of X ([C] or [N, C]), counts of the pool's n-grams,
// each read as items i, i + d, ..., i + (L - 1) d for every skip distance d from 1 to
// max_skip_count + 1 (unigrams counted at d = 1 only), written to the n-gram's column; TF gives
// the counts, IDF the weight (1 without weights) where a count is positive, TFIDF the count
// times the weight. As ONNX's reference (a trie over the pool) computes it.
#include <algorithm>
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_attributes.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

std::vector<double> doubleListAttr(const Node& node, const std::string& key) {
    const auto it = node.attributes.find(key);
    if (it == node.attributes.end()) return {};
    const auto* values = std::get_if<std::vector<double>>(&it->second);
    if (!values) opError(node, "attribute '" + key + "' must be a list of floats");
    return *values;
}

}  // namespace

TfIdfPool tfIdfPool(const Node& node) {
    TfIdfPool pool;
    const std::string mode = stringAttr(node, "mode", "");
    if (mode != "TF" && mode != "IDF" && mode != "TFIDF") opError(node, "mode '" + mode + "' is not one of TF, IDF, TFIDF");
    pool.mode = mode == "TF" ? TfIdfPool::Mode::TermFrequency
                : mode == "IDF" ? TfIdfPool::Mode::InverseDocumentFrequency
                                : TfIdfPool::Mode::Both;
    if (node.attributes.contains("pool_strings")) opError(node, "pool_strings (string n-grams) are not supported");
    pool.minLength = node.intAttr("min_gram_length", 0);
    const int64_t maxLength = node.intAttr("max_gram_length", 0);
    pool.maxSkip = node.intAttr("max_skip_count", 0);
    if (pool.minLength < 1 || maxLength < pool.minLength || pool.maxSkip < 0) {
        opError(node, "min_gram_length, max_gram_length and max_skip_count must satisfy 1 <= min <= max and skip >= 0");
    }
    const std::vector<int64_t> items = intListAttr(node, "pool_int64s"), counts = intListAttr(node, "ngram_counts");
    const std::vector<int64_t> columns = intListAttr(node, "ngram_indexes");
    if (columns.empty()) opError(node, "ngram_indexes is missing");
    pool.columns = *std::max_element(columns.begin(), columns.end()) + 1;
    // ngram_counts[L - 1] is where the n-grams of length L start in the pool.
    size_t next = 0;
    for (size_t length = 1; length <= counts.size(); ++length) {
        const int64_t begin = counts[length - 1];
        const int64_t end = length < counts.size() ? counts[length] : static_cast<int64_t>(items.size());
        if (begin < 0 || end < begin || end > static_cast<int64_t>(items.size()) || (end - begin) % static_cast<int64_t>(length)) {
            opError(node, "ngram_counts " + std::to_string(begin) + " to " + std::to_string(end) + " do not split the pool into " +
                              std::to_string(length) + "-grams");
        }
        for (int64_t at = begin; at < end; at += static_cast<int64_t>(length), ++next) {
            if (next >= columns.size()) opError(node, "ngram_indexes has fewer entries than the pool has n-grams");
            if (static_cast<int64_t>(length) < pool.minLength || static_cast<int64_t>(length) > maxLength) continue;
            std::vector<int64_t> ngram(items.begin() + at, items.begin() + at + static_cast<int64_t>(length));
            std::erase_if(pool.ngrams, [&](const TfIdfPool::Ngram& g) { return g.items == ngram; });
            pool.ngrams.push_back({std::move(ngram), columns[next]});
        }
    }
    pool.weights = doubleListAttr(node, "weights");
    if (!pool.weights.empty() && static_cast<int64_t>(pool.weights.size()) < pool.columns) {
        opError(node, "weights has " + std::to_string(pool.weights.size()) + " values for " + std::to_string(pool.columns) + " columns");
    }
    return pool;
}

void inferTfIdfVectorizer(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "X", x.dtype, {DType::Int32, DType::Int64});
    if (x.shape.empty() || x.shape.size() > 2) opError(node, "X must be [C] or [N, C], got " + shapeString(x.shape));
    const TfIdfPool pool = tfIdfPool(node);
    setOutput(graph, node, DType::Fp32, x.shape.size() == 1 ? Shape{pool.columns} : Shape{x.shape[0], pool.columns});
}

std::vector<Tensor> interpretTfIdfVectorizer(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const TfIdfPool pool = tfIdfPool(node);
    const int64_t rows = x.shape.size() == 1 ? 1 : x.shape[0], length = x.shape.back();
    const std::vector<int64_t> values = integerValues(x);
    std::vector<double> out(static_cast<size_t>(rows * pool.columns), 0.0);
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t* row = values.data() + r * length;
        for (int64_t d = 1; d <= pool.maxSkip + 1; ++d) {
            for (const TfIdfPool::Ngram& g : pool.ngrams) {
                const auto size = static_cast<int64_t>(g.items.size());
                if (d > 1 && size == 1) continue;
                for (int64_t i = 0; i + (size - 1) * d < length; ++i) {
                    bool match = true;
                    for (int64_t j = 0; match && j < size; ++j) match = row[i + j * d] == g.items[j];
                    if (match) out[r * pool.columns + g.column] += 1;
                }
            }
        }
        for (int64_t c = 0; c < pool.columns; ++c) {
            double& v = out[r * pool.columns + c];
            const double weight = pool.weights.empty() ? 1.0 : pool.weights[c];
            if (pool.mode == TfIdfPool::Mode::InverseDocumentFrequency) v = v > 0 ? weight : 0;
            if (pool.mode == TfIdfPool::Mode::Both) v *= weight;
        }
    }
    return {floatTensor(DType::Fp32, x.shape.size() == 1 ? Shape{pool.columns} : Shape{rows, pool.columns}, out)};
}

}  // namespace npusim::compiler::ops
