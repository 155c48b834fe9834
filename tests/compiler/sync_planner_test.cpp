// Sync planning: the semaphore pairs inserted for cross-queue dependencies, and the ones a
// queue's vector clock makes unnecessary.
#include <gtest/gtest.h>

#include <map>

#include "arch/error.h"
#include "compiler/target/sync_planner.h"

namespace npusim::compiler {
namespace {

isa::Command on(isa::Opcode opcode) {
    isa::Command command;
    command.opcode = opcode;
    return command;
}

/// The stream as "queue:mnemonic" (semaphore commands name their queue and semaphore).
std::vector<std::string> shape(const std::vector<isa::Command>& stream) {
    std::vector<std::string> out;
    for (const isa::Command& c : stream) {
        std::string text(isa::queueName(isa::queueOf(c)));
        text += ':';
        text += isa::opcodeName(c.opcode);
        if (c.opcode == isa::Opcode::SemSignal || c.opcode == isa::Opcode::SemWait) {
            text += '#';
            text += std::to_string(c.get(isa::Field::Semaphore));
        }
        if (c.opcode == isa::Opcode::End) text = "end";
        out.push_back(text);
    }
    return out;
}

/// A planner whose resources in `extents` live on chip there; the others are DRAM tensors.
SyncPlanner planner(std::map<uint32_t, ResourceExtent> extents = {}) {
    return SyncPlanner(32, [extents](uint32_t r) -> std::optional<ResourceExtent> {
        const auto it = extents.find(r);
        if (it == extents.end()) return std::nullopt;
        return it->second;
    });
}

TEST(SyncPlanner, ReadAfterWriteAcrossQueuesGetsOnePair) {
    SyncPlanner p = planner();
    p.add(on(isa::Opcode::DmaLoad), std::vector<Access>{{1, true}});
    p.add(on(isa::Opcode::Gemm), std::vector<Access>{{1, false}, {2, true}});
    p.add(on(isa::Opcode::DmaStore), std::vector<Access>{{2, false}});
    EXPECT_EQ(shape(p.finish()),
              (std::vector<std::string>{"load:dma.load", "load:sem.signal#0", "tensor:sem.wait#0", "tensor:gemm",
                                        "tensor:sem.signal#1", "store:sem.wait#1", "store:dma.store", "end"}));
    EXPECT_EQ(p.semaphoresUsed(), 2u);
}

TEST(SyncPlanner, SameQueueNeedsNoSemaphore) {
    SyncPlanner p = planner();
    p.add(on(isa::Opcode::Gemm), std::vector<Access>{{1, true}});
    p.add(on(isa::Opcode::Gemm), std::vector<Access>{{1, false}});
    EXPECT_EQ(shape(p.finish()), (std::vector<std::string>{"tensor:gemm", "tensor:gemm", "end"}));
}

TEST(SyncPlanner, AnEarlierWaitCoversOlderWrites) {
    SyncPlanner p = planner();
    p.add(on(isa::Opcode::DmaLoad), std::vector<Access>{{1, true}});
    p.add(on(isa::Opcode::DmaLoad), std::vector<Access>{{2, true}});
    // The GEMM needs both loads: waiting for the second implies the first.
    p.add(on(isa::Opcode::Gemm), std::vector<Access>{{1, false}, {2, false}});
    EXPECT_EQ(shape(p.finish()), (std::vector<std::string>{"load:dma.load", "load:dma.load", "load:sem.signal#0",
                                                           "tensor:sem.wait#0", "tensor:gemm", "end"}));
}

TEST(SyncPlanner, KnowledgeIsTransitive) {
    SyncPlanner p = planner();
    p.add(on(isa::Opcode::DmaLoad), std::vector<Access>{{1, true}});
    p.add(on(isa::Opcode::Gemm), std::vector<Access>{{1, false}, {2, true}});
    // The store reads both: the tensor queue's wait already ordered it after the load.
    p.add(on(isa::Opcode::DmaStore), std::vector<Access>{{1, false}, {2, false}});
    const auto stream = shape(p.finish());
    EXPECT_EQ(std::count(stream.begin(), stream.end(), "store:sem.wait#1"), 1);
    EXPECT_EQ(p.semaphoresUsed(), 2u);  // load->tensor and tensor->store, no load->store
}

TEST(SyncPlanner, WriteAfterReadWaitsForTheReader) {
    SyncPlanner p = planner();
    p.add(on(isa::Opcode::DmaLoad), std::vector<Access>{{1, true}});
    p.add(on(isa::Opcode::Gemm), std::vector<Access>{{1, false}});
    p.add(on(isa::Opcode::DmaLoad), std::vector<Access>{{1, true}});  // overwrites what the GEMM reads
    EXPECT_EQ(shape(p.finish()),
              (std::vector<std::string>{"load:dma.load", "load:sem.signal#0", "tensor:sem.wait#0", "tensor:gemm",
                                        "tensor:sem.signal#1", "load:sem.wait#1", "load:dma.load", "end"}));
}

TEST(SyncPlanner, OverlappingBuffersConflictButNeighboursOfNeighboursDoNot) {
    // 3 overlaps both 1 and 2; 1 and 2 are disjoint.
    SyncPlanner p = planner({{1, {AddressSpace::Sram, 0, 64}},
                             {2, {AddressSpace::Sram, 128, 192}},
                             {3, {AddressSpace::Sram, 32, 160}}});
    p.add(on(isa::Opcode::Gemm), std::vector<Access>{{1, false}});
    p.add(on(isa::Opcode::DmaLoad), std::vector<Access>{{2, true}});  // disjoint from 1: no wait
    p.add(on(isa::Opcode::DmaLoad), std::vector<Access>{{3, true}});  // overlaps 1: waits for the GEMM
    EXPECT_EQ(shape(p.finish()), (std::vector<std::string>{"tensor:gemm", "tensor:sem.signal#0", "load:dma.load",
                                                           "load:sem.wait#0", "load:dma.load", "end"}));
}

TEST(SyncPlanner, AWriteWaitsOnlyForReadersOfTheBytesItCovers) {
    // 1 spans [0, 64); 2 its first half, 3 its second half.
    SyncPlanner p = planner({{1, {AddressSpace::Sram, 0, 64}},
                             {2, {AddressSpace::Sram, 0, 32}},
                             {3, {AddressSpace::Sram, 32, 64}}});
    p.add(on(isa::Opcode::Gemm), std::vector<Access>{{1, false}});
    p.add(on(isa::Opcode::Vector), std::vector<Access>{{2, false}});
    p.add(on(isa::Opcode::DmaLoad), std::vector<Access>{{3, true}});  // the GEMM read it, the vector op did not
    EXPECT_EQ(shape(p.finish()), (std::vector<std::string>{"tensor:gemm", "tensor:sem.signal#0", "vector:vec",
                                                           "load:sem.wait#0", "load:dma.load", "end"}));
}

TEST(SyncPlanner, TheSameAddressesInAnotherSpaceDoNotConflict) {
    SyncPlanner p = planner({{1, {AddressSpace::Sram, 0, 64}}, {2, {AddressSpace::Accumulator, 0, 64}}});
    p.add(on(isa::Opcode::Gemm), std::vector<Access>{{1, false}});
    p.add(on(isa::Opcode::DmaLoad), std::vector<Access>{{2, true}});
    EXPECT_EQ(shape(p.finish()), (std::vector<std::string>{"tensor:gemm", "load:dma.load", "end"}));
}

TEST(SyncPlanner, RunningOutOfSemaphoresIsAnError) {
    SyncPlanner p(1, [](uint32_t) { return std::optional<ResourceExtent>{}; });
    p.add(on(isa::Opcode::DmaLoad), std::vector<Access>{{1, true}});
    p.add(on(isa::Opcode::Gemm), std::vector<Access>{{1, false}, {2, true}});
    EXPECT_THROW(p.add(on(isa::Opcode::DmaStore), std::vector<Access>{{2, false}}), InputError);
}

}  // namespace
}  // namespace npusim::compiler
