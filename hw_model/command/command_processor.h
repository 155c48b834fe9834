// The command processor: one hardware queue per unit (load DMA, store DMA, tensor, vector),
// the semaphore file that orders queues, job completion, and job faults: a unit's fault or a
// deadlock (every waiting queue waits on a semaphore nobody can signal any more) stops the
// job, drops its remaining commands and releases every waiting unit.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "arch/arch_config.h"
#include "arch/isa.h"
#include "arch/job_fault.h"
#include "arch/register_map.h"
#include "hw_model/common/clock.h"
#include "hw_model/common/unit_fault.h"
#include "hw_model/common/unit_trace.h"

namespace npusim::hw {

/// A command in a unit queue, with its index in the job's command buffer and the cycle its
/// dispatch completes (the dispatcher may run ahead of simulated time).
struct QueuedCommand {
    isa::Command command;
    uint32_t index = 0;
    uint64_t availableAt = 0;
};
std::ostream& operator<<(std::ostream& out, const QueuedCommand& queued);

/// What a unit does with the commands of its queue other than semaphore operations.
class CommandExecutor {
public:
    virtual ~CommandExecutor() = default;
    /// Executes one command, advancing simulated time at least until the unit can take the
    /// next one; throws UnitFault.
    virtual void execute(const isa::Command& command) = 0;
    /// For a pipelined unit whose commands finish after execute() returns: waits until every
    /// command's effects are complete, or until `arrival` fires (a next command keeps the
    /// pipeline going).
    virtual void drain(const sc_core::sc_event& /*arrival*/) {}
    /// The cycle until which the unit's timeline is already accounted for.
    virtual uint64_t busyUntil() const { return 0; }
    /// The cycle by which the effects of every command executed so far are complete (a
    /// pipelined unit's results still draining); 0 when they already are.
    virtual uint64_t completesAt() const { return 0; }
    /// Records the unit's pipeline as busy up to `cycle` at most: its earlier commands went
    /// on completing while the queue waited on a semaphore.
    virtual void settle(uint64_t /*cycle*/) {}
};

class CommandProcessor : public sc_core::sc_module {
public:
    CommandProcessor(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock);

    /// Counts every command pushed into `dispatched` (null: none), for a progress line: one
    /// writer, read from another thread.
    void countDispatchesInto(std::atomic<uint64_t>* dispatched) { dispatched_ = dispatched; }
    /// Starts a job: empty queues, zero semaphores, no fault.
    void beginJob();
    /// Blocks while the queue `command` goes to is full; false once the job has faulted. A
    /// queue still full at cycle `deadline` (0: none) stops the job with a watchdog fault.
    bool waitForSlot(const isa::Command& command, uint64_t deadline = 0);
    /// Puts a command into its unit's queue, which must have a free slot; the unit takes it
    /// no earlier than cycle `availableAt`.
    void push(const isa::Command& command, uint32_t index, uint64_t availableAt);
    /// Called when every command is dispatched: blocks until the queues drain and the units
    /// are idle, or until the job faults and the units have stopped. A job still running at
    /// cycle `deadline` (0: none) is stopped with a watchdog fault. Returns the fault, if any.
    std::optional<JobFault> finishJob(uint64_t deadline = 0);
    /// Faults the job from outside the units (the firmware found an invalid command).
    void abort(JobFault fault) { raise(std::move(fault)); }
    /// Blocks until the job faults: a unit that stopped responding answers only the abort.
    void waitForFault();

    /// Runs a unit's queue forever: takes commands in order, performs SEM_WAIT/SEM_SIGNAL
    /// itself (a blocked wait is recorded as a semaphore_wait stall) and hands every other
    /// command to `executor`. A signal does not hold the queue: it is posted, and the
    /// semaphore counts up when the commands before it complete, while the unit goes on with
    /// the commands after it. Call from the unit's SC_THREAD.
    [[noreturn]] void serve(isa::Queue queue, CommandExecutor& executor, UnitTrace& trace);

private:
    enum class Dispatcher : uint8_t { Dispatching, BlockedOnFullQueue, Done };
    struct QueueState {
        std::unique_ptr<sc_core::sc_fifo<QueuedCommand>> fifo;
        bool executing = false;
        std::optional<QueuedCommand> current;  ///< the command being executed
        bool waiting = false;                  ///< blocked on a semaphore
    };

    void waitSemaphore(QueueState& state, const isa::Command& command, UnitTrace& trace,
                       CommandExecutor& executor);
    void signalSemaphore(const isa::Command& command);
    /// Counts the signal's semaphore up at cycle `at`, or now when that has passed.
    void postSignal(const isa::Command& command, uint64_t at);
    /// Counts up the semaphores of the posted signals that are due.
    void deliverPostedSignals();
    void raise(JobFault fault);
    /// The job ran past its budget: faults it at the oldest command still executing.
    void raiseWatchdog();
    bool idle() const;
    bool unitsStopped() const;
    /// Deadlock: nothing can make progress. Evaluated whenever a unit or the dispatcher blocks
    /// and whenever a unit finishes a command.
    void detectDeadlock();

    const Clock& clock_;
    std::array<QueueState, isa::kQueueCount> queues_;
    std::vector<uint32_t> semaphores_;
    /// Signals waiting for earlier commands to complete, by the cycle they are due (each
    /// queue's are in order; those of different queues interleave).
    std::multimap<uint64_t, uint32_t> postedSignals_;
    std::atomic<uint64_t>* dispatched_ = nullptr;
    sc_core::sc_event signalDue_;
    std::optional<JobFault> fault_;
    Dispatcher dispatcher_ = Dispatcher::Done;
    sc_core::sc_event semaphoreSignalled_, activity_, faulted_, blocked_;
};

}  // namespace npusim::hw
