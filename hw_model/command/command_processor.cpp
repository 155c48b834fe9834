// Queues, semaphores, job completion, faults and deadlock detection.
#include "hw_model/command/command_processor.h"

#include <algorithm>
#include <ostream>

namespace npusim::hw {

std::ostream& operator<<(std::ostream& out, const QueuedCommand& queued) {
    return out << "#" << queued.index << " " << queued.command;
}

CommandProcessor::CommandProcessor(sc_core::sc_module_name name, const ArchConfig& config,
                                   const Clock& clock)
    : sc_module(name), clock_(clock), semaphores_(config.semaphores, 0) {
    for (int q = 0; q < isa::kQueueCount; ++q) {
        const std::string fifoName = "queue_" + std::string(isa::queueName(static_cast<isa::Queue>(q)));
        queues_[q].fifo = std::make_unique<sc_core::sc_fifo<QueuedCommand>>(
            fifoName.c_str(), static_cast<int>(config.queueDepth));
    }
    SC_HAS_PROCESS(CommandProcessor);
    SC_METHOD(detectDeadlock);
    sensitive << blocked_ << activity_;
    dont_initialize();
    SC_METHOD(deliverPostedSignals);
    sensitive << signalDue_;
    dont_initialize();
}

void CommandProcessor::beginJob() {
    std::fill(semaphores_.begin(), semaphores_.end(), 0);
    postedSignals_.clear();
    signalDue_.cancel();
    fault_.reset();
    dispatcher_ = Dispatcher::Dispatching;
}

bool CommandProcessor::waitForSlot(const isa::Command& command, uint64_t deadline) {
    sc_core::sc_fifo<QueuedCommand>& fifo = *queues_[static_cast<size_t>(isa::queueOf(command))].fifo;
    while (!fault_ && fifo.num_free() == 0) {
        dispatcher_ = Dispatcher::BlockedOnFullQueue;
        blocked_.notify(sc_core::SC_ZERO_TIME);
        if (deadline == 0) {
            sc_core::wait(fifo.data_read_event() | faulted_);
        } else if (clock_.now() >= deadline) {
            raiseWatchdog();  // a unit that stops taking commands fills its queue
        } else {
            sc_core::wait(clock_.cycles(deadline - clock_.now()), fifo.data_read_event() | faulted_);
        }
    }
    dispatcher_ = Dispatcher::Dispatching;
    return !fault_;
}

void CommandProcessor::push(const isa::Command& command, uint32_t index, uint64_t availableAt) {
    queues_[static_cast<size_t>(isa::queueOf(command))].fifo->nb_write({command, index, availableAt});
    if (dispatched_) dispatched_->store(dispatched_->load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

std::optional<JobFault> CommandProcessor::finishJob(uint64_t deadline) {
    dispatcher_ = Dispatcher::Done;
    blocked_.notify(sc_core::SC_ZERO_TIME);
    while (fault_ ? !unitsStopped() : !idle()) {
        if (fault_ || deadline == 0) {
            sc_core::wait(activity_ | faulted_);
        } else if (clock_.now() >= deadline) {
            raiseWatchdog();
        } else {
            sc_core::wait(clock_.cycles(deadline - clock_.now()), activity_ | faulted_);
        }
    }
    return fault_;
}

bool CommandProcessor::idle() const {
    if (!postedSignals_.empty()) return false;
    for (const QueueState& state : queues_) {
        if (state.executing || state.fifo->num_available() > 0) return false;
    }
    return true;
}

bool CommandProcessor::unitsStopped() const {
    for (const QueueState& state : queues_) {
        if (state.executing) return false;
    }
    return true;
}

void CommandProcessor::serve(isa::Queue queue, CommandExecutor& executor, UnitTrace& trace) {
    QueueState& state = queues_[static_cast<size_t>(queue)];
    while (true) {
        const QueuedCommand queued = state.fifo->read();
        if (fault_) continue;  // the job has stopped: drop what is left
        state.executing = true;
        state.current = queued;
        // The dispatcher ran ahead: an idle unit sees the command when its dispatch is done.
        if (queued.availableAt > clock_.now()) sc_core::wait(clock_.cycles(queued.availableAt - clock_.now()));
        switch (queued.command.opcode) {
            case isa::Opcode::SemWait:
                waitSemaphore(state, queued.command, trace, executor);
                break;
            case isa::Opcode::SemSignal:
                postSignal(queued.command, executor.completesAt());
                break;
            default:
                try {
                    executor.execute(queued.command);
                } catch (const UnitFault& unitFault) {
                    raise({unitFault.code, queued.index, unitFault.detail});
                }
                break;
        }
        if (state.fifo->num_available() == 0) executor.drain(state.fifo->data_written_event());
        state.executing = false;
        state.current.reset();
        activity_.notify(sc_core::SC_ZERO_TIME);
    }
}

void CommandProcessor::waitSemaphore(QueueState& state, const isa::Command& command, UnitTrace& trace,
                                     CommandExecutor& executor) {
    uint32_t& count = semaphores_.at(command.get(isa::Field::Semaphore));
    const uint64_t begin = clock_.now();
    state.waiting = true;
    while (count == 0 && !fault_) {
        blocked_.notify(sc_core::SC_ZERO_TIME);
        sc_core::wait(semaphoreSignalled_ | faulted_);
    }
    state.waiting = false;
    if (!fault_) --count;
    // A pipelined unit went on with its earlier commands meanwhile: it waits from then on.
    executor.settle(clock_.now());
    trace.stall(trace::StallReason::SemaphoreWait, command, std::max(executor.busyUntil(), begin), clock_.now());
}

void CommandProcessor::signalSemaphore(const isa::Command& command) {
    ++semaphores_.at(command.get(isa::Field::Semaphore));
    semaphoreSignalled_.notify(sc_core::SC_ZERO_TIME);
}

void CommandProcessor::postSignal(const isa::Command& command, uint64_t at) {
    const uint64_t now = clock_.now();
    if (at <= now) {
        signalSemaphore(command);
        return;
    }
    postedSignals_.emplace(at, command.get(isa::Field::Semaphore));
    signalDue_.notify(clock_.cycles(postedSignals_.begin()->first - now));
}

void CommandProcessor::deliverPostedSignals() {
    const uint64_t now = clock_.now();
    while (!postedSignals_.empty() && postedSignals_.begin()->first <= now) {
        ++semaphores_.at(postedSignals_.begin()->second);
        postedSignals_.erase(postedSignals_.begin());
    }
    if (!postedSignals_.empty()) signalDue_.notify(clock_.cycles(postedSignals_.begin()->first - now));
    semaphoreSignalled_.notify(sc_core::SC_ZERO_TIME);
    activity_.notify(sc_core::SC_ZERO_TIME);
}

void CommandProcessor::raiseWatchdog() {
    // The oldest command still in the job is the one reported.
    uint32_t oldest = UINT32_MAX;
    for (const QueueState& state : queues_) {
        if (state.executing && state.current) oldest = std::min(oldest, state.current->index);
    }
    raise({regs::ErrorCode::Watchdog, oldest == UINT32_MAX ? 0 : oldest, "the job was still running at its cycle budget"});
}

void CommandProcessor::waitForFault() {
    while (!fault_) sc_core::wait(faulted_);
}

void CommandProcessor::raise(JobFault fault) {
    if (fault_) return;  // the first fault stops the job; later ones are its consequences
    fault_ = std::move(fault);
    postedSignals_.clear();
    signalDue_.cancel();
    for (QueueState& state : queues_) {
        QueuedCommand dropped;
        while (state.fifo->nb_read(dropped)) {
        }
    }
    faulted_.notify(sc_core::SC_ZERO_TIME);
}

void CommandProcessor::detectDeadlock() {
    if (fault_ || dispatcher_ == Dispatcher::Dispatching || !postedSignals_.empty()) return;
    const QueueState* waiter = nullptr;
    for (const QueueState& state : queues_) {
        if (state.waiting) {
            // A waiter whose semaphore is already positive is about to proceed.
            if (semaphores_.at(state.current->command.get(isa::Field::Semaphore)) > 0) return;
            // Report the earliest waiting command of the job: the first link of the cycle.
            if (!waiter || state.current->index < waiter->current->index) waiter = &state;
        } else if (state.executing || state.fifo->num_available() > 0) {
            return;  // a unit is working or about to: it may still signal
        }
    }
    if (!waiter) return;
    std::string waits;
    for (const QueueState& state : queues_) {
        if (!state.waiting) continue;
        waits += (waits.empty() ? "" : ", ") + std::string("#") + std::to_string(state.current->index) +
                 " " + isa::disassemble(state.current->command);
    }
    raise({regs::ErrorCode::Deadlock, waiter->current->index, "no queue can proceed; waiting: " + waits});
}

}  // namespace npusim::hw
