// report.json: the machine-readable report (docs/report.schema.json, described in docs/REPORTS.md).
#include <cmath>

#include <nlohmann/json.hpp>

#include "reports/report.h"

namespace npusim::reports {

namespace {

using Json = nlohmann::ordered_json;

/// Cycles by stall reason, every reason named.
Json stallsJson(const std::array<uint64_t, trace::kStallReasonCount>& stalls) {
    Json j = Json::object();
    for (int reason = 0; reason < trace::kStallReasonCount; ++reason) {
        j[std::string(trace::stallReasonName(static_cast<trace::StallReason>(reason)))] = stalls[static_cast<size_t>(reason)];
    }
    return j;
}

/// The energy section: totals, by unit, and the figures of merit (pJ per MAC, TOPS/W).
Json energyJson(const EnergyReport& e) {
    Json units = Json::object();
    for (const UnitEnergy& u : e.units) units[u.unit] = {{"dynamic_pj", u.dynamicPj}, {"leakage_pj", u.leakagePj}};
    return {{"technology_nm", e.technologyNm},
            {"total_pj", e.totalPj()},
            {"dynamic_pj", e.dynamicPj},
            {"leakage_pj", e.leakagePj},
            {"units", std::move(units)},
            {"dram_activates", e.dramActivates},
            {"pj_per_mac", e.macs ? Json(e.pjPerMac()) : Json()},
            {"tops_per_watt", e.topsPerWatt() > 0 ? Json(e.topsPerWatt()) : Json()}};
}

}  // namespace

std::string reportToJson(const Report& r) {
    Json j;
    j["model"] = r.model;
    j["arch"] = r.arch;
    j["precision"] = r.precision;
    j["objective"] = r.objective;
    j["total_cycles"] = r.totalCycles;
    j["clock_hz"] = r.clockHz;
    j["timing_only"] = r.timingOnly;
    j["bucket"] = r.bucket ? Json{{"symbol", r.bucket->symbol}, {"size", r.bucket->size}, {"actual", r.bucket->actual}}
                           : Json();
    j["time_seconds"] = r.clockHz > 0 ? static_cast<double>(r.totalCycles) / r.clockHz : 0.0;
    j["units"] = Json::object();
    for (const UnitReport& unit : r.units) {
        j["units"][unit.name] = {{"busy_cycles", unit.busy},
                                 {"stall_cycles", stallsJson(unit.stalls)},
                                 {"idle_cycles", unit.idle},
                                 {"commands", unit.commands},
                                 {"utilization", unit.utilization}};
    }
    j["dram"] = {{"bytes_read", r.dramBytesRead},
                 {"bytes_written", r.dramBytesWritten},
                 {"row_hits", r.dramRowHits},
                 {"row_misses", r.dramRowMisses},
                 {"bytes_per_cycle", r.dramBytesPerCycle},
                 {"achieved_gbps", r.dramGbps}};
    j["ops"] = Json::array();
    for (const OpReport& op : r.ops) {
        j["ops"].push_back({{"op_id", op.opId},
                            {"name", op.name},
                            {"type", op.type},
                            {"dtype", op.dtype},
                            {"cycles", op.cycles},
                            {"macs", op.macs},
                            {"dram_bytes", op.dramBytes},
                            {"sram_bytes", op.sramBytes},
                            {"tensor_busy_cycles", op.tensorBusy},
                            {"vector_busy_cycles", op.vectorBusy},
                            {"load_busy_cycles", op.loadBusy},
                            {"store_busy_cycles", op.storeBusy},
                            {"stall_cycles", op.stallCycles},
                            {"stalls", stallsJson(op.stalls)},
                            {"dispatch_cycles", op.dispatchCycles},
                            {"commands", op.commands},
                            {"command_bytes", op.commandBytes},
                            {"bound", op.bound},
                            {"peak_macs_per_cycle", op.peakMacsPerCycle},
                            {"min_dram_bytes", op.minDramBytes},
                            {"intensity", op.intensity},
                            {"attainable_cycles", op.attainableCycles},
                            {"efficiency", op.efficiency},
                            {"shape_bound", {{"array_cycles", op.shape.arrayCycles},
                                             {"vector_cycles", op.shape.vectorCycles},
                                             {"load_cycles", op.shape.loadCycles},
                                             {"store_cycles", op.shape.storeCycles},
                                             {"dram_cycles", op.shape.dramCycles},
                                             {"limit", op.shape.limit},
                                             {"attainable_cycles", op.shape.attainableCycles},
                                             {"efficiency", op.shape.efficiency}}},
                            {"spill", {{"count", op.spillCount}, {"bytes", op.spillBytes}, {"cycles", op.spillCycles}}},
                            {"reformat", {{"count", op.reformatCount}, {"cycles", op.reformatCycles}}},
                            {"host", {{"copy_cycles", op.hostCopyCycles}, {"kernel_cycles", op.hostKernelCycles},
                                      {"copy_bytes", op.hostCopyBytes}, {"weight_upload_cycles", op.weightUploadCycles},
                                      {"weight_upload_bytes", op.weightUploadBytes}}},
                            {"energy_pj", op.energyPj},
                            {"pj_per_mac", op.macs ? Json(op.energyPj / static_cast<double>(op.macs)) : Json()}});
    }
    j["findings"] = Json::array();
    for (const Finding& f : r.findings) {
        j["findings"].push_back({{"kind", f.kind},
                                 {"op", f.op},
                                 {"op_id", f.opId},
                                 {"cycles_lost", f.cycles},
                                 {"message", f.message},
                                 {"hint", f.hint}});
    }
    auto phase = [](const std::optional<PhaseTiming>& t) {
        return t ? Json{{"cycles", t->cycles}, {"host_seconds", t->hostSeconds}} : Json();
    };
    j["timing"] = {{"repeat", r.timing.repeat},
                   {"cold", phase(r.timing.cold)},
                   {"warm", phase(r.timing.warm)},
                   {"steady", phase(r.timing.steady)}};
    j["roofline"] = {{"peak_macs_per_cycle", r.peakMacsPerCycle},
                     {"dram_bytes_per_cycle", r.peakDramBytesPerCycle},
                     {"attainable_cycles", r.attainableCycles},
                     {"efficiency", r.efficiency},
                     {"shape_aware", {{"attainable_cycles", r.shapeAttainableCycles}, {"efficiency", r.shapeEfficiency}}}};
    j["energy"] = energyJson(r.energy);
    j["power"] = {{"average_w", r.energy.averageWatts},
                  {"peak_w", r.energy.peakWatts},
                  {"leakage_w", r.energy.leakageWatts},
                  {"window_cycles", r.energy.windowCycles}};
    j["area"] = {{"total_mm2", r.energy.areaMm2}, {"units", Json::object()}};
    for (const UnitEnergy& u : r.energy.units) {
        if (u.areaMm2 > 0) j["area"]["units"][u.unit] = u.areaMm2;
    }
    j["rtl"] = nullptr;
    if (r.rtl) {
        Json blocks = Json::object();
        for (const RtlUse::Block& b : r.rtl->blocks) {
            blocks[b.name] = {{"on_rtl", b.onRtl}, {"on_model", b.onModel}, {"clock_cycles", b.clockCycles}};
        }
        Json differences = Json::array();
        for (const RtlUse::Difference& d : r.rtl->differences) {
            differences.push_back({{"block", d.block}, {"op", d.op}, {"op_id", d.opId}, {"tile_id", d.tileId},
                                   {"model_cycles", d.modelCycles}, {"rtl_cycles", d.rtlCycles}, {"detail", d.detail}});
        }
        j["rtl"] = {{"blocks", blocks}, {"differences", differences}};
    }
    j["faults"] = nullptr;
    if (r.faults) {
        Json injected = Json::array();
        for (const FaultUse::Injected& f : r.faults->injected) {
            injected.push_back({{"kind", f.kind}, {"at", f.at}, {"fired", f.fired}});
        }
        j["faults"] = {{"injected", injected}, {"job_failures", r.faults->jobFailures},
                       {"lost_interrupts", r.faults->lostInterrupts}, {"corrected_errors", r.faults->correctedErrors}};
    }
    if (r.generation) j["generation"] = Json::parse(*r.generation);
    if (r.check) {
        const auto comparison = [](const Comparison& c) {
            return Json{{"passed", c.passed},
                        {"max_abs_error", c.maxAbsError},
                        {"max_rel_error", c.maxRelError},
                        {"worst_output", c.worstOutput}};
        };
        // Infinite or undefined figures (identical outputs' SNR, no classes) are null.
        const auto number = [](double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); };
        Json check = comparison(*r.check);
        check["precision"] = r.check->precision;
        check["outputs"] = Json::array();
        for (const OutputAccuracy& a : r.check->outputs) {
            check["outputs"].push_back({{"name", a.name},
                                        {"max_abs_error", number(a.maxAbsError)},
                                        {"max_rel_error", number(a.maxRelError)},
                                        {"snr_db", number(a.snrDb)},
                                        {"cosine", a.cosine},
                                        {"top1_agreement", a.top1 >= 0 ? Json(a.top1) : Json(nullptr)},
                                        {"top5_agreement", a.top5 >= 0 ? Json(a.top5) : Json(nullptr)}});
        }
        check["program"] = r.check->program ? comparison(*r.check->program) : Json(nullptr);
        if (!r.check->perOp.empty()) {
            Json perOp = Json::array();
            for (const OpDrift& d : r.check->perOp) {
                perOp.push_back({{"op", d.op}, {"output", d.output}, {"max_rel_error", number(d.maxRelError)}, {"cosine", d.cosine}});
            }
            check["per_op"] = {{"tolerance", r.check->driftTolerance},
                               {"first_drift", r.check->firstDrift.empty() ? Json(nullptr) : Json(r.check->firstDrift)},
                               {"ops", std::move(perOp)}};
        }
        j["check"] = std::move(check);
    }
    return j.dump(2) + "\n";
}

}  // namespace npusim::reports
