// Graph IR parser: a hand-written recursive descent over printGraph's grammar
//   graph @name(%in: type, ...) -> (%out: type, ...) [attributes {opset = N}] {
//     %c = constant (type | dense<type: [elements]>)
//     %r, ... = Op(%a | none, ...) [{name = "n", key = value, ...}]   (none: an absent input)
//     return %out, ...
//   }
// with types dtype[d0,d1,...] and attribute values int, float, "string", [list] or dense<...>.
#include "compiler/graph/parser.h"

#include <cctype>
#include <charconv>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "arch/error.h"
#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/verifier.h"

namespace npusim::compiler {
namespace {

constexpr int64_t kMaxDim = int64_t{1} << 32, kMaxElements = int64_t{1} << 32;

class Parser {
public:
    explicit Parser(std::string_view text) : text_(text) {}

    Graph graph() {
        keyword("graph");
        expect('@');
        graph_.name = name();
        expect('(');
        graph_.inputs = typedInputs();
        expect(')');
        expect("->");
        expect('(');
        const size_t outputsAt = position_;
        std::vector<std::pair<std::string, Value>> outputs;
        if (!peek(')')) {
            do {
                expect('%');
                const std::string outputName = name();
                expect(':');
                outputs.emplace_back(outputName, type());
            } while (accept(','));
        }
        expect(')');
        if (acceptKeyword("attributes")) {
            expect('{');
            keyword("opset");
            expect('=');
            graph_.opset = integer();
            expect('}');
        }
        expect('{');
        while (!acceptKeyword("return")) statement();
        std::vector<ValueId> returned;
        do {
            const size_t at = (skipSpace(), position_);
            returned.push_back(use());
            if (returned.back() == kNoValue) fail("a graph returns values, not none", at);
        } while (accept(','));
        expect('}');
        skipSpace();
        if (position_ != text_.size()) fail("text after the graph's closing brace");
        if (returned.size() != outputs.size()) {
            fail("the graph declares " + std::to_string(outputs.size()) + " outputs but returns " +
                 std::to_string(returned.size()), outputsAt);
        }
        for (size_t i = 0; i < outputs.size(); ++i) {
            const Value& value = graph_.value(returned[i]);
            if (value.name != outputs[i].first || value.dtype != outputs[i].second.dtype ||
                value.shape != outputs[i].second.shape) {
                fail("output " + std::to_string(i) + " is declared %" + outputs[i].first + ": " +
                         std::string(dtypeName(outputs[i].second.dtype)) + shapeString(outputs[i].second.shape) +
                         " but returns %" + value.name + ": " + std::string(dtypeName(value.dtype)) +
                         shapeString(value.shape),
                     outputsAt);
            }
        }
        graph_.outputs = std::move(returned);
        verifyGraph(graph_);
        return std::move(graph_);
    }

private:
    [[noreturn]] void fail(const std::string& message, size_t at = std::string_view::npos) const {
        if (at == std::string_view::npos) at = position_;
        size_t line = 1, column = 1;
        for (size_t i = 0; i < at && i < text_.size(); ++i) {
            column = text_[i] == '\n' ? 1 : column + 1;
            line += text_[i] == '\n' ? 1 : 0;
        }
        throw InputError("line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + message);
    }

    void skipSpace() {
        while (position_ < text_.size()) {
            if (std::isspace(static_cast<unsigned char>(text_[position_]))) {
                ++position_;
            } else if (text_.substr(position_, 2) == "//") {  // a comment to the end of the line
                while (position_ < text_.size() && text_[position_] != '\n') ++position_;
            } else {
                break;
            }
        }
    }

    bool peek(char c) {
        skipSpace();
        return position_ < text_.size() && text_[position_] == c;
    }

    bool accept(char c) {
        if (!peek(c)) return false;
        ++position_;
        return true;
    }

    void expect(char c) {
        if (!accept(c)) fail(std::string("expected '") + c + "'" + found());
    }

    void expect(std::string_view token) {
        skipSpace();
        if (text_.substr(position_, token.size()) != token) fail("expected '" + std::string(token) + "'" + found());
        position_ += token.size();
    }

    std::string found() {
        skipSpace();
        if (position_ >= text_.size()) return ", found the end of the text";
        return ", found '" + std::string(text_.substr(position_, std::min<size_t>(12, text_.size() - position_))) + "'";
    }

    static bool isBare(char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '+';
    }

    /// A run of name characters (also numbers and keywords).
    std::string_view word() {
        skipSpace();
        const size_t start = position_;
        while (position_ < text_.size() && isBare(text_[position_])) ++position_;
        return text_.substr(start, position_ - start);
    }

    bool acceptKeyword(std::string_view keyword) {
        skipSpace();
        const size_t start = position_;
        if (word() == keyword) return true;
        position_ = start;
        return false;
    }

    void keyword(std::string_view keyword) {
        if (!acceptKeyword(keyword)) fail("expected '" + std::string(keyword) + "'" + found());
    }

    /// A double-quoted string with \", \\ and \XX (hex) escapes.
    std::string quotedString() {
        expect('"');
        std::string out;
        while (position_ < text_.size() && text_[position_] != '"') {
            char c = text_[position_++];
            if (c == '\\') {
                if (position_ >= text_.size()) break;
                c = text_[position_++];
                const bool hex = std::isxdigit(static_cast<unsigned char>(c)) && position_ < text_.size() &&
                                 std::isxdigit(static_cast<unsigned char>(text_[position_]));
                if (hex) c = static_cast<char>(std::stoi(std::string{c, text_[position_++]}, nullptr, 16));
            }
            out += c;
        }
        if (position_ >= text_.size()) fail("unterminated string");
        ++position_;
        return out;
    }

    std::string name() {
        if (peek('"')) return quotedString();
        const std::string_view bare = word();
        if (bare.empty()) fail("expected a name" + found());
        return std::string(bare);
    }

    int64_t integer() {
        const size_t at = position_;
        const std::string_view digits = word();
        int64_t value = 0;
        const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
        if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) {
            fail("expected an integer, found '" + std::string(digits) + "'", at);
        }
        return value;
    }

    /// A number as written: an integer unless it has '.', 'e', or is nan/inf.
    struct Number {
        double real = 0;
        int64_t whole = 0;
        bool isFloat = false;
    };

    Number number() {
        skipSpace();
        const size_t at = position_;
        const std::string_view text = word();
        Number n;
        if (text == "nan" || text == "inf" || text == "-inf") {
            n.isFloat = true;
            n.real = text == "nan" ? std::numeric_limits<double>::quiet_NaN()
                                   : (text == "inf" ? 1 : -1) * std::numeric_limits<double>::infinity();
            return n;
        }
        n.isFloat = text.find_first_of(".eE") != std::string_view::npos;
        const char* end = text.data() + text.size();
        const auto result = n.isFloat ? std::from_chars(text.data(), end, n.real) : std::from_chars(text.data(), end, n.whole);
        if (text.empty() || result.ec != std::errc() || result.ptr != end) fail("expected a number, found '" + std::string(text) + "'", at);
        if (!n.isFloat) n.real = static_cast<double>(n.whole);
        return n;
    }

    Value type() {
        const size_t at = position_;
        const std::string_view dtype = word();
        const std::optional<DType> parsed = parseDType(dtype);
        if (!parsed) fail("unknown element type '" + std::string(dtype) + "'", at);
        Value value;
        value.dtype = *parsed;
        expect('[');
        if (!peek(']')) {
            do {
                const int64_t dim = integer();
                if (dim < 0 || dim > kMaxDim) fail("a dim must be in [0, " + std::to_string(kMaxDim) + "]");
                value.shape.push_back(dim);
            } while (accept(','));
        }
        expect(']');
        if (elementCount(value.shape) > kMaxElements) fail("a tensor of more than 2^32 elements");
        return value;
    }

    /// `dense<type: [elements]>`, after the keyword.
    Tensor dense() {
        expect('<');
        const Value value = type();
        expect(':');
        expect('[');
        std::vector<double> reals;
        std::vector<int64_t> wholes;
        if (!peek(']')) {
            do {
                const size_t at = (skipSpace(), position_);
                const Number n = number();
                if (n.isFloat && !isFloat(value.dtype)) {
                    fail(std::string(dtypeName(value.dtype)) + " elements must be integers", at);
                }
                reals.push_back(n.real);
                wholes.push_back(n.whole);
            } while (accept(','));
        }
        expect(']');
        if (static_cast<int64_t>(reals.size()) != elementCount(value.shape)) {
            fail(std::string(dtypeName(value.dtype)) + shapeString(value.shape) + " needs " +
                 std::to_string(elementCount(value.shape)) + " elements, got " + std::to_string(reals.size()));
        }
        expect('>');
        return isFloat(value.dtype) ? ops::floatTensor(value.dtype, value.shape, reals)
                                    : ops::integerTensor(value.dtype, value.shape, wholes);
    }

    Attribute attribute() {
        if (peek('"')) return quotedString();
        if (acceptKeyword("dense")) return dense();
        if (accept('[')) {
            std::vector<Number> items;
            if (!peek(']')) {
                do {
                    items.push_back(number());
                } while (accept(','));
            }
            expect(']');
            if (std::none_of(items.begin(), items.end(), [](const Number& n) { return n.isFloat; })) {
                std::vector<int64_t> ints;
                for (const Number& n : items) ints.push_back(n.whole);
                return ints;
            }
            std::vector<double> reals;
            for (const Number& n : items) reals.push_back(n.real);
            return reals;
        }
        const Number n = number();
        if (n.isFloat) return n.real;
        return n.whole;
    }

    /// `%a: type, ...` declaring graph inputs.
    std::vector<ValueId> typedInputs() {
        std::vector<ValueId> ids;
        if (peek(')')) return ids;
        do {
            expect('%');
            const size_t at = position_;
            const std::string valueName = name();
            expect(':');
            Value value = type();
            value.name = valueName;
            ids.push_back(defineValue(std::move(value), at));
        } while (accept(','));
        return ids;
    }

    ValueId defineValue(Value value, size_t at) {
        if (values_.contains(value.name)) fail("%" + value.name + " is defined twice", at);
        const std::string valueName = value.name;
        const ValueId id = graph_.addValue(std::move(value));
        values_[valueName] = id;
        return id;
    }

    /// `%name` of a defined value, or `none`.
    ValueId use() {
        if (acceptKeyword("none")) return kNoValue;
        expect('%');
        const size_t at = position_;
        const std::string valueName = name();
        const auto it = values_.find(valueName);
        if (it == values_.end()) fail("%" + valueName + " is used before it is defined", at);
        return it->second;
    }

    void statement() {
        std::vector<std::pair<std::string, size_t>> results;
        do {
            expect('%');
            const size_t at = position_;
            results.emplace_back(name(), at);
        } while (accept(','));
        expect('=');
        const size_t opAt = (skipSpace(), position_);
        if (acceptKeyword("constant")) {
            if (results.size() != 1) fail("a constant defines one value", opAt);
            Value value;
            if (acceptKeyword("dense")) {
                value.constant = dense();
                value.dtype = value.constant->dtype;
                value.shape = value.constant->shape;
            } else {
                value = type();
                value.constant = Tensor::zeros(value.dtype, value.shape);
            }
            value.name = results[0].first;
            defineValue(std::move(value), results[0].second);
            return;
        }
        const std::string opName = name();
        const std::optional<OpKind> kind = findIrOpKind(opName);
        if (!kind) fail("unknown op '" + opName + "'", opAt);
        Node node;
        node.kind = *kind;
        expect('(');
        if (!peek(')')) {
            do {
                node.inputs.push_back(use());
            } while (accept(','));
        }
        expect(')');
        if (accept('{')) {
            do {
                const std::string key = name();
                expect('=');
                if (key == "name") {
                    node.name = quotedString();
                } else {
                    node.attributes[key] = attribute();
                }
            } while (accept(','));
            expect('}');
        }
        for (const auto& [resultName, at] : results) {
            Value value;
            value.name = resultName;
            value.producer = static_cast<int>(graph_.nodes.size());
            node.outputs.push_back(defineValue(std::move(value), at));
        }
        if (node.name.empty()) node.name = results[0].first;
        if (!nodeNames_.insert(node.name).second) fail("two nodes are named \"" + node.name + "\"", opAt);
        graph_.nodes.push_back(std::move(node));
        try {
            opInfo(*kind).inferTypes(graph_, graph_.nodes.back());
        } catch (const InputError& e) {
            fail(e.what(), opAt);
        }
    }

    std::string_view text_;
    size_t position_ = 0;
    Graph graph_;
    std::map<std::string, ValueId> values_;
    std::set<std::string> nodeNames_;
};

}  // namespace

Graph parseGraph(std::string_view text) { return Parser(text).graph(); }

}  // namespace npusim::compiler
