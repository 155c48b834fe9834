// Random command streams never crash or hang the model: each job ends as a rejected or faulted
// job with an error code, or as a clean run, and the NPU still computes correctly afterwards.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "arch/arch_config.h"
#include "arch/error.h"
#include "arch/isa.h"
#include "arch/isa_table.h"
#include "runtime/runtime.h"
#include "sim/cosim.h"
#include "tests/support/artifact_support.h"

namespace npusim::sim {
namespace {

constexpr uint64_t kWindow = 64 * 1024;
constexpr int kJobs = 2000;

/// A command with every field random, small values more likely than large ones so that some
/// commands pass validation and run.
isa::Command randomCommand(std::mt19937_64& rng) {
    const auto table = isa::opcodeTable();
    const isa::OpcodeInfo& info = table[rng() % table.size()];
    isa::Command command;
    command.opcode = info.opcode;
    command.kind = static_cast<isa::CommandKind>(rng() % isa::kCommandKindCount);
    command.opId = static_cast<uint32_t>(rng() % 4);
    for (const isa::FieldLayout& field : info.fields) {
        const uint64_t mask = field.width >= 64 ? ~0ull : (1ull << field.width) - 1;
        uint64_t value = rng() & mask;
        if (rng() % 4 != 0) value &= rng() % 2 ? 0xf : 0xfff;
        if (field.format == isa::ValueFormat::Signed && (value >> (field.width - 1)) & 1u) value |= ~mask;
        command.set(field.field, value);
    }
    return command;
}

/// Pulls a random command's fields into ranges the edge NPU accepts, so that jobs also run,
/// deadlock and fault instead of only being rejected.
isa::Command plausible(isa::Command c, std::mt19937_64& rng) {
    using isa::Field;
    const auto small = [&](uint64_t limit) { return 1 + rng() % limit; };
    switch (c.opcode) {
        case isa::Opcode::DmaLoad:
        case isa::Opcode::DmaStore:
            c.set(Field::DramAddr, rng() % kWindow).set(Field::Rows, small(8)).set(Field::RowBytes, small(256));
            c.set(Field::DramStride, rng() % 512).set(Field::OnchipAddr, rng() % 0x10000).set(Field::OnchipStride, small(512));
            c.set(Field::Space, rng() % 2).set(Field::Transpose, 0).set(Field::ElemBytes, 0);
            break;
        case isa::Opcode::Gemm: {
            const uint64_t m = small(64), n = small(16), k = small(16);
            c.set(Field::M, m).set(Field::N, n).set(Field::K, k).set(Field::DType, rng() % 2 ? 0 : 3);
            c.set(Field::AStride, k).set(Field::BStride, n).set(Field::CStride, n).set(Field::AZeroPoint, 0).set(Field::BZeroPoint, 0);
            c.set(Field::AAddr, rng() % 0x8000).set(Field::BAddr, rng() % 0x8000).set(Field::CAddr, rng() % 0x4000);
            break;
        }
        case isa::Opcode::Vector: {
            const uint64_t cols = small(32);
            const uint64_t dtype = rng() % 2 ? 2 : 3;
            c.set(Field::VectorOp, rng() % isa::kVectorOpCount).set(Field::DType, dtype).set(Field::OutDType, dtype);
            c.set(Field::Operand1Mode, rng() % 6).set(Field::Rows, small(16)).set(Field::Cols, cols);
            c.set(Field::DstStride, cols).set(Field::Src0Stride, cols).set(Field::Src1Stride, cols);
            c.set(Field::DstAddr, rng() % 0x4000).set(Field::Src0Addr, rng() % 0x4000).set(Field::Src1Addr, rng() % 0x4000);
            c.set(Field::DstSpace, rng() % 2).set(Field::Src0Space, rng() % 2).set(Field::Src1Space, rng() % 2);
            break;
        }
        case isa::Opcode::SemSignal:
        case isa::Opcode::SemWait: c.set(Field::Queue, rng() % 4).set(Field::Semaphore, rng() % 4); break;
        case isa::Opcode::Loop:
            c.set(Field::LoopCount, small(4)).set(Field::LoopBody, small(3)).set(Field::LoopSteps, rng() % 2);
            break;
        case isa::Opcode::End:
        case isa::Opcode::Step: break;
    }
    return c;
}

Artifact randomJob(std::mt19937_64& rng) {
    std::vector<std::byte> stream;
    const size_t count = 1 + rng() % (rng() % 2 ? 3 : 12);
    for (size_t i = 0; i < count; ++i) {
        const isa::Command command = randomCommand(rng);
        isa::EncodedCommand bytes = isa::encode(rng() % 2 ? plausible(command, rng) : command);
        if (rng() % 8 == 0) bytes[rng() % bytes.size()] ^= std::byte{static_cast<unsigned char>(1u << (rng() % 8))};
        stream.insert(stream.end(), bytes.begin(), bytes.end());
    }
    if (rng() % 8 != 0) {  // usually end properly
        const isa::EncodedCommand end = isa::encode(isa::Command{});
        stream.insert(stream.end(), end.begin(), end.end());
    }
    Artifact artifact;
    artifact.manifest.dramBytes = kWindow;
    artifact.sections[kCommandsSection] = std::move(stream);
    artifact.manifest.segments = {testing::npuSegment(kCommandsSection)};
    return artifact;
}

TEST(FuzzCommands, RandomJobsEndCleanlyAndTheNpuKeepsWorking) {
    const ArchConfig config = loadArchConfig("edge", {});
    std::mt19937_64 rng(2026);
    int rejected = 0, completed = 0;
    std::vector<int32_t> product;
    runSystem(config, nullptr, false, [&](driver::Driver& driver) {
        runtime::Runtime runtime(driver, 50'000'000);
        for (int job = 0; job < kJobs; ++job) {
            const Artifact artifact = randomJob(rng);
            const runtime::LoadedModel model = runtime.load(artifact);
            try {
                runtime.run(model, {});
                ++completed;
            } catch (const RunError& e) {
                EXPECT_EQ(std::string(e.what()).find("timed out"), std::string::npos) << e.what();
                ++rejected;
            }
            runtime.unload(model);
        }
        // A real job afterwards: 2x2 int8 GEMM through DMA, tensor unit and DMA back.
        Artifact good;
        good.manifest.inputs = {testing::binding("a", DType::Int8, {2, 2}, 0), testing::binding("b", DType::Int8, {2, 2}, 64)};
        good.manifest.outputs = {testing::binding("c", DType::Int32, {2, 2}, 128)};
        good.manifest.dramBytes = 4096;
        std::vector<isa::Command> commands;
        for (const char* line :
             {"dma.load dram=0x0 addr=0x0 rows=1 row_bytes=4 dram_stride=4 stride=4",
              "dma.load dram=0x40 addr=0x100 rows=1 row_bytes=4 dram_stride=4 stride=4",
              "sem.signal queue=load sem=0", "sem.wait queue=tensor sem=0",
              "gemm a=0x0 b=0x100 c=0x0 m=2 n=2 k=2 dtype=int8 a_stride=2 b_stride=2 c_stride=2",
              "sem.signal queue=tensor sem=1", "sem.wait queue=store sem=1",
              "dma.store dram=0x80 space=acc addr=0x0 rows=1 row_bytes=16 dram_stride=16 stride=16", "end"}) {
            commands.push_back(isa::assemble(line));
        }
        good.manifest.segments = {testing::npuSegment(kCommandsSection)};
        good.sections[kCommandsSection] = isa::encodeStream(commands);
        const runtime::LoadedModel model = runtime.load(good);
        Tensor a = Tensor::zeros(DType::Int8, {2, 2}), b = Tensor::zeros(DType::Int8, {2, 2});
        const int8_t values[] = {1, 2, 3, 4};
        std::memcpy(a.bytes.data(), values, 4);
        std::memcpy(b.bytes.data(), values, 4);
        const auto c = runtime.run(model, {{"a", a}, {"b", b}}).outputs.at(0);
        product.assign(c.as<int32_t>().begin(), c.as<int32_t>().end());
    });
    EXPECT_EQ(rejected + completed, kJobs);
    EXPECT_GT(rejected, 0);
    EXPECT_GT(completed, 0);
    EXPECT_EQ(product, (std::vector<int32_t>{7, 10, 15, 22}));
}

}  // namespace
}  // namespace npusim::sim
