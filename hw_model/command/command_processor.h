// The command processor: one hardware queue per unit (load DMA, store DMA, tensor, vector),
// the semaphore file that orders queues, and the idle tracking the control core waits on.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>

#include "arch/arch_config.h"
#include "arch/isa.h"
#include "hw_model/common/clock.h"
#include "hw_model/common/unit_trace.h"

namespace npusim::hw {

/// What a unit does with the commands of its queue other than semaphore operations.
class CommandExecutor {
public:
    virtual ~CommandExecutor() = default;
    /// Executes one command, advancing simulated time by its duration.
    virtual void execute(const isa::Command& command) = 0;
};

class CommandProcessor : public sc_core::sc_module {
public:
    CommandProcessor(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock);

    /// Blocking push into a unit queue (the control core's dispatch).
    void push(isa::Queue queue, const isa::Command& command);
    bool full(isa::Queue queue) const;
    /// Notified whenever a queue frees a slot.
    const sc_core::sc_event& slotFreed(isa::Queue queue) const;

    /// Runs a unit's queue forever: takes commands in order, performs SEM_WAIT/SEM_SIGNAL
    /// itself (a blocked wait is recorded as a semaphore_wait stall) and hands every other
    /// command to `executor`. Call from the unit's SC_THREAD.
    [[noreturn]] void serve(isa::Queue queue, CommandExecutor& executor, UnitTrace& trace);

    /// True when every queue is empty and no unit is executing.
    bool idle() const;
    /// Notified when a unit finishes a command or a queue drains.
    const sc_core::sc_event& activity() const { return activity_; }

private:
    struct QueueState {
        std::unique_ptr<sc_core::sc_fifo<isa::Command>> fifo;
        bool executing = false;
    };

    void waitSemaphore(const isa::Command& command, UnitTrace& trace);
    void signalSemaphore(const isa::Command& command);

    const Clock& clock_;
    std::array<QueueState, isa::kQueueCount> queues_;
    std::vector<uint32_t> semaphores_;
    sc_core::sc_event semaphoreSignalled_;
    sc_core::sc_event activity_;
};

}  // namespace npusim::hw
