// buildReport on a synthetic trace and manifest, without a simulation: per-unit accounting
// (busy + stalls + idle = the job's cycles), op spans and the events they leave out, the
// control core's dispatch work clipped to its op's span, what bounds an op, the roofline, and
// the findings a spill and a CPU segment raise.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "arch/arch_config.h"
#include "reports/op_spans.h"
#include "reports/report.h"

namespace npusim::reports {
namespace {

using trace::Event;
using trace::EventType;
using trace::UnitKind;

struct Fixture {
    ArchConfig config = loadArchConfig("edge", {});
    ArtifactManifest manifest;
    trace::Recorder trace;
    uint16_t control = trace.addUnit("npu.control_core", UnitKind::ControlCore);
    uint16_t load = trace.addUnit("npu.dma_load", UnitKind::Dma);
    uint16_t tensor = trace.addUnit("npu.tensor", UnitKind::Tensor);
    uint16_t host = trace.addUnit("host.cpu", UnitKind::Host);

    Fixture() {
        manifest.modelName = "synthetic";
        OpRecord gemm;
        gemm.opId = 0;
        gemm.name = "fc";
        gemm.type = "Gemm";
        gemm.macs = 1'000'000;
        gemm.minDramBytes = 4096;
        OpRecord topk;
        topk.opId = 1;
        topk.name = "top";
        topk.type = "TopK";
        manifest.ops = {gemm, topk};
    }

    /// An event of `type` on `unit` for op `op` over [start, end).
    Event at(EventType type, uint16_t unit, uint32_t op, uint64_t start, uint64_t end) const {
        Event e;
        e.type = type;
        e.unit = unit;
        e.opId = op;
        e.start = start;
        e.end = end;
        return e;
    }
    void command(uint16_t unit, isa::Opcode opcode, uint32_t op, uint64_t start, uint64_t end,
                 isa::CommandKind kind = isa::CommandKind::Compute) {
        Event e = at(EventType::Command, unit, op, start, end);
        e.opcode = opcode;
        e.kind = kind;
        e.bytes = opcode == isa::Opcode::DmaLoad ? 2048 : 0;
        trace.record(e);
    }
    void event(uint16_t unit, EventType type, uint32_t op, uint64_t start, uint64_t end) { trace.record(at(type, unit, op, start, end)); }
    Report build(uint64_t jobStart, uint64_t jobCycles) {
        return buildReport({config, manifest, trace, jobStart, jobCycles, 8192, 1024, 10, 2});
    }
};

TEST(ReportBuilder, UnitsAccountForEveryCycleOfTheJob) {
    Fixture f;
    f.command(f.control, isa::Opcode::Gemm, 0, 0, 10);
    f.command(f.load, isa::Opcode::DmaLoad, 0, 10, 40);
    f.event(f.tensor, EventType::Stall, 0, 10, 40);  // a semaphore wait
    f.command(f.tensor, isa::Opcode::Gemm, 0, 40, 90);
    const Report r = f.build(0, 100);
    EXPECT_EQ(r.totalCycles, 100u);
    for (const UnitReport& unit : r.units) {
        uint64_t stalled = 0;
        for (uint64_t s : unit.stalls) stalled += s;
        EXPECT_EQ(unit.busy + stalled + unit.idle, 100u) << unit.name;
    }
    const auto tensor = std::find_if(r.units.begin(), r.units.end(), [](const UnitReport& u) { return u.name == "npu.tensor"; });
    ASSERT_NE(tensor, r.units.end());
    EXPECT_EQ(tensor->busy, 50u);
    EXPECT_EQ(tensor->stalls[static_cast<size_t>(trace::StallReason::SemaphoreWait)], 30u);
    EXPECT_DOUBLE_EQ(tensor->utilization, 0.5);
    EXPECT_EQ(r.dramBytesRead, 8192u);
}

TEST(ReportBuilder, AnOpSpansItsUnitsCommandsNotItsDispatchOrWeightUploads) {
    Fixture f;
    f.event(f.host, EventType::WeightUpload, 0, 0, 20);   // before the job: not the op's time
    f.command(f.control, isa::Opcode::Gemm, 0, 20, 30);   // dispatch before the first command
    f.command(f.load, isa::Opcode::DmaLoad, 0, 25, 45);
    f.command(f.control, isa::Opcode::Gemm, 0, 40, 50);   // dispatch, half inside the span's end
    f.command(f.tensor, isa::Opcode::Gemm, 0, 45, 55);
    const std::map<uint32_t, OpSpan> spans = opSpans(f.trace);
    ASSERT_EQ(spans.count(0), 1u);
    EXPECT_EQ(spans.at(0).start, 25u);
    EXPECT_EQ(spans.at(0).cycles(), 30u);
    const Report r = f.build(0, 60);
    const OpReport& op = r.ops.at(0);
    EXPECT_EQ(op.cycles, 30u);
    EXPECT_EQ(op.dispatchCycles, 15u);  // 25..30 and 40..50
    EXPECT_EQ(op.loadBusy, 20u);
    EXPECT_EQ(op.tensorBusy, 10u);
    EXPECT_EQ(op.bound, "memory");  // the load is busy for 20 of the op's 30 cycles
    EXPECT_EQ(op.weightUploadCycles, 20u);
}

TEST(ReportBuilder, AnOpWhoseDmasOnlyMoveWithinSramIsBoundOnChip) {
    Fixture f;
    Event move = f.at(EventType::Command, f.load, 0, 0, 40);
    move.opcode = isa::Opcode::DmaLoad;
    move.bytes = 4096;
    move.onchipMove = true;  // a resident tensor's block: no DRAM byte moves
    f.trace.record(move);
    f.command(f.tensor, isa::Opcode::Gemm, 0, 40, 50);
    const OpReport& op = f.build(0, 60).ops.at(0);
    EXPECT_EQ(op.dramBytes, 0u);
    EXPECT_EQ(op.bound, "on_chip");
}

TEST(ReportBuilder, EventsOutsideTheJobWindowAreLeftOut) {
    Fixture f;
    f.command(f.tensor, isa::Opcode::Gemm, 0, 0, 10);
    f.command(f.tensor, isa::Opcode::Gemm, 0, 100, 130);  // a --repeat run's
    EXPECT_EQ(opSpans(f.trace, 0, 0, 50).at(0).cycles(), 10u);
    EXPECT_EQ(opSpans(f.trace, 1).at(0).start, 100u);
    const Report r = f.build(0, 50);
    EXPECT_EQ(r.ops.at(0).cycles, 10u);
    EXPECT_EQ(r.ops.at(0).tensorBusy, 10u);
}

TEST(ReportBuilder, TheRooflineBoundsEachOpBySlowerOfComputeAndTraffic) {
    Fixture f;
    f.command(f.tensor, isa::Opcode::Gemm, 0, 0, 4000);
    const Report r = f.build(0, 4000);
    const OpReport& op = r.ops.at(0);
    EXPECT_GT(op.peakMacsPerCycle, 0);
    const double compute = 1'000'000 / op.peakMacsPerCycle, traffic = 4096 / r.peakDramBytesPerCycle;
    EXPECT_DOUBLE_EQ(op.attainableCycles, std::max(compute, traffic));
    EXPECT_DOUBLE_EQ(op.efficiency, op.attainableCycles / 4000);
    EXPECT_DOUBLE_EQ(op.intensity, 1'000'000.0 / 4096);
}

TEST(ReportBuilder, TheShapeAwareBoundIsTheSlowestUnitsAndNamesIt) {
    Fixture f;
    f.manifest.ops[0].bounds = {30'000, 500, 2'000, 100};
    f.command(f.tensor, isa::Opcode::Gemm, 0, 0, 40'000);
    const Report r = f.build(0, 40'000);
    const OpReport& op = r.ops.at(0);
    EXPECT_EQ(op.shape.limit, "array");
    EXPECT_DOUBLE_EQ(op.shape.attainableCycles, 30'000);  // above the plain roofline's
    EXPECT_GE(op.shape.attainableCycles, op.attainableCycles);
    EXPECT_DOUBLE_EQ(op.shape.efficiency, 0.75);
    EXPECT_DOUBLE_EQ(op.shape.dramCycles, 4096 / r.peakDramBytesPerCycle);
    EXPECT_DOUBLE_EQ(r.shapeAttainableCycles, 30'000);  // the TopK has no commands and no bound
    EXPECT_DOUBLE_EQ(r.shapeEfficiency, 0.75);
    EXPECT_TRUE(boundViolations(r).empty());
}

TEST(ReportBuilder, AnOpOrRunFasterThanItsBoundIsAViolation) {
    Fixture f;
    f.manifest.ops[0].bounds = {30'000, 0, 0, 0};
    f.command(f.tensor, isa::Opcode::Gemm, 0, 0, 20'000);
    const std::vector<std::string> violations = boundViolations(f.build(0, 25'000));
    ASSERT_EQ(violations.size(), 2u);
    EXPECT_EQ(violations[0], "op fc took 20000 cycles, fewer than its shape-aware bound of 30000.000000");
    EXPECT_EQ(violations[1], "the run took 25000 cycles, fewer than its shape-aware bound of 30000.000000");
}

TEST(ReportBuilder, AnOpFarBelowItsShapeAwareBoundIsAFindingNamingTheBusiestUnit) {
    Fixture f;
    f.manifest.ops[0].bounds = {1'000, 0, 200, 0};
    f.command(f.load, isa::Opcode::DmaLoad, 0, 0, 9'000);
    f.command(f.tensor, isa::Opcode::Gemm, 0, 9'000, 10'000);
    const Report r = f.build(0, 10'000);
    const auto below = std::find_if(r.findings.begin(), r.findings.end(), [](const Finding& x) { return x.kind == "below_bound"; });
    ASSERT_NE(below, r.findings.end());
    EXPECT_EQ(below->op, "fc");
    EXPECT_EQ(below->cycles, 9'000u);  // 10,000 cycles against a bound of 1,000
    EXPECT_NE(below->message.find("the load DMA is busy 9000 cycles"), std::string::npos) << below->message;
}

TEST(ReportBuilder, SpillsAndCpuSegmentsAreFindingsAtTheirOps) {
    Fixture f;
    f.command(f.tensor, isa::Opcode::Gemm, 0, 0, 50);
    f.command(f.load, isa::Opcode::DmaStore, 0, 50, 80, isa::CommandKind::Spill);
    f.event(f.host, EventType::HostCopyIn, 1, 80, 90);
    f.event(f.host, EventType::HostKernel, 1, 90, 190);
    f.event(f.host, EventType::HostCopyOut, 1, 190, 200);
    const Report r = f.build(0, 200);
    EXPECT_EQ(r.ops.at(0).spillCount, 1u);
    EXPECT_EQ(r.ops.at(0).spillCycles, 30u);
    EXPECT_EQ(r.ops.at(1).bound, "host");
    std::map<std::string, std::string> kinds;  // kind -> op
    for (const Finding& finding : r.findings) kinds.emplace(finding.kind, finding.op);
    EXPECT_EQ(kinds["spill"], "fc");
    EXPECT_EQ(kinds["cpu_fallback"], "top");
    // Most cycles lost first.
    for (size_t i = 1; i < r.findings.size(); ++i) EXPECT_GE(r.findings[i - 1].cycles, r.findings[i].cycles);
}

}  // namespace
}  // namespace npusim::reports
