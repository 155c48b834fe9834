// End-to-end co-simulation with a hand-assembled command stream: runtime -> driver ->
// firmware -> hardware, real data, and the firmware's error path.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <sstream>

#include "arch/arch_config.h"
#include "arch/error.h"
#include "arch/isa.h"
#include "arch/isa_loops.h"
#include "runtime/runtime.h"
#include "sim/cosim.h"
#include "tests/support/artifact_support.h"

namespace npusim::sim {
namespace {

Artifact assembleArtifact(const std::vector<std::string>& lines, uint64_t dramBytes) {
    std::vector<isa::Command> commands;
    for (const std::string& line : lines) commands.push_back(isa::assemble(line));
    Artifact artifact;
    artifact.manifest.inputs = {testing::binding("a", DType::Int8, {32, 16}, 0x0),
                                testing::binding("b", DType::Int8, {16, 16}, 0x1000)};
    artifact.manifest.outputs = {testing::binding("c", DType::Int32, {32, 16}, 0x2000)};
    artifact.manifest.dramBytes = dramBytes;
    artifact.sections[kCommandsSection] = isa::encodeStream(commands);
    artifact.manifest.segments = {testing::npuSegment(kCommandsSection)};
    return artifact;
}

const std::vector<std::string> kGemmProgram = {
    "dma.load dram=0x0 space=sram addr=0x0 rows=32 row_bytes=16 dram_stride=16 stride=16",
    "dma.load dram=0x1000 space=sram addr=0x200 rows=16 row_bytes=16 dram_stride=16 stride=16",
    "sem.signal queue=load sem=0",
    "sem.wait queue=tensor sem=0",
    "gemm a=0x0 b=0x200 c=0x0 m=32 n=16 k=16 dtype=int8 a_stride=16 b_stride=16 c_stride=16",
    "sem.signal queue=tensor sem=1",
    "sem.wait queue=store sem=1",
    "dma.store dram=0x2000 space=acc addr=0x0 rows=32 row_bytes=64 dram_stride=64 stride=64",
    "end",
};

Tensor randomInt8(Shape shape, std::mt19937& rng) {
    Tensor t = Tensor::zeros(DType::Int8, std::move(shape));
    for (auto& v : t.as<int8_t>()) v = static_cast<int8_t>(rng() % 256 - 128);
    return t;
}

TEST(CoSim, HandWrittenGemmJobComputesTheProduct) {
    const ArchConfig config = loadArchConfig("edge", {});
    std::mt19937 rng(1);
    const Tensor a = randomInt8({32, 16}, rng), b = randomInt8({16, 16}, rng);
    const CoSimResult result =
        runCoSimulation(config, assembleArtifact(kGemmProgram, 0x4000), {{"a", a}, {"b", b}}, {});
    ASSERT_EQ(result.outputs.size(), 1u);
    const auto c = result.outputs[0].as<int32_t>();
    for (int i = 0; i < 32; ++i) {
        for (int j = 0; j < 16; ++j) {
            int32_t expected = 0;
            for (int p = 0; p < 16; ++p) expected += a.as<int8_t>()[i * 16 + p] * b.as<int8_t>()[p * 16 + j];
            ASSERT_EQ(c[i * 16 + j], expected) << "C[" << i << "][" << j << "]";
        }
    }
    EXPECT_GT(result.job.cycles, 0u);
    // DMA traffic of the job: A 512 + B 256 bytes in, C 2048 out, plus the 9-command fetch.
    EXPECT_EQ(result.dram.bytesRead, 512u + 256u + 9u * 64u);
    EXPECT_EQ(result.dram.bytesWritten, 2048u);
}

/// The GEMM job with 256 bytes of resident weights known by their size only, as an artifact
/// read for a timing-only run holds them.
Artifact gemmWithUnreadWeights() {
    Artifact artifact = assembleArtifact(kGemmProgram, 0x4000);
    artifact.manifest.weightsOffset = 0x3000;
    artifact.manifest.residentWeightBytes = 256;
    artifact.unreadSections[kWeightsSection] = 256;
    return artifact;
}

TEST(CoSim, WeightsLeftUnreadServeATimingOnlyRun) {
    const ArchConfig config = loadArchConfig("edge", {});
    std::mt19937 rng(1);
    CoSimOptions timingOnly;
    timingOnly.timingOnly = true;
    const CoSimResult result = runCoSimulation(config, gemmWithUnreadWeights(),
                                               {{"a", randomInt8({32, 16}, rng)}, {"b", randomInt8({16, 16}, rng)}}, timingOnly);
    EXPECT_GT(result.job.cycles, 0u);
}

TEST(CoSim, WeightsLeftUnreadAreRefusedByARunThatComputesValues) {
    const ArchConfig config = loadArchConfig("edge", {});
    std::mt19937 rng(1);
    try {
        runCoSimulation(config, gemmWithUnreadWeights(), {{"a", randomInt8({32, 16}, rng)}, {"b", randomInt8({16, 16}, rng)}}, {});
        FAIL() << "expected the run to refuse the artifact";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("weights were left unread"), std::string::npos) << e.what();
    }
}

TEST(CoSim, InvalidCommandIsRejectedWithItsErrorCode) {
    const ArchConfig config = loadArchConfig("edge", {});
    std::vector<std::string> program = kGemmProgram;
    program[4] = "gemm a=0x0 b=0x200 c=0x0 m=32 n=17 k=16 dtype=int8 a_stride=16 b_stride=17 c_stride=17";
    std::mt19937 rng(1);
    try {
        runCoSimulation(config, assembleArtifact(program, 0x4000),
                        {{"a", randomInt8({32, 16}, rng)}, {"b", randomInt8({16, 16}, rng)}}, {});
        FAIL() << "expected the job to be rejected";
    } catch (const RunError& e) {
        EXPECT_NE(std::string(e.what()).find("bad_field at command 4"), std::string::npos) << e.what();
    }
}

TEST(CoSim, DmaOutsideTheContextWindowIsRejected) {
    const ArchConfig config = loadArchConfig("edge", {});
    std::vector<std::string> program = kGemmProgram;
    program[7] = "dma.store dram=0x3000 space=acc addr=0x0 rows=32 row_bytes=64 dram_stride=64 stride=64";
    std::mt19937 rng(1);
    try {
        runCoSimulation(config, assembleArtifact(program, 0x3400),
                        {{"a", randomInt8({32, 16}, rng)}, {"b", randomInt8({16, 16}, rng)}}, {});
        FAIL() << "expected the job to be rejected";
    } catch (const RunError& e) {
        EXPECT_NE(std::string(e.what()).find("dram_out_of_window at command 7"), std::string::npos)
            << e.what();
    }
}

/// kGemmProgram with A loaded and multiplied in row blocks of 8 by a loop over the blocks
/// (`loadStep`: the block load's DRAM step).
std::vector<std::string> loopedGemmProgram(const std::string& count, const std::string& loadStep) {
    return {
        "dma.load dram=0x1000 space=sram addr=0x200 rows=16 row_bytes=16 dram_stride=16 stride=16",
        "loop count=" + count + " body=6 steps=1",
        "dma.load dram=0x0 space=sram addr=0x0 rows=8 row_bytes=16 dram_stride=16 stride=16",
        "sem.signal queue=load sem=0",
        "sem.wait queue=tensor sem=0",
        "gemm a=0x0 b=0x200 c=0x0 m=8 n=16 k=16 dtype=int8 a_stride=16 b_stride=16 c_stride=16",
        "sem.signal queue=tensor sem=2",  // A's buffer is free for the next block
        "sem.wait queue=load sem=2",
        "step t0=0 f0=dram s0=" + loadStep + " t1=3 f1=c s1=512 t2=0 f2=tile s2=1 t3=3 f3=tile s3=1",
        "sem.signal queue=tensor sem=1",
        "sem.wait queue=store sem=1",
        "dma.store dram=0x2000 space=acc addr=0x0 rows=32 row_bytes=64 dram_stride=64 stride=64",
        "end",
    };
}

TEST(CoSim, ALoopComputesWhatItsExpansionComputes) {
    const ArchConfig config = loadArchConfig("edge", {});
    std::mt19937 rng(5);
    const Tensor a = randomInt8({32, 16}, rng), b = randomInt8({16, 16}, rng);
    const std::vector<std::string> looped = loopedGemmProgram("4", "128");
    std::vector<isa::Command> descriptors;
    for (const std::string& line : looped) descriptors.push_back(isa::assemble(line));
    std::vector<std::string> expanded;
    for (const isa::Command& c : isa::expandLoops(descriptors)) expanded.push_back(isa::disassemble(c));
    ASSERT_EQ(expanded.size(), 6u * 4 + 5);
    runtime::RunResult loop, flat;
    runSystem(config, nullptr, false, [&](driver::Driver& driver) {
        runtime::Runtime runtime(driver, 1'000'000);
        const Artifact loopArtifact = assembleArtifact(looped, 0x4000), flatArtifact = assembleArtifact(expanded, 0x4000);
        loop = runtime.run(runtime.load(loopArtifact), {{"a", a}, {"b", b}});
        flat = runtime.run(runtime.load(flatArtifact), {{"a", a}, {"b", b}});
    });
    std::vector<int32_t> expected(32 * 16);
    for (int i = 0; i < 32; ++i) {
        for (int j = 0; j < 16; ++j) {
            for (int k = 0; k < 16; ++k) expected[i * 16 + j] += a.as<int8_t>()[i * 16 + k] * b.as<int8_t>()[k * 16 + j];
        }
    }
    const auto c = loop.outputs.at(0).as<int32_t>();
    EXPECT_EQ(std::vector<int32_t>(c.begin(), c.end()), expected);
    EXPECT_EQ(loop.outputs.at(0).bytes, flat.outputs.at(0).bytes);
    // 13 descriptors fetched instead of 29 commands, and the iterations skip the control
    // core's validation.
    EXPECT_LT(loop.job.cycles, flat.job.cycles);
}

std::string hex(int value) {
    std::ostringstream text;
    text << "0x" << std::hex << value;
    return text.str();
}

TEST(CoSim, AStreamDeviceMemoryCannotHoldRunsAsAChainOfJobs) {
    // 1 MiB of DRAM, all but one page of it the model's window: the 74-descriptor stream does
    // not fit beside it and runs as jobs of at most one page each.
    const std::string overrides[] = {"dram.size_mib=1"};
    const ArchConfig config = loadArchConfig("edge", overrides);
    std::vector<std::string> program = {"dma.load dram=0x1000 space=sram addr=0x200 rows=16 row_bytes=16 dram_stride=16 stride=16"};
    for (int i = 0; i < 8; ++i) {
        program.push_back("dma.load dram=" + hex(0x40 * i) + " space=sram addr=0x0 rows=4 row_bytes=16 dram_stride=16 stride=16");
        program.push_back("sem.signal queue=load sem=0");
        program.push_back("sem.wait queue=tensor sem=0");
        program.push_back("gemm a=0x0 b=0x200 c=" + hex(0x100 * i) + " m=4 n=16 k=16 dtype=int8 a_stride=16 b_stride=16 c_stride=16");
        program.push_back("sem.signal queue=tensor sem=1");
        program.push_back("sem.wait queue=store sem=1");
        program.push_back("dma.store dram=" + hex(0x2000 + 0x100 * i) + " space=acc addr=" + hex(0x100 * i) +
                          " rows=4 row_bytes=64 dram_stride=64 stride=64");
        program.push_back("sem.signal queue=store sem=2");  // A's buffer is free again
        program.push_back("sem.wait queue=load sem=2");
    }
    program.push_back("end");
    std::mt19937 rng(9);
    const Tensor a = randomInt8({32, 16}, rng), b = randomInt8({16, 16}, rng);
    Tensor c;
    size_t jobs = 0;
    runSystem(config, nullptr, false, [&](driver::Driver& driver) {
        runtime::Runtime runtime(driver, 1'000'000);
        const Artifact artifact = assembleArtifact(program, (1u << 20) - 4096);
        const runtime::LoadedModel model = runtime.load(artifact);
        jobs = model.segments.at(0).jobs.size();
        c = runtime.run(model, {{"a", a}, {"b", b}}).outputs.at(0);
    });
    EXPECT_EQ(jobs, 2u);
    std::vector<int32_t> expected(32 * 16);
    for (int i = 0; i < 32; ++i) {
        for (int j = 0; j < 16; ++j) {
            for (int k = 0; k < 16; ++k) expected[i * 16 + j] += a.as<int8_t>()[i * 16 + k] * b.as<int8_t>()[k * 16 + j];
        }
    }
    const auto got = c.as<int32_t>();
    EXPECT_EQ(std::vector<int32_t>(got.begin(), got.end()), expected);
}

TEST(CoSim, AStreamThatAlwaysHasASignalOutstandingRunsAsJobsThatCarryTheirSignals) {
    // A pipeline one block deep: block i+1 is loaded and signalled before block i's GEMM waits,
    // so no point between the first load and the last GEMM has every signal waited for. With
    // one page of device memory free, the stream runs as jobs whose prologues restore the
    // outstanding signal.
    const std::string overrides[] = {"dram.size_mib=1"};
    const ArchConfig config = loadArchConfig("edge", overrides);
    constexpr int kBlocks = 32;  // of 2 rows of A
    const auto load = [](int i) {
        return "dma.load dram=" + hex(0x20 * i) + " space=sram addr=" + hex(0x20 * i) + " rows=2 row_bytes=16 dram_stride=16 stride=16";
    };
    std::vector<std::string> program = {"dma.load dram=0x1000 space=sram addr=0x1000 rows=16 row_bytes=16 dram_stride=16 stride=16",
                                        "sem.signal queue=load sem=2", "sem.wait queue=tensor sem=2", load(0),
                                        "sem.signal queue=load sem=0"};
    for (int i = 0; i < kBlocks; ++i) {
        if (i + 1 < kBlocks) {
            program.push_back(load(i + 1));
            program.push_back("sem.signal queue=load sem=0");
        }
        program.push_back("sem.wait queue=tensor sem=0");
        program.push_back("gemm a=" + hex(0x20 * i) + " b=0x1000 c=" + hex(0x80 * i) +
                          " m=2 n=16 k=16 dtype=int8 a_stride=16 b_stride=16 c_stride=16");
        program.push_back("sem.signal queue=tensor sem=1");
        program.push_back("sem.wait queue=store sem=1");
        program.push_back("dma.store dram=" + hex(0x2000 + 0x80 * i) + " space=acc addr=" + hex(0x80 * i) +
                          " rows=2 row_bytes=64 dram_stride=64 stride=64");
    }
    program.push_back("end");
    Artifact artifact = assembleArtifact(program, (1u << 20) - 4096);
    artifact.manifest.inputs[0].shape = {2 * kBlocks, 16};
    artifact.manifest.outputs[0].shape = {2 * kBlocks, 16};
    std::mt19937 rng(9);
    const Tensor a = randomInt8({2 * kBlocks, 16}, rng), b = randomInt8({16, 16}, rng);
    Tensor c;
    size_t jobs = 0, carrying = 0;
    runSystem(config, nullptr, false, [&](driver::Driver& driver) {
        runtime::Runtime runtime(driver, 1'000'000);
        const runtime::LoadedModel model = runtime.load(artifact);
        jobs = model.segments.at(0).jobs.size();
        for (const runtime::CommandJob& job : model.segments.at(0).jobs) carrying += job.carried.empty() ? 0 : 1;
        c = runtime.run(model, {{"a", a}, {"b", b}}).outputs.at(0);
    });
    EXPECT_GE(jobs, 4u);
    EXPECT_EQ(carrying, jobs - 1) << "every job after the first starts with a signal outstanding";
    std::vector<int32_t> expected(2 * kBlocks * 16);
    for (int i = 0; i < 2 * kBlocks; ++i) {
        for (int j = 0; j < 16; ++j) {
            for (int k = 0; k < 16; ++k) expected[i * 16 + j] += a.as<int8_t>()[i * 16 + k] * b.as<int8_t>()[k * 16 + j];
        }
    }
    const auto got = c.as<int32_t>();
    EXPECT_EQ(std::vector<int32_t>(got.begin(), got.end()), expected);
}

TEST(CoSim, ALoopTheCommandProcessorCannotRunIsRejected) {
    const ArchConfig config = loadArchConfig("edge", {});
    std::vector<std::string> program = loopedGemmProgram("4", "128");
    program[8] = "step t0=1 f0=dram s0=128";  // the sem.signal has no DRAM address
    std::mt19937 rng(1);
    try {
        runCoSimulation(config, assembleArtifact(program, 0x4000), {{"a", randomInt8({32, 16}, rng)}, {"b", randomInt8({16, 16}, rng)}}, {});
        FAIL() << "expected the job to be rejected";
    } catch (const RunError& e) {
        EXPECT_NE(std::string(e.what()).find("bad_loop at command 1"), std::string::npos) << e.what();
    }
}

TEST(CoSim, ACommandALoopGeneratesOutsideTheWindowStopsTheJobAtItsBodyDescriptor) {
    const ArchConfig config = loadArchConfig("edge", {});
    // Blocks 0x1000 apart: the fourth, at 0x3000, ends past the 0x3000-byte window.
    const std::vector<std::string> program = loopedGemmProgram("4", "0x1000");
    std::mt19937 rng(1);
    try {
        runCoSimulation(config, assembleArtifact(program, 0x3000), {{"a", randomInt8({32, 16}, rng)}, {"b", randomInt8({16, 16}, rng)}}, {});
        FAIL() << "expected the job to be rejected";
    } catch (const RunError& e) {
        EXPECT_NE(std::string(e.what()).find("dram_out_of_window at command 2"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace npusim::sim

namespace npusim::sim {
namespace {

TEST(CoSim, AFaultedJobLeavesTheNextJobUnharmed) {
    const ArchConfig config = loadArchConfig("edge", {});
    std::vector<std::string> deadlocked = kGemmProgram;
    deadlocked[2] = "sem.signal queue=load sem=2";  // the tensor queue waits on semaphore 0
    std::mt19937 rng(3);
    const Tensor a = randomInt8({32, 16}, rng), b = randomInt8({16, 16}, rng);
    std::string firstError;
    Tensor secondResult;
    runSystem(config, nullptr, false, [&](driver::Driver& driver) {
        runtime::Runtime runtime(driver, 1'000'000);
        const Artifact deadlockedArtifact = assembleArtifact(deadlocked, 0x4000);
        const runtime::LoadedModel bad = runtime.load(deadlockedArtifact);
        try {
            runtime.run(bad, {{"a", a}, {"b", b}});
        } catch (const RunError& e) {
            firstError = e.what();
        }
        runtime.unload(bad);
        const Artifact goodArtifact = assembleArtifact(kGemmProgram, 0x4000);
        const runtime::LoadedModel good = runtime.load(goodArtifact);
        secondResult = runtime.run(good, {{"a", a}, {"b", b}}).outputs.at(0);
    });
    EXPECT_NE(firstError.find("deadlock at command 3"), std::string::npos) << firstError;
    const auto c = secondResult.as<int32_t>();
    for (int i = 0; i < 32; ++i) {
        for (int j = 0; j < 16; ++j) {
            int32_t expected = 0;
            for (int p = 0; p < 16; ++p) expected += a.as<int8_t>()[i * 16 + p] * b.as<int8_t>()[p * 16 + j];
            ASSERT_EQ(c[i * 16 + j], expected);
        }
    }
}

/// C = A x B of kGemmProgram's inputs.
std::vector<int32_t> product(const Tensor& a, const Tensor& b) {
    std::vector<int32_t> c(32 * 16);
    for (int i = 0; i < 32; ++i) {
        for (int j = 0; j < 16; ++j) {
            for (int p = 0; p < 16; ++p) c[i * 16 + j] += a.as<int8_t>()[i * 16 + p] * b.as<int8_t>()[p * 16 + j];
        }
    }
    return c;
}

TEST(CoSim, ContextsAreIsolated) {
    const ArchConfig config = loadArchConfig("edge", {});
    std::mt19937 rng(7);
    const Tensor a = randomInt8({32, 16}, rng), b = randomInt8({16, 16}, rng);
    const std::vector<int32_t> expected = product(a, b);
    // Reads 1 KiB just past its 16 KiB window (where the next context's memory is) into SRAM,
    // then would store it as its output.
    const std::vector<std::string> escaping = {
        "dma.load dram=0x4000 space=sram addr=0x0 rows=1 row_bytes=1024 dram_stride=1024 stride=1024",
        "sem.signal queue=load sem=0",
        "sem.wait queue=store sem=0",
        "dma.store dram=0x2000 space=sram addr=0x0 rows=1 row_bytes=1024 dram_stride=1024 stride=1024",
        "end"};
    // Stays in its window but stores whatever the accumulator holds as its output.
    const std::vector<std::string> snooping = {
        "dma.store dram=0x2000 space=acc addr=0x0 rows=32 row_bytes=64 dram_stride=64 stride=64", "end"};
    std::string escapeError;
    std::vector<std::byte> escapedOutput(2048), snoopedOutput(2048);
    std::vector<int32_t> first, again;
    runSystem(config, nullptr, false, [&](driver::Driver& driver) {
        runtime::Runtime runtime(driver, 1'000'000);
        // Three models resident at once, each in its own context.
        const Artifact gemmArtifact = assembleArtifact(kGemmProgram, 0x4000);
        const Artifact escapeArtifact = assembleArtifact(escaping, 0x4000), snoopArtifact = assembleArtifact(snooping, 0x4000);
        const runtime::LoadedModel gemm = runtime.load(gemmArtifact);
        const runtime::LoadedModel escape = runtime.load(escapeArtifact);
        const runtime::LoadedModel snoop = runtime.load(snoopArtifact);
        const Tensor c = runtime.run(gemm, {{"a", a}, {"b", b}}).outputs.at(0);
        first.assign(c.as<int32_t>().begin(), c.as<int32_t>().end());
        try {
            runtime.run(escape, {{"a", a}, {"b", b}});
        } catch (const RunError& e) {
            escapeError = e.what();
        }
        driver.read(escape.context, 0x2000, escapedOutput);
        runtime.run(snoop, {{"a", a}, {"b", b}});
        driver.read(snoop.context, 0x2000, snoopedOutput);
        const Tensor c2 = runtime.run(gemm, {{"a", a}, {"b", b}}).outputs.at(0);
        again.assign(c2.as<int32_t>().begin(), c2.as<int32_t>().end());
    });
    EXPECT_EQ(first, expected);
    EXPECT_NE(escapeError.find("dram_out_of_window at command 0"), std::string::npos) << escapeError;
    // Not one byte of the other contexts reaches either job's output: the escaping job was
    // stopped before it ran, and the accumulator was scrubbed when the context changed.
    const std::vector<std::byte> zeros(2048);
    EXPECT_EQ(escapedOutput, zeros);
    EXPECT_EQ(snoopedOutput, zeros);
    EXPECT_EQ(again, expected);
}

TEST(CoSim, TheWatchdogStopsAJobPastItsBudgetAndTheNextJobRuns) {
    const ArchConfig config = loadArchConfig("edge", {});
    // 256 loads of 64 KiB each: about a million cycles of DRAM traffic.
    std::vector<std::string> slow;
    for (int i = 0; i < 256; ++i) {
        slow.push_back("dma.load dram=0x0 space=sram addr=0x0 rows=1024 row_bytes=64 dram_stride=64 stride=64");
    }
    slow.push_back("end");
    std::mt19937 rng(9);
    const Tensor a = randomInt8({32, 16}, rng), b = randomInt8({16, 16}, rng);
    std::string error;
    uint64_t stoppedAt = 0;
    std::vector<int32_t> after;
    runSystem(config, nullptr, false, [&](driver::Driver& driver) {
        runtime::Runtime hurried(driver, 20'000);
        const Artifact slowArtifact = assembleArtifact(slow, 0x10000);
        const runtime::LoadedModel job = hurried.load(slowArtifact);
        const uint64_t start = driver.nowCycles();
        try {
            hurried.run(job, {{"a", a}, {"b", b}});
        } catch (const RunError& e) {
            error = e.what();
        }
        stoppedAt = driver.nowCycles() - start;
        hurried.unload(job);
        runtime::Runtime patient(driver, 1'000'000);
        const Artifact gemmArtifact = assembleArtifact(kGemmProgram, 0x4000);
        const runtime::LoadedModel gemm = patient.load(gemmArtifact);
        const Tensor c = patient.run(gemm, {{"a", a}, {"b", b}}).outputs.at(0);
        after.assign(c.as<int32_t>().begin(), c.as<int32_t>().end());
    });
    EXPECT_NE(error.find("watchdog"), std::string::npos) << error;
    // Stopped by the firmware soon after its budget (each queue finishes the load it executes,
    // about 4,000 cycles), far from the ~125,000 cycles the whole job takes.
    EXPECT_LT(stoppedAt, 2 * 20'000u);
    EXPECT_EQ(after, product(a, b));
}

TEST(CoSim, ADeadlockedRunEndsWithTheHardwaresExplanation) {
    const ArchConfig config = loadArchConfig("edge", {});
    std::vector<std::string> deadlocked = kGemmProgram;
    deadlocked[5] = "sem.signal queue=tensor sem=7";  // the store queue waits on semaphore 1
    std::mt19937 rng(5);
    try {
        runCoSimulation(config, assembleArtifact(deadlocked, 0x4000),
                        {{"a", randomInt8({32, 16}, rng)}, {"b", randomInt8({16, 16}, rng)}}, {});
        FAIL() << "expected a deadlock";
    } catch (const RunError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("deadlock at command 6"), std::string::npos) << message;
        EXPECT_NE(message.find("sem.wait"), std::string::npos) << message;
    }
}

}  // namespace
}  // namespace npusim::sim
