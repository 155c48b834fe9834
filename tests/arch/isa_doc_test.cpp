// docs/ISA.md documents the encoding: its field tables must match the ISA table.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "arch/isa_table.h"

namespace npusim::isa {
namespace {

TEST(IsaDoc, FieldTablesMatchTheEncoding) {
    std::ifstream in(NPUSIM_ISA_DOC);
    ASSERT_TRUE(in) << NPUSIM_ISA_DOC;
    std::stringstream text;
    text << in.rdbuf();
    // Section "## dma.load, dma.store" followed by rows "| name | bit | width | format |".
    std::map<std::string, std::vector<std::string>> documented;
    std::string section;
    const std::regex heading(R"(^## (.+)$)"), row(R"(^\| (\w+) \| (\d+) \| (\d+) \| (\w+) \|$)");
    for (std::string line; std::getline(text, line);) {
        std::smatch match;
        if (std::regex_match(line, match, heading)) section = match[1];
        if (std::regex_match(line, match, row)) {
            documented[section].push_back(match[1].str() + "@" + match[2].str() + "/" + match[3].str());
        }
    }
    for (const OpcodeInfo& info : opcodeTable()) {
        if (info.fields.empty()) continue;
        std::vector<std::string> expected;
        for (const FieldLayout& f : info.fields) {
            expected.push_back(std::string(f.name) + "@" + std::to_string(f.bit) + "/" + std::to_string(f.width));
        }
        bool found = false;
        for (const auto& [heading, rows] : documented) {
            if (heading.find(std::string(info.mnemonic)) == std::string::npos) continue;
            EXPECT_EQ(rows, expected) << "section '" << heading << "' of docs/ISA.md";
            found = true;
        }
        EXPECT_TRUE(found) << "docs/ISA.md has no section for " << info.mnemonic;
    }
}

}  // namespace
}  // namespace npusim::isa
