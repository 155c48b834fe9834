// IR text tests: each tests/compiler/ir/*.ir file names a pass ("// pass: NAME": a graph pass,
// a tile pass or plan-memory, run as `npusim opt` runs it, for the arch of "// arch: PRESET",
// edge when none, and the precision of "// precision: P" for lower-precision), holds an input graph and either the IR the pass must print ("// expect:"
// then the text: graph, tile or memory IR) or the error reading the input must give
// ("// expect-error: MESSAGE").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "compiler/graph/parser.h"
#include "compiler/pipeline.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

const std::filesystem::path kIrTests = NPUSIM_IR_TESTS;

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The text after `marker` up to the end of its line, or nullopt.
std::optional<std::string> directive(const std::string& text, const std::string& marker) {
    const size_t at = text.find(marker);
    if (at == std::string::npos) return std::nullopt;
    const size_t start = at + marker.size(), end = text.find('\n', start);
    return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string trimmed(std::string text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    return text;
}

class IrPassTest : public ::testing::TestWithParam<std::string> {};

TEST_P(IrPassTest, PrintsTheExpectedGraph) {
    const std::string text = readFile(kIrTests / GetParam());
    const std::optional<std::string> passName = directive(text, "// pass: ");
    ASSERT_TRUE(passName) << "no '// pass:' line";
    const ArchConfig config = loadArchConfig(directive(text, "// arch: ").value_or("edge"), {});
    const std::optional<Precision> precision = parsePrecision(directive(text, "// precision: ").value_or("fp32"));
    ASSERT_TRUE(precision) << "an unknown '// precision:'";

    if (const std::optional<std::string> error = directive(text, "// expect-error: ")) {
        EXPECT_EQ(testing::inputErrorOf([&] { parseGraph(text); }), *error);
        return;
    }
    const size_t expectAt = text.find("// expect:\n");
    ASSERT_NE(expectAt, std::string::npos) << "no '// expect:' line";
    const std::string stages[] = {*passName};
    EXPECT_EQ(trimmed(runStages(parseGraph(text.substr(0, expectAt)), config, stages, {*precision, {}, {}})),
              trimmed(text.substr(expectAt + 11)));
}

std::vector<std::string> irFiles() {
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(kIrTests)) {
        if (entry.path().extension() == ".ir") files.push_back(entry.path().filename().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

INSTANTIATE_TEST_SUITE_P(Files, IrPassTest, ::testing::ValuesIn(irFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return info.param.substr(0, info.param.size() - 3);
                         });

}  // namespace
}  // namespace npusim::compiler
