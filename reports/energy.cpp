// The run's energy: every command's actions (MACs, vector lane cycles, bytes through the SRAM,
// the DMA engines and DRAM, control-core cycles) at the arch config's energy per action, by
// unit, by op and over time, and leakage from each unit's area (docs/REPORTS.md).
#include <algorithm>
#include <array>
#include <span>

#include "arch/chip_area.h"
#include "reports/op_spans.h"
#include "reports/report.h"

namespace npusim::reports {
namespace {

/// The units energy is counted by; their names are chipArea()'s, and DRAM's.
enum EnergyUnit : size_t { ControlCore, DmaLoad, DmaStore, Tensor, Vector, Sram, Dram, kEnergyUnits };
constexpr std::array<const char*, kEnergyUnits> kUnitNames = {"control_core", "dma_load", "dma_store", "tensor",
                                                                "vector",       "sram",     "dram"};

/// One event's dynamic energy by unit, and the DRAM bytes it moved.
struct EventCost {
    std::array<double, kEnergyUnits> pj{};
    uint64_t dramBytes = 0;
    double total() const {
        double sum = 0;
        for (double p : pj) sum += p;
        return sum;
    }
};

class EnergyModel {
public:
    explicit EnergyModel(const RunRecord& run) : run_(run) {
        // Priced once per op, by the dtype it computes in (a vector op's: its result's).
        const EnergyConfig& c = run.config.energy;
        for (const OpRecord& op : run.manifest.ops) {
            if (prices_.size() <= op.opId) prices_.resize(op.opId + 1, {c.mac(DType::Fp32), c.vectorLane(DType::Fp32)});
            prices_[op.opId] = {c.mac(op.dtype), c.vectorLane(op.dtype)};
        }
        for (const trace::UnitInfo& unit : run.trace.units()) kinds_.push_back(unit.kind);
    }

    EventCost cost(const trace::Event& e) const {
        const EnergyConfig& c = run_.config.energy;
        EventCost cost;
        const double busy = static_cast<double>(e.end - e.start);
        switch (e.type) {
            case trace::EventType::Stall:
            case trace::EventType::HostKernel:  // the host CPU's work: not the NPU's energy
                return cost;
            case trace::EventType::HostCopyIn:
            case trace::EventType::HostCopyOut:
            case trace::EventType::WeightUpload:
                cost.dramBytes = e.bytes;
                break;
            case trace::EventType::CommandFetch:
                cost.pj[ControlCore] = busy * c.controlCorePjPerCycle;
                cost.dramBytes = e.bytes;
                break;
            case trace::EventType::Command:
                command(e, busy, cost);
                break;
        }
        // The chip's energies at its operating voltage; DRAM's are its own.
        for (double& pj : cost.pj) pj *= c.dynamicScale();
        cost.pj[Dram] = static_cast<double>(cost.dramBytes) * c.dramPjPerByte;
        return cost;
    }

private:
    void command(const trace::Event& e, double busy, EventCost& cost) const {
        const EnergyConfig& c = run_.config.energy;
        const Prices price = e.opId < prices_.size() ? prices_[e.opId] : Prices{c.mac(DType::Fp32), c.vectorLane(DType::Fp32)};
        const double bytes = static_cast<double>(e.bytes), operations = static_cast<double>(e.operations);
        switch (kinds_[e.unit]) {
            case trace::UnitKind::ControlCore:
                cost.pj[ControlCore] = busy * c.controlCorePjPerCycle;
                break;
            case trace::UnitKind::Tensor:
                cost.pj[Tensor] = operations * price.mac;
                cost.pj[Sram] = bytes * c.sramPjPerByte;
                break;
            case trace::UnitKind::Vector:
                cost.pj[Vector] = operations * price.lane;
                cost.pj[Sram] = bytes * c.sramPjPerByte;
                break;
            case trace::UnitKind::Dma:
                // A load writes SRAM, a store reads it, a move on chip does both.
                cost.pj[e.opcode == isa::Opcode::DmaStore ? DmaStore : DmaLoad] = bytes * c.dmaPjPerByte;
                cost.pj[Sram] = bytes * c.sramPjPerByte * (e.onchipMove ? 2 : 1);
                if (!e.onchipMove) cost.dramBytes = e.bytes;
                break;
            case trace::UnitKind::Host:
                break;
        }
    }

    struct Prices {
        double mac = 0, lane = 0;  ///< pJ per MAC and per vector lane cycle
    };
    const RunRecord& run_;
    std::vector<Prices> prices_;  ///< by op id
    std::vector<trace::UnitKind> kinds_;  ///< by unit
};

/// Every event of the window [start, end) once: dynamic energy by unit, by op (job-level work
/// apart) and by time window; DRAM bytes the same ways, over which row activations spread.
struct Tally {
    std::array<double, kEnergyUnits> unitPj{};
    std::vector<double> opPj, windowPj;
    std::vector<uint64_t> opDram, windowDram;
    double jobPj = 0;
    uint64_t jobDram = 0, dramBytes = 0;
};

Tally tally(const RunRecord& run, uint64_t start, uint64_t end, uint64_t windowCycles) {
    const EnergyModel model(run);
    Tally t;
    size_t ops = 0;
    for (const OpRecord& op : run.manifest.ops) ops = std::max<size_t>(ops, op.opId + 1);
    t.opPj.assign(ops, 0);
    t.opDram.assign(ops, 0);
    const size_t windows = end > start ? (end - start + windowCycles - 1) / windowCycles : 0;
    t.windowPj.assign(windows, 0);
    t.windowDram.assign(windows, 0);
    for (const trace::Event& e : std::span(run.trace.events()).subspan(std::min(run.firstEvent, run.trace.events().size()))) {
        if (!inWindow(e, start, end)) continue;
        const EventCost cost = model.cost(e);
        const double pj = cost.total();
        if (pj == 0 && cost.dramBytes == 0) continue;
        for (size_t u = 0; u < kEnergyUnits; ++u) t.unitPj[u] += cost.pj[u];
        t.dramBytes += cost.dramBytes;
        if (e.opId < ops) {
            t.opPj[e.opId] += pj;
            t.opDram[e.opId] += cost.dramBytes;
        } else {
            t.jobPj += pj;
            t.jobDram += cost.dramBytes;
        }
        if (windows == 0) continue;
        // Spread over the windows the event overlaps, by time (an instant one: where it is).
        const uint64_t from = std::max(e.start, start), to = std::min(e.end, end);
        const size_t first = std::min((from - start) / windowCycles, windows - 1);
        if (to <= from) {
            t.windowPj[first] += pj;
            t.windowDram[first] += cost.dramBytes;
            continue;
        }
        const double span = static_cast<double>(to - from);
        for (size_t w = first; w < windows && start + w * windowCycles < to; ++w) {
            const uint64_t a = std::max(from, start + w * windowCycles), b = std::min(to, start + (w + 1) * windowCycles);
            const double share = static_cast<double>(b - a) / span;
            t.windowPj[w] += pj * share;
            t.windowDram[w] += static_cast<uint64_t>(static_cast<double>(cost.dramBytes) * share);
        }
    }
    return t;
}

/// The DRAM row activations' energy, spread like the DRAM bytes: over the ops and the job's
/// own work, and over the windows.
void spreadActivations(Tally& t, double activatePj) {
    const auto spread = [&](std::vector<double>& pj, const std::vector<uint64_t>& bytes) {
        uint64_t sum = 0;
        for (uint64_t b : bytes) sum += b;
        if (sum == 0) return false;
        for (size_t i = 0; i < pj.size(); ++i) pj[i] += activatePj * static_cast<double>(bytes[i]) / static_cast<double>(sum);
        return true;
    };
    t.unitPj[Dram] += activatePj;
    std::vector<double> shares(t.opPj);
    shares.push_back(t.jobPj);
    std::vector<uint64_t> bytes(t.opDram);
    bytes.push_back(t.jobDram);
    if (!spread(shares, bytes)) shares.back() += activatePj;
    t.jobPj = shares.back();
    shares.pop_back();
    t.opPj = std::move(shares);
    if (!t.windowPj.empty() && !spread(t.windowPj, t.windowDram)) t.windowPj.front() += activatePj;
}

uint64_t windowCyclesOf(const RunRecord& run) {
    // A microsecond, or wider so that a long run has at most 10,000 windows.
    constexpr uint64_t kMaxWindows = 10'000;
    const uint64_t microsecond = std::max<uint64_t>(1, static_cast<uint64_t>(run.config.clockHz / 1e6));
    return std::max(microsecond, (run.jobCycles + kMaxWindows - 1) / kMaxWindows);
}

/// A unit's leakage power per mm2 at the operating voltage, W.
double leakageWattsPerMm2(const EnergyConfig& energy) { return energy.leakageMwPerMm2 * 1e-3 * energy.leakageScale(); }

double leakageWatts(const ArchConfig& config) { return totalArea(chipArea(config)) * leakageWattsPerMm2(config.energy); }

std::vector<double> watts(const Tally& t, const RunRecord& run, uint64_t start, uint64_t end, uint64_t windowCycles) {
    std::vector<double> power(t.windowPj.size());
    const double leakage = leakageWatts(run.config);
    for (size_t w = 0; w < power.size(); ++w) {
        const uint64_t cycles = std::min(end, start + (w + 1) * windowCycles) - (start + w * windowCycles);
        power[w] = t.windowPj[w] * 1e-12 / (static_cast<double>(cycles) / run.config.clockHz) + leakage;
    }
    return power;
}

}  // namespace

EnergyReport measureEnergy(const RunRecord& run, std::vector<OpReport>& ops) {
    const uint64_t start = run.jobStartCycle, end = run.jobStartCycle + run.jobCycles;
    const uint64_t windowCycles = windowCyclesOf(run);
    Tally t = tally(run, start, end, windowCycles);
    spreadActivations(t, static_cast<double>(run.inferenceRowMisses) * run.config.energy.dramActivatePj);

    // The job's own work (command fetches) belongs to the ops by the command bytes they take.
    uint64_t commandBytes = 0;
    for (const OpReport& op : ops) commandBytes += op.commandBytes;
    EnergyReport r;
    for (OpReport& op : ops) {
        r.macs += op.macs;
        const double jobShare = commandBytes ? static_cast<double>(op.commandBytes) / static_cast<double>(commandBytes)
                                             : 1.0 / static_cast<double>(ops.size());
        op.energyPj = (op.opId < t.opPj.size() ? t.opPj[op.opId] : 0) + t.jobPj * jobShare;
    }

    r.technologyNm = run.config.energy.technologyNm;
    r.dramActivates = run.inferenceRowMisses;
    r.windowCycles = windowCycles;
    const double seconds = static_cast<double>(run.jobCycles) / run.config.clockHz;
    const std::vector<UnitArea> areas = chipArea(run.config);
    for (size_t u = 0; u < kEnergyUnits; ++u) {
        UnitEnergy unit{kUnitNames[u], t.unitPj[u], 0, 0};
        const auto area = std::find_if(areas.begin(), areas.end(), [&](const UnitArea& a) { return a.unit == unit.unit; });
        if (area != areas.end()) {
            unit.areaMm2 = area->mm2;
            unit.leakagePj = area->mm2 * leakageWattsPerMm2(run.config.energy) * seconds * 1e12;
        }
        r.dynamicPj += unit.dynamicPj;
        r.leakagePj += unit.leakagePj;
        r.areaMm2 += unit.areaMm2;
        r.units.push_back(std::move(unit));
    }
    r.leakageWatts = leakageWatts(run.config);
    r.averageWatts = seconds > 0 ? r.totalPj() * 1e-12 / seconds : 0;
    // The peak over whole windows (a last, shorter one only when it is the only one).
    std::vector<double> power = watts(t, run, start, end, windowCycles);
    if (power.size() > 1 && run.jobCycles % windowCycles != 0) power.pop_back();
    r.peakWatts = power.empty() ? r.averageWatts : *std::max_element(power.begin(), power.end());
    return r;
}

std::vector<double> powerWindows(const RunRecord& run, uint64_t start, uint64_t end, uint64_t windowCycles) {
    Tally t = tally(run, start, end, windowCycles);
    spreadActivations(t, static_cast<double>(run.inferenceRowMisses) * run.config.energy.dramActivatePj);
    return watts(t, run, start, end, windowCycles);
}

}  // namespace npusim::reports
