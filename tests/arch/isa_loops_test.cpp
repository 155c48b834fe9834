// Loop descriptors: expansion of flat and nested loops, and the structures checkLoop refuses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "arch/error.h"
#include "arch/isa.h"
#include "arch/isa_loops.h"

namespace npusim::isa {
namespace {

std::vector<Command> assembleAll(const std::vector<std::string>& lines) {
    std::vector<Command> commands;
    for (const std::string& line : lines) commands.push_back(assemble(line));
    return commands;
}

TEST(IsaLoops, FlatLoopStepsItsBodyPerIteration) {
    const auto stream = assembleAll({
        "loop count=3 body=2 steps=1",
        "dma.load tile=5 dram=0x100 addr=0x40 rows=1 row_bytes=16 dram_stride=16 stride=16",
        "sem.signal tile=5 queue=load sem=0",
        "step t0=0 f0=dram s0=64 t1=0 f1=tile s1=1 t2=1 f2=tile s2=2",
        "end",
    });
    const std::vector<Command> expanded = expandLoops(stream);
    ASSERT_EQ(expanded.size(), 7u);
    for (int i = 0; i < 3; ++i) {
        const Command& load = expanded[2 * i];
        EXPECT_EQ(load.opcode, Opcode::DmaLoad);
        EXPECT_EQ(load.get(Field::DramAddr), 0x100u + 64u * i);
        EXPECT_EQ(load.get(Field::OnchipAddr), 0x40u) << "unstepped fields stay";
        EXPECT_EQ(load.tileId, 5u + i);
        EXPECT_EQ(expanded[2 * i + 1].tileId, 5u + 2 * i);
    }
    EXPECT_EQ(expanded.back().opcode, Opcode::End);
}

TEST(IsaLoops, NestedLoopsCombineTheirSteps) {
    // for i < 2: for j < 3: gemm c = 0x1000 * i + 0x10 * j, a = 0x40 * i (outer step on the inner body).
    const auto stream = assembleAll({
        "loop count=2 body=3 steps=1",
        "loop count=3 body=1 steps=1",
        "gemm a=0x0 b=0x800 c=0x0 m=4 n=4 k=4 dtype=int8 a_stride=4 b_stride=4 c_stride=4",
        "step t0=0 f0=c s0=16",
        "step t0=1 f0=c s0=4096 t1=1 f1=a s1=64",
        "end",
    });
    const std::vector<Command> expanded = expandLoops(stream);
    ASSERT_EQ(expanded.size(), 7u);
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 3; ++j) {
            const Command& gemm = expanded[3 * i + j];
            EXPECT_EQ(gemm.get(Field::CAddr), 0x1000u * i + 0x10u * j) << i << "," << j;
            EXPECT_EQ(gemm.get(Field::AAddr), 0x40u * i);
            EXPECT_EQ(gemm.get(Field::BAddr), 0x800u);
        }
    }
}

TEST(IsaLoops, NegativeStepsCountDown) {
    const auto stream = assembleAll({"loop count=4 body=1 steps=1",
                                     "vec func=copy dtype=fp32 out=fp32 dst=0x300 src0=0x0 rows=1 cols=4",
                                     "step t0=0 f0=dst s0=-256"});
    const std::vector<Command> expanded = expandLoops(stream);
    ASSERT_EQ(expanded.size(), 4u);
    EXPECT_EQ(expanded[3].get(Field::DstAddr), 0u);
}

std::string whyNot(const std::vector<std::string>& lines) {
    const auto loop = assembleAll(lines);
    const auto why = checkLoop(loop);
    return why ? *why : std::string("runs");
}

TEST(IsaLoops, CheckRefusesWhatTheCommandProcessorCannotRun) {
    const std::string gemm = "gemm a=0x0 b=0x800 c=0x0 m=4 n=4 k=4 dtype=int8 a_stride=4 b_stride=4 c_stride=4";
    EXPECT_EQ(whyNot({"loop count=2 body=1 steps=0", gemm}), "runs");
    EXPECT_EQ(whyNot({"loop count=0 body=1 steps=0", gemm}), "its count is 0");
    EXPECT_EQ(whyNot({"loop count=2 body=1 steps=0", "end"}), "its body holds end");
    EXPECT_EQ(whyNot({"loop count=2 body=2 steps=0", gemm, "step"}), "its body holds a step outside a loop");
    EXPECT_EQ(whyNot({"loop count=2 body=1 steps=1", gemm, gemm}), "descriptor gemm where a step belongs");
    EXPECT_EQ(whyNot({"loop count=2 body=1 steps=1", gemm, "step t0=0 f0=dram s0=4"}), "a step of 'dram' targets gemm descriptor 0");
    EXPECT_EQ(whyNot({"loop count=2 body=1 steps=1", gemm, "step t0=1 f0=c s0=4"}), "a step targets descriptor 1 beyond the body");
    EXPECT_EQ(whyNot({"loop count=2 body=1 steps=1", gemm, "step t0=1 f0=none s0=0"}), "an unused step entry is not zero");
    EXPECT_EQ(whyNot({"loop count=2 body=2 steps=1", "loop count=2 body=1 steps=0", gemm, "step t0=0 f0=tile s0=1"}),
              "a step targets the loop descriptor 0");
    EXPECT_EQ(whyNot({"loop count=2 body=2 steps=0", "loop count=2 body=2 steps=0", gemm}),
              "the loop at body descriptor 0 runs past the body");
    EXPECT_EQ(whyNot({"loop count=2 body=4 steps=0", "loop count=2 body=3 steps=0", "loop count=2 body=2 steps=0",
                      "loop count=2 body=1 steps=0", gemm}), "runs");
    EXPECT_NE(whyNot({"loop count=2 body=5 steps=0", "loop count=2 body=4 steps=0", "loop count=2 body=3 steps=0",
                      "loop count=2 body=2 steps=0", "loop count=2 body=1 steps=0", gemm})
                  .find("deeper than 4"),
              std::string::npos);
    std::vector<std::string> long_loop = {"loop count=2 body=256 steps=0"};
    long_loop.insert(long_loop.end(), 256, gemm);
    EXPECT_NE(whyNot(long_loop).find("more than the 256"), std::string::npos);
}

TEST(IsaLoops, ExpandingAStreamNamesTheLoopThatCannotRun) {
    const auto truncated = assembleAll({"sem.signal queue=load sem=0", "loop count=2 body=3 steps=0", "end"});
    EXPECT_THROW(
        {
            try {
                expandLoops(truncated);
            } catch (const InputError& e) {
                EXPECT_STREQ(e.what(), "the loop at descriptor 1 runs past the end of the stream");
                throw;
            }
        },
        InputError);
    EXPECT_THROW(expandLoops(assembleAll({"step", "end"})), InputError);
}

}  // namespace
}  // namespace npusim::isa
