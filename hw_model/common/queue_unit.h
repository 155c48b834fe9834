// The common frame of an execution unit: an sc_module whose thread executes the commands of
// one hardware queue, with its config, clock and trace.
#pragma once

#include <systemc>

#include "arch/arch_config.h"
#include "hw_model/command/command_processor.h"
#include "hw_model/common/access_extension.h"
#include "hw_model/common/clock.h"
#include "hw_model/common/unit_trace.h"

namespace npusim::hw {

class QueueUnit : public sc_core::sc_module, public CommandExecutor {
protected:
    QueueUnit(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
              CommandProcessor& processor, isa::Queue queue, trace::Recorder* recorder,
              trace::UnitKind kind);

    /// The side-band tag of the memory accesses a command makes.
    AccessTag tagFor(const isa::Command& command) const;

    const ArchConfig& config_;
    const Clock& clock_;
    UnitTrace trace_;

private:
    void run();

    CommandProcessor& processor_;
    isa::Queue queue_;
};

}  // namespace npusim::hw
