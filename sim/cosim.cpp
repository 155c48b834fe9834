// Elaboration order follows the Verilator/SystemC examples: signals, modules and binding,
// then sc_start; the host program drives the run and stops the simulation when done.
#include "sim/cosim.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <systemc>

#include "arch/byte_text.h"
#include "arch/error.h"
#include "arch/register_map.h"
#include "firmware/firmware.h"
#include "hw_model/bus/router.h"
#include "hw_model/common/clock.h"
#include "hw_model/dram/dram.h"
#include "hw_model/npu.h"
#include "runtime/runtime.h"
#include "rtl/tensor_rtl_core.h"
#include "rtl/vector_rtl_core.h"
#include "sim/host_cpu.h"

namespace npusim::sim {

SystemTotals runSystem(const ArchConfig& config, trace::Recorder* recorder, bool timingOnly,
                      const std::function<void(driver::Driver&)>& program,
                      std::function<DramTraffic()>* dramProbe, ComputeCores cores, hw::FaultInjector* faults,
                      std::atomic<uint64_t>* dispatched) {
    // The simulation ends by sc_stop() from the host program; SystemC's info message about
    // that is not news to the user.
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    const hw::Clock clock(config.clockPeriodPs);

    // Signals.
    sc_core::sc_signal<bool> irq("npu_irq");

    // Modules and binding.
    firmware::Firmware firmware;
    hw::Npu npu("npu", config, clock, firmware, recorder, !timingOnly, std::move(cores.tensor), std::move(cores.vector));
    npu.setFaultInjector(faults);
    npu.countDispatchesInto(dispatched);
    hw::Dram dram("dram", config.dram, clock);
    hw::Router systemBus("system_bus", {hw::AddressRange{regs::kMmioBase, regs::kMmioSize},
                                        hw::AddressRange{regs::kDramBase, config.dram.sizeBytes}});
    HostCpu host("host", config, clock, [&](driver::DeviceBus& bus) {
        driver::Driver driver(bus, regs::kDramBase, config.dram.sizeBytes);
        // The registers carry a code and a command index; the model knows why.
        driver.explainFaultsWith([&npu] { return npu.lastFault() ? npu.lastFault()->detail : std::string(); });
        driver.open();
        program(driver);
    });
    if (faults) faults->setDramTarget([&dram](uint64_t address) { dram.flipBit(address - regs::kDramBase, 3); });
    host.busSocket.bind(systemBus.tSocket);
    npu.bindMasters(systemBus.tSocket);
    systemBus.iSocket.bind(npu.mmioSocket());
    systemBus.iSocket.bind(dram.tSocket);
    npu.irq().bind(irq);
    host.irq.bind(irq);

    auto traffic = [&dram] {
        return DramTraffic{dram.bytesRead(), dram.bytesWritten(), dram.transactions(), dram.rowHits(), dram.rowMisses(),
                          dram.correctedErrors()};
    };
    if (dramProbe) *dramProbe = traffic;
    sc_core::sc_start();
    if (dramProbe) *dramProbe = nullptr;  // the model is gone with this function
    if (faults) {
        faults->setDramTarget(nullptr);
        faults->setOnchipTarget(nullptr);
    }
    if (host.failure()) std::rethrow_exception(host.failure());
    return {traffic(), npu.computeSeconds()};
}

std::string vcdPathFor(const std::string& path, const std::string& block, bool severalBlocks) {
    if (path.empty() || !severalBlocks) return path;
    const std::filesystem::path file(path);
    std::filesystem::path named = file;
    named.replace_filename(file.stem().string() + "." + block + file.extension().string());
    return named.string();
}

namespace {

/// The median of each figure on its own.
PhaseTiming medianTiming(std::vector<PhaseTiming> runs) {
    const size_t middle = runs.size() / 2;
    std::nth_element(runs.begin(), runs.begin() + static_cast<std::ptrdiff_t>(middle), runs.end(),
                     [](const PhaseTiming& a, const PhaseTiming& b) { return a.cycles < b.cycles; });
    const uint64_t cycles = runs[middle].cycles;
    std::nth_element(runs.begin(), runs.begin() + static_cast<std::ptrdiff_t>(middle), runs.end(),
                     [](const PhaseTiming& a, const PhaseTiming& b) { return a.hostSeconds < b.hostSeconds; });
    return {cycles, runs[middle].hostSeconds};
}

}  // namespace

void checkSimulationMemory(const Artifact& artifact, uint64_t limit) {
    uint64_t bytes = artifact.manifest.dramBytes, commands = 0;
    for (const auto& [name, section] : artifact.sections) bytes += section.size();
    for (const OpRecord& op : artifact.manifest.ops) {
        commands += op.commands;
        bytes += op.commands * kSimulationBytesPerCommand;
        if (bytes > limit) {
            throw InputError("op '" + op.name + "' (" + op.type + "): simulating the model up to this op needs about " + bytesText(bytes) +
                             " of memory (" + std::to_string(commands) + " commands, " + std::to_string(op.commands) +
                             " of them this op's), more than --max-memory " + bytesText(limit));
        }
    }
}

CoSimResult runCoSimulation(const ArchConfig& config, const Artifact& given,
                            const std::map<std::string, Tensor>& givenInputs, const CoSimOptions& options) {
    CoSimResult result;
    std::optional<runtime::BucketRun> bucketRun;
    if (!given.manifest.buckets.empty()) {
        bucketRun = runtime::prepareBucketRun(given, givenInputs);
        result.bucket = bucketRun->choice;
    }
    const Artifact& artifact = bucketRun ? bucketRun->artifact : given;
    const std::map<std::string, Tensor>& inputs = bucketRun ? bucketRun->inputs : givenInputs;
    result.manifest = artifact.manifest;
    std::function<DramTraffic()> dramTraffic;
    ComputeCores cores;
    rtl::RtlLog firstRunRtl;
    if (options.rtlTensor || options.rtlVector) {
        result.rtl.emplace();
        if (options.rtlTensor) cores.tensor = rtl::makeTensorRtlCore(config, *result.rtl, options.tensorVcd);
        if (options.rtlVector) cores.vector = rtl::makeVectorRtlCore(config, *result.rtl, options.vectorVcd);
    }
    std::optional<hw::FaultInjector> faults;
    if (!options.faults.empty()) {
        faults.emplace(options.faults);
        result.faults.emplace();
    }
    const auto noteFailures = [&](const runtime::RunResult& run) {
        if (!result.faults) return;
        result.faults->retriedFailures.insert(result.faults->retriedFailures.end(), run.retriedFailures.begin(),
                                              run.retriedFailures.end());
    };
    if (options.trace) {
        // About three events per command (its dispatch, its busy time, a stall), a few more
        // with loops; room that is never written costs no memory.
        result.trace.reserve(4 * commandCount(artifact.manifest));
    }
    const SystemTotals whole = runSystem(
        config, options.trace ? &result.trace : nullptr, options.timingOnly,
        [&](driver::Driver& driver) {
            runtime::Runtime runtime(driver, options.jobTimeoutCycles,
                                     {config.host.cpuOpsPerCycle, options.trace ? &result.trace : nullptr,
                                      options.jobRetries, options.timingOnly});
            // Each phase on the host's clock: simulated cycles and wall-clock seconds.
            struct Stopwatch {
                driver::Driver& driver;
                uint64_t cycles = driver.nowCycles();
                std::chrono::steady_clock::time_point host = std::chrono::steady_clock::now();
                PhaseTiming elapsed() const {
                    return {driver.nowCycles() - cycles,
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - host).count()};
                }
            };
            const Stopwatch cold{driver};
            const runtime::LoadedModel model = runtime.load(artifact);
            const uint64_t loadedMisses = dramTraffic().rowMisses;
            runtime::RunResult run = runtime.run(model, inputs);
            noteFailures(run);
            result.timing.cold = cold.elapsed();
            if (result.rtl) firstRunRtl = *result.rtl;  // the report describes the first run
            result.dram = dramTraffic();
            result.inferenceRowMisses = result.dram.rowMisses - loadedMisses;
            result.outputs = std::move(run.outputs);
            result.job = run.job;
            if (options.repeat > 0) {
                const Stopwatch warm{driver};
                noteFailures(runtime.run(model, inputs));
                result.timing.warm = warm.elapsed();
                std::vector<PhaseTiming> steady;
                for (int i = 0; i < options.repeat; ++i) {
                    const Stopwatch one{driver};
                    noteFailures(runtime.run(model, inputs));
                    steady.push_back(one.elapsed());
                }
                result.timing.steady = medianTiming(steady);
                result.timing.repeat = options.repeat;
            }
            runtime.unload(model);
            if (result.faults) result.faults->lostInterrupts = driver.lostInterrupts();
        },
        &dramTraffic, std::move(cores), faults ? &*faults : nullptr, options.dispatched);
    if (result.bucket) result.outputs = runtime::cutToActualSize(std::move(result.outputs), result.manifest.outputs, *result.bucket);
    if (result.rtl) result.rtl = std::move(firstRunRtl);
    result.computeSeconds = whole.computeSeconds;
    if (result.faults) {
        result.faults->injected = faults->injected();
        result.faults->correctedErrors = whole.dram.correctedErrors;
    }
    return result;
}

}  // namespace npusim::sim
