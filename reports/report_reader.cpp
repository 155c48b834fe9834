// Reading report.json back into a Report, so that reports can be rebuilt and compared from a
// run directory without rerunning the simulation.
#include <cmath>

#include <nlohmann/json.hpp>

#include "arch/error.h"
#include "reports/report.h"

namespace npusim::reports {
namespace {

using Json = nlohmann::ordered_json;

std::array<uint64_t, trace::kStallReasonCount> stallsFromJson(const Json& j) {
    std::array<uint64_t, trace::kStallReasonCount> stalls{};
    for (int reason = 0; reason < trace::kStallReasonCount; ++reason) {
        stalls[static_cast<size_t>(reason)] =
            j.at(std::string(trace::stallReasonName(static_cast<trace::StallReason>(reason)))).get<uint64_t>();
    }
    return stalls;
}

std::optional<PhaseTiming> phaseFromJson(const Json& j) {
    if (j.is_null()) return std::nullopt;
    return PhaseTiming{j.at("cycles").get<uint64_t>(), j.at("host_seconds").get<double>()};
}

OpReport opFromJson(const Json& j) {
    OpReport op;
    op.opId = j.at("op_id").get<uint32_t>();
    op.name = j.at("name").get<std::string>();
    op.type = j.at("type").get<std::string>();
    op.dtype = j.at("dtype").get<std::string>();
    op.cycles = j.at("cycles").get<uint64_t>();
    op.macs = j.at("macs").get<uint64_t>();
    op.dramBytes = j.at("dram_bytes").get<uint64_t>();
    // Fields newer reports have; an older report.json reads them as unknown (0).
    op.sramBytes = j.value("sram_bytes", uint64_t{0});
    op.tensorBusy = j.at("tensor_busy_cycles").get<uint64_t>();
    op.vectorBusy = j.at("vector_busy_cycles").get<uint64_t>();
    op.loadBusy = j.at("load_busy_cycles").get<uint64_t>();
    op.storeBusy = j.at("store_busy_cycles").get<uint64_t>();
    op.stallCycles = j.at("stall_cycles").get<uint64_t>();
    op.stalls = stallsFromJson(j.at("stalls"));
    op.dispatchCycles = j.at("dispatch_cycles").get<uint64_t>();
    op.commands = j.value("commands", uint64_t{0});
    op.commandBytes = j.value("command_bytes", uint64_t{0});
    op.bound = j.at("bound").get<std::string>();
    op.peakMacsPerCycle = j.value("peak_macs_per_cycle", 0.0);
    op.minDramBytes = j.value("min_dram_bytes", uint64_t{0});
    op.intensity = j.value("intensity", 0.0);
    op.attainableCycles = j.at("attainable_cycles").get<double>();
    op.efficiency = j.at("efficiency").get<double>();
    if (const auto shape = j.find("shape_bound"); shape != j.end()) {
        op.shape = {shape->at("array_cycles").get<uint64_t>(), shape->at("vector_cycles").get<uint64_t>(),
                    shape->at("load_cycles").get<uint64_t>(),  shape->at("store_cycles").get<uint64_t>(),
                    shape->at("dram_cycles").get<double>(),    shape->at("limit").get<std::string>(),
                    shape->at("attainable_cycles").get<double>(), shape->at("efficiency").get<double>()};
    }
    const Json& spill = j.at("spill");
    op.spillCount = spill.at("count").get<uint64_t>();
    op.spillBytes = spill.at("bytes").get<uint64_t>();
    op.spillCycles = spill.at("cycles").get<uint64_t>();
    op.reformatCount = j.at("reformat").at("count").get<uint64_t>();
    op.reformatCycles = j.at("reformat").at("cycles").get<uint64_t>();
    const Json& host = j.at("host");
    op.hostCopyCycles = host.at("copy_cycles").get<uint64_t>();
    op.hostKernelCycles = host.at("kernel_cycles").get<uint64_t>();
    op.hostCopyBytes = host.at("copy_bytes").get<uint64_t>();
    op.weightUploadCycles = host.value("weight_upload_cycles", uint64_t{0});
    op.weightUploadBytes = host.value("weight_upload_bytes", uint64_t{0});
    op.energyPj = j.value("energy_pj", 0.0);
    return op;
}

Report fromJson(const Json& j) {
    Report r;
    r.model = j.at("model").get<std::string>();
    r.arch = j.at("arch").get<std::string>();
    r.precision = j.value("precision", std::string("fp32"));
    r.objective = j.value("objective", std::string("cycles"));
    r.totalCycles = j.at("total_cycles").get<uint64_t>();
    r.clockHz = j.at("clock_hz").get<double>();
    r.timingOnly = j.at("timing_only").get<bool>();
    if (const Json& b = j.at("bucket"); !b.is_null()) {
        r.bucket = BucketUse{b.at("symbol").get<std::string>(), b.at("size").get<int64_t>(), b.at("actual").get<int64_t>()};
    }
    for (const auto& [name, u] : j.at("units").items()) {
        UnitReport unit;
        unit.name = name;
        unit.busy = u.at("busy_cycles").get<uint64_t>();
        unit.stalls = stallsFromJson(u.at("stall_cycles"));
        unit.idle = u.at("idle_cycles").get<uint64_t>();
        unit.commands = u.at("commands").get<uint64_t>();
        unit.utilization = u.at("utilization").get<double>();
        r.units.push_back(std::move(unit));
    }
    const Json& dram = j.at("dram");
    r.dramBytesRead = dram.at("bytes_read").get<uint64_t>();
    r.dramBytesWritten = dram.at("bytes_written").get<uint64_t>();
    r.dramRowHits = dram.at("row_hits").get<uint64_t>();
    r.dramRowMisses = dram.at("row_misses").get<uint64_t>();
    r.dramBytesPerCycle = dram.at("bytes_per_cycle").get<double>();
    r.dramGbps = dram.at("achieved_gbps").get<double>();
    for (const Json& op : j.at("ops")) r.ops.push_back(opFromJson(op));
    for (const Json& f : j.at("findings")) {
        r.findings.push_back({f.at("kind").get<std::string>(), f.at("op").get<std::string>(),
                              f.at("op_id").get<uint32_t>(), f.at("cycles_lost").get<uint64_t>(),
                              f.at("message").get<std::string>(), f.at("hint").get<std::string>()});
    }
    const Json& timing = j.at("timing");
    r.timing.repeat = timing.at("repeat").get<int>();
    if (const auto cold = phaseFromJson(timing.at("cold"))) r.timing.cold = *cold;
    r.timing.warm = phaseFromJson(timing.at("warm"));
    r.timing.steady = phaseFromJson(timing.at("steady"));
    const Json& roofline = j.at("roofline");
    r.peakMacsPerCycle = roofline.at("peak_macs_per_cycle").get<double>();
    r.peakDramBytesPerCycle = roofline.at("dram_bytes_per_cycle").get<double>();
    r.attainableCycles = roofline.at("attainable_cycles").get<double>();
    r.efficiency = roofline.at("efficiency").get<double>();
    if (const auto shape = roofline.find("shape_aware"); shape != roofline.end()) {
        r.shapeAttainableCycles = shape->at("attainable_cycles").get<double>();
        r.shapeEfficiency = shape->at("efficiency").get<double>();
    }
    if (const auto energy = j.find("energy"); energy != j.end()) {
        EnergyReport& e = r.energy;
        e.technologyNm = energy->at("technology_nm").get<double>();
        e.dynamicPj = energy->at("dynamic_pj").get<double>();
        e.leakagePj = energy->at("leakage_pj").get<double>();
        e.dramActivates = energy->at("dram_activates").get<uint64_t>();
        const Json& area = j.at("area").at("units");
        for (const auto& [name, u] : energy->at("units").items()) {
            e.units.push_back({name, u.at("dynamic_pj").get<double>(), u.at("leakage_pj").get<double>(), area.value(name, 0.0)});
        }
        e.areaMm2 = j.at("area").at("total_mm2").get<double>();
        const Json& power = j.at("power");
        e.averageWatts = power.at("average_w").get<double>();
        e.peakWatts = power.at("peak_w").get<double>();
        e.leakageWatts = power.at("leakage_w").get<double>();
        e.windowCycles = power.at("window_cycles").get<uint64_t>();
        for (const OpReport& op : r.ops) e.macs += op.macs;
    }
    if (const Json& rtl = j.at("rtl"); !rtl.is_null()) {
        RtlUse use;
        for (const auto& [name, b] : rtl.at("blocks").items()) {
            use.blocks.push_back({name, b.at("on_rtl").get<uint64_t>(), b.at("on_model").get<uint64_t>(),
                                  b.at("clock_cycles").get<uint64_t>()});
        }
        for (const Json& d : rtl.at("differences")) {
            use.differences.push_back({d.at("block").get<std::string>(), d.at("op").get<std::string>(),
                                       d.at("op_id").get<uint32_t>(), d.at("tile_id").get<uint32_t>(),
                                       d.at("model_cycles").get<uint64_t>(), d.at("rtl_cycles").get<uint64_t>(),
                                       d.at("detail").get<std::string>()});
        }
        r.rtl = std::move(use);
    }
    if (const auto found = j.find("faults"); found != j.end() && !found->is_null()) {
        const Json& faults = *found;
        FaultUse use;
        for (const Json& f : faults.at("injected")) {
            use.injected.push_back({f.at("kind").get<std::string>(), f.at("at").get<uint64_t>(), f.at("fired").get<bool>()});
        }
        use.jobFailures = faults.at("job_failures").get<std::vector<std::string>>();
        use.lostInterrupts = faults.at("lost_interrupts").get<uint64_t>();
        use.correctedErrors = faults.value("corrected_errors", uint64_t{0});
        r.faults = std::move(use);
    }
    if (const auto generation = j.find("generation"); generation != j.end() && !generation->is_null()) {
        r.generation = generation->dump();
    }
    if (const auto check = j.find("check"); check != j.end()) {
        const auto comparison = [](const Json& c) {
            return Comparison{c.at("passed").get<bool>(), c.at("max_abs_error").get<double>(),
                              c.at("max_rel_error").get<double>(), c.at("worst_output").get<std::string>()};
        };
        // A null figure was infinite (SNR of identical outputs) or undefined (no classes).
        const auto number = [](const Json& value, double null) { return value.is_null() ? null : value.get<double>(); };
        CheckResult result;
        static_cast<Comparison&>(result) = comparison(*check);
        result.precision = check->value("precision", std::string("fp32"));
        for (const Json& a : check->value("outputs", Json::array())) {
            result.outputs.push_back({a.at("name").get<std::string>(), number(a.at("max_abs_error"), INFINITY),
                                      number(a.at("max_rel_error"), INFINITY), number(a.at("snr_db"), INFINITY),
                                      a.at("cosine").get<double>(), number(a.at("top1_agreement"), -1),
                                      number(a.at("top5_agreement"), -1)});
        }
        if (const auto program = check->find("program"); program != check->end() && !program->is_null()) {
            result.program = comparison(*program);
        }
        if (const auto perOp = check->find("per_op"); perOp != check->end()) {
            result.driftTolerance = perOp->at("tolerance").get<double>();
            result.firstDrift = perOp->at("first_drift").is_null() ? "" : perOp->at("first_drift").get<std::string>();
            for (const Json& d : perOp->at("ops")) {
                result.perOp.push_back({d.at("op").get<std::string>(), d.at("output").get<std::string>(),
                                        number(d.at("max_rel_error"), INFINITY), d.at("cosine").get<double>()});
            }
        }
        r.check = std::move(result);
    }
    return r;
}

}  // namespace

Report reportFromJson(std::string_view text, const std::string& source) {
    try {
        return fromJson(Json::parse(text));
    } catch (const Json::exception& e) {
        throw InputError("'" + source + "' is not a report.json this npusim writes: " + e.what());
    }
}

}  // namespace npusim::reports
