// Elaboration order follows the Verilator/SystemC examples: signals, modules and binding,
// then sc_start; the host program drives the run and stops the simulation when done.
#include "sim/cosim.h"

#include <systemc>

#include "arch/error.h"
#include "arch/register_map.h"
#include "firmware/firmware.h"
#include "hw_model/bus/router.h"
#include "hw_model/common/clock.h"
#include "hw_model/dram/dram.h"
#include "hw_model/npu.h"
#include "runtime/runtime.h"
#include "sim/host_cpu.h"

namespace npusim::sim {

DramTraffic runSystem(const ArchConfig& config, trace::Recorder* recorder, bool timingOnly,
                      const std::function<void(driver::Driver&)>& program) {
    // The simulation ends by sc_stop() from the host program; SystemC's info message about
    // that is not news to the user.
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    const hw::Clock clock(config.clockPeriodPs);

    // Signals.
    sc_core::sc_signal<bool> irq("npu_irq");

    // Modules and binding.
    firmware::Firmware firmware;
    hw::Npu npu("npu", config, clock, firmware, recorder, !timingOnly);
    hw::Dram dram("dram", config.dram, clock);
    hw::Router systemBus("system_bus", {hw::AddressRange{regs::kMmioBase, regs::kMmioSize},
                                        hw::AddressRange{regs::kDramBase, config.dram.sizeBytes}});
    HostCpu host("host", config, clock, [&](driver::DeviceBus& bus) {
        driver::Driver driver(bus, regs::kDramBase, config.dram.sizeBytes);
        driver.open();
        program(driver);
    });
    host.busSocket.bind(systemBus.tSocket);
    npu.memorySocket().bind(systemBus.tSocket);
    systemBus.iSocket.bind(npu.mmioSocket());
    systemBus.iSocket.bind(dram.tSocket);
    npu.irq().bind(irq);
    host.irq.bind(irq);

    sc_core::sc_start();
    if (host.failure()) {
        try {
            std::rethrow_exception(host.failure());
        } catch (const RunError& error) {
            // The registers carry a code and a command index; the model knows why.
            const std::optional<hw::JobFault>& fault = npu.lastFault();
            if (!fault) throw;
            throw RunError(std::string(error.what()) + ": " + fault->detail);
        }
    }
    return {dram.bytesRead(), dram.bytesWritten(), dram.rowHits(), dram.rowMisses()};
}

CoSimResult runCoSimulation(const ArchConfig& config, const Artifact& artifact,
                            const std::map<std::string, Tensor>& inputs, const CoSimOptions& options) {
    CoSimResult result;
    result.dram =
        runSystem(config, options.trace ? &result.trace : nullptr, options.timingOnly, [&](driver::Driver& driver) {
            runtime::Runtime runtime(driver, options.jobTimeoutCycles);
            const runtime::LoadedModel model = runtime.load(artifact);
            runtime::RunResult run = runtime.run(model, inputs);
            runtime.unload(model);
            result.outputs = std::move(run.outputs);
            result.job = run.job;
        });
    return result;
}

}  // namespace npusim::sim
