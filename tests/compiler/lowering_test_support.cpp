// Lowering test helpers.
#include "lowering_test_support.h"

#include <gtest/gtest.h>

#include <map>

#include "compiler/cost/cost_model.h"
#include "compiler/memory/memory_planning.h"
#include "compiler/target/codegen.h"
#include "compiler/tiling/tiling.h"
#include "firmware/command_validator.h"

namespace npusim::compiler::testing {

Lowered lower(const Graph& graph, const ArchConfig& config) {
    Lowered l;
    const CostModel model(config);
    l.tiles = lowerToTiles(graph, config, model);
    l.memory = planMemory(graph, l.tiles, config);
    l.commands = generateCommands(l.tiles, l.memory, config);
    return l;
}

void expectValidStream(const Lowered& l, const ArchConfig& config) {
    std::map<uint64_t, int64_t> balance;
    for (size_t i = 0; i < l.commands.size(); ++i) {
        const isa::Command& c = l.commands[i];
        EXPECT_EQ(firmware::validateCommand(c, config, l.memory.dramBytes), regs::ErrorCode::None)
            << i << ": " << isa::disassemble(c);
        if (c.opcode == isa::Opcode::SemSignal) ++balance[c.get(isa::Field::Semaphore)];
        if (c.opcode == isa::Opcode::SemWait) --balance[c.get(isa::Field::Semaphore)];
    }
    for (const auto& [sem, count] : balance) EXPECT_EQ(count, 0) << "semaphore " << sem;
    ASSERT_FALSE(l.commands.empty());
    EXPECT_EQ(l.commands.back().opcode, isa::Opcode::End);
}

}  // namespace npusim::compiler::testing
