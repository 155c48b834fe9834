// Queues, semaphores and idle tracking.
#include "hw_model/command/command_processor.h"

#include <string>

namespace npusim::hw {

CommandProcessor::CommandProcessor(sc_core::sc_module_name name, const ArchConfig& config,
                                   const Clock& clock)
    : sc_module(name), clock_(clock), semaphores_(config.semaphores, 0) {
    for (int q = 0; q < isa::kQueueCount; ++q) {
        const std::string fifoName = "queue_" + std::string(isa::queueName(static_cast<isa::Queue>(q)));
        queues_[q].fifo = std::make_unique<sc_core::sc_fifo<isa::Command>>(
            fifoName.c_str(), static_cast<int>(config.queueDepth));
    }
}

void CommandProcessor::push(isa::Queue queue, const isa::Command& command) {
    queues_[static_cast<size_t>(queue)].fifo->write(command);
}

bool CommandProcessor::full(isa::Queue queue) const {
    return queues_[static_cast<size_t>(queue)].fifo->num_free() == 0;
}

const sc_core::sc_event& CommandProcessor::slotFreed(isa::Queue queue) const {
    return queues_[static_cast<size_t>(queue)].fifo->data_read_event();
}

bool CommandProcessor::idle() const {
    for (const QueueState& state : queues_) {
        if (state.executing || state.fifo->num_available() > 0) return false;
    }
    return true;
}

void CommandProcessor::serve(isa::Queue queue, CommandExecutor& executor, UnitTrace& trace) {
    QueueState& state = queues_[static_cast<size_t>(queue)];
    while (true) {
        const isa::Command command = state.fifo->read();
        state.executing = true;
        switch (command.opcode) {
            case isa::Opcode::SemWait: waitSemaphore(command, trace); break;
            case isa::Opcode::SemSignal: signalSemaphore(command); break;
            default: executor.execute(command); break;
        }
        state.executing = false;
        activity_.notify(sc_core::SC_ZERO_TIME);
    }
}

void CommandProcessor::waitSemaphore(const isa::Command& command, UnitTrace& trace) {
    uint32_t& count = semaphores_.at(command.get(isa::Field::Semaphore));
    const uint64_t start = clock_.now();
    while (count == 0) sc_core::wait(semaphoreSignalled_);
    --count;
    trace.stall(trace::StallReason::SemaphoreWait, command, start, clock_.now());
}

void CommandProcessor::signalSemaphore(const isa::Command& command) {
    ++semaphores_.at(command.get(isa::Field::Semaphore));
    semaphoreSignalled_.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace npusim::hw
