// The common frame of an execution unit: an sc_module whose thread executes the commands of
// one hardware queue, with its config, clock and trace.
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

#include <systemc>

#include "arch/arch_config.h"
#include "hw_model/command/command_processor.h"
#include "hw_model/common/access_extension.h"
#include "hw_model/common/clock.h"
#include "hw_model/common/memory_access.h"
#include "hw_model/common/unit_trace.h"
#include "hw_model/fault/fault_injector.h"

namespace npusim::hw {

class QueueUnit : public sc_core::sc_module, public CommandExecutor {
public:
    /// Faults to inject (null: none); the simulation top owns the injector.
    void setFaultInjector(FaultInjector* faults) { faults_ = faults; }
    /// Host seconds the unit spent computing values (none when timing only), over the whole
    /// simulation: the host math, apart from the simulation's own cost.
    double computeSeconds() const { return computeTime_.count(); }

protected:
    QueueUnit(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
              CommandProcessor& processor, isa::Queue queue, trace::Recorder* recorder,
              trace::UnitKind kind, bool functional);

    /// Where a staging buffer's data goes: nullptr in timing-only mode, where memories move
    /// no data and units compute nothing, but every timing decision stays the same.
    std::byte* staged(std::vector<std::byte>& buffer, uint64_t bytes) {
        if (!functional_) return nullptr;
        buffer.resize(bytes);
        return buffer.data();
    }
    /// Computes a command's values with `compute`, timed on the host clock.
    template <class Compute>
    void computeValues(Compute&& compute) {
        const auto start = std::chrono::steady_clock::now();
        compute();
        computeTime_ += std::chrono::steady_clock::now() - start;
    }
    /// A position inside a staging buffer (nullptr stays nullptr).
    static std::byte* at(std::byte* base, uint64_t offset) { return base ? base + offset : nullptr; }

    /// The side-band tag of the memory accesses a command makes.
    AccessTag tagFor(const isa::Command& command) const;
    /// Whether an injected fault of `kind` fires at this event.
    bool injectedFault(FaultKind kind) { return faults_ && faults_->trigger(kind); }
    /// The injector (null: none).
    const FaultInjector* faults() const { return faults_; }
    /// A unit that stopped responding: returns only when the job is aborted.
    void hangUntilAbort() { processor_.waitForFault(); }

    const ArchConfig& config_;
    const Clock& clock_;
    UnitTrace trace_;
    const bool functional_;
    MemoryAccessor memory_;

private:
    FaultInjector* faults_ = nullptr;
    std::chrono::duration<double> computeTime_{};
    void run();

    CommandProcessor& processor_;
    isa::Queue queue_;
};

}  // namespace npusim::hw
