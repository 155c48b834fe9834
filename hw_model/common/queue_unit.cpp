// The unit thread: serve the queue forever.
#include "hw_model/common/queue_unit.h"

namespace npusim::hw {

QueueUnit::QueueUnit(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
                     CommandProcessor& processor, isa::Queue queue, trace::Recorder* recorder,
                     trace::UnitKind kind, bool functional)
    : sc_module(name),
      config_(config),
      clock_(clock),
      trace_(recorder, this->name(), kind),
      functional_(functional),
      processor_(processor),
      queue_(queue) {
    SC_HAS_PROCESS(QueueUnit);
    SC_THREAD(run);
}

void QueueUnit::run() { processor_.serve(queue_, *this, trace_); }

AccessTag QueueUnit::tagFor(const isa::Command& command) const {
    AccessTag tag;
    tag.initiator = trace_.id();
    tag.opId = command.opId;
    tag.tileId = command.tileId;
    tag.kind = command.kind;
    return tag;
}

}  // namespace npusim::hw
