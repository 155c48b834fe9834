// Cutting command streams into jobs: preferably where no semaphore is outstanding, else with a
// prologue that restores the outstanding signals; never inside a loop; each job within the size
// asked for when the stream allows it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "arch/error.h"
#include "arch/isa.h"
#include "runtime/command_jobs.h"

namespace npusim::runtime {
namespace {

std::vector<std::byte> encoded(const std::vector<std::string>& lines) {
    std::vector<isa::Command> commands;
    for (const std::string& line : lines) commands.push_back(isa::assemble(line));
    return isa::encodeStream(commands);
}

const std::string kLoad = "dma.load dram=0x0 addr=0x0 rows=1 row_bytes=16 dram_stride=16 stride=16";
const std::string kGemm = "gemm a=0x0 b=0x100 c=0x0 m=2 n=2 k=2 dtype=int8 a_stride=2 b_stride=2 c_stride=2";

std::vector<std::string> blocks(int count) {
    std::vector<std::string> lines;
    for (int i = 0; i < count; ++i) {
        for (const std::string& line : {kLoad, std::string("sem.signal queue=load sem=0"), std::string("sem.wait queue=tensor sem=0"), kGemm}) {
            lines.push_back(line);
        }
    }
    lines.push_back("end");
    return lines;
}

TEST(CommandJobs, AStreamWithinTheSizeIsOneJob) {
    const std::vector<CommandJob> jobs = planCommandJobs(encoded(blocks(3)), 1 << 20);
    ASSERT_EQ(jobs.size(), 1u);
    EXPECT_EQ(jobs[0].begin, 0u);
    EXPECT_EQ(jobs[0].end, 13u);
}

TEST(CommandJobs, CutsPreferPointsWhereEverySignalHasBeenWaitedFor) {
    // Jobs of at most 9 descriptors, 8 and the END each needs.
    const std::vector<std::string> lines = blocks(5);
    const std::vector<CommandJob> jobs = planCommandJobs(encoded(lines), 9 * 64);
    ASSERT_EQ(jobs.size(), 3u);
    size_t next = 0;
    for (const CommandJob& job : jobs) {
        EXPECT_EQ(job.begin, next);
        int outstanding = 0;
        for (size_t i = 0; i < job.begin; ++i) {
            outstanding += lines[i].starts_with("sem.signal") ? 1 : lines[i].starts_with("sem.wait") ? -1 : 0;
        }
        EXPECT_EQ(outstanding, 0) << "a cut between a signal and its wait at " << job.begin;
        EXPECT_TRUE(job.carried.empty());
        EXPECT_LE(job.end - job.begin, job.end == lines.size() ? 9u : 8u);
        next = job.end;
    }
    EXPECT_EQ(next, lines.size());
}

TEST(CommandJobs, ALoopIsNeverCutAndItsSignalsCountAsOftenAsItRuns) {
    // The loop signals three times; the three waits after it balance it only at their end.
    const std::vector<std::string> lines = {"loop count=3 body=2 steps=0", kLoad, "sem.signal queue=load sem=0",
                                            "sem.wait queue=tensor sem=0", "sem.wait queue=tensor sem=0",
                                            "sem.wait queue=tensor sem=0", kGemm, kGemm, "end"};
    // Jobs of at most 6 descriptors: the loop (3), two waits and the END; then the third wait
    // after a prologue that signals the one count still outstanding, the GEMMs and the END.
    const std::vector<CommandJob> jobs = planCommandJobs(encoded(lines), 6 * 64);
    ASSERT_EQ(jobs.size(), 2u);
    EXPECT_EQ(jobs[0].begin, 0u);
    EXPECT_EQ(jobs[0].end, 5u);
    EXPECT_TRUE(jobs[0].carried.empty());
    EXPECT_EQ(jobs[1].begin, 5u);
    EXPECT_EQ(jobs[1].end, 9u);
    ASSERT_EQ(jobs[1].carried.size(), 1u);
    EXPECT_EQ(jobs[1].carried.at(0).count, 1u);
    EXPECT_EQ(jobs[1].carried.at(0).queue, isa::Queue::Load);

    const std::vector<isa::Command> second = isa::decodeStream(jobBytes(encoded(lines), jobs[1]));
    ASSERT_EQ(second.size(), 5u);
    EXPECT_EQ(isa::disassemble(second[0]).substr(0, 10), "sem.signal");
    EXPECT_EQ(second[1].opcode, isa::Opcode::SemWait);
    EXPECT_EQ(second.back().opcode, isa::Opcode::End);
    EXPECT_EQ(jobByteCount(encoded(lines), jobs[1]), 5u * 64);
}

TEST(CommandJobs, AStreamThatAlwaysHasASignalOutstandingIsStillCut) {
    // A pipeline one block deep: each load is signalled before the previous block's wait.
    std::vector<std::string> lines = {kLoad, "sem.signal queue=load sem=0"};
    for (int i = 0; i < 20; ++i) {
        for (const std::string& line : {kLoad, std::string("sem.signal queue=load sem=0"), std::string("sem.wait queue=tensor sem=0"), kGemm}) {
            lines.push_back(line);
        }
    }
    lines.push_back("sem.wait queue=tensor sem=0");
    lines.push_back(kGemm);
    lines.push_back("end");
    const std::vector<CommandJob> jobs = planCommandJobs(encoded(lines), 16 * 64);
    ASSERT_GT(jobs.size(), 5u);
    for (size_t j = 0; j < jobs.size(); ++j) {
        EXPECT_LE(jobByteCount(encoded(lines), jobs[j]), 16u * 64);
        if (j > 0) {
            EXPECT_FALSE(jobs[j].carried.empty()) << "job " << j;
        }
    }
}

TEST(CommandJobs, AWaitBeforeItsSignalIsAnError) {
    EXPECT_THROW(planCommandJobs(encoded({"sem.wait queue=tensor sem=0", "sem.signal queue=load sem=0", "end"}), 1 << 20),
                 InputError);
}

}  // namespace
}  // namespace npusim::runtime
