// Checking and expanding loop descriptors.
#include "arch/isa_loops.h"

#include "arch/error.h"

namespace npusim::isa {
namespace {

struct StepEntry {
    size_t target = 0;
    StepField field = StepField::None;
    int64_t value = 0;
};

Field entryField(int entry, int part) {
    return static_cast<Field>(static_cast<int>(Field::StepTarget0) + 3 * entry + part);
}

/// The used entries of a loop's step descriptors.
std::vector<StepEntry> stepEntries(std::span<const Command> steps) {
    std::vector<StepEntry> entries;
    for (const Command& step : steps) {
        for (int e = 0; e < kStepsPerDescriptor; ++e) {
            const auto field = static_cast<StepField>(step.get(entryField(e, 1)));
            if (field == StepField::None) continue;
            entries.push_back({step.get(entryField(e, 0)), field, step.getSigned(entryField(e, 2))});
        }
    }
    return entries;
}

bool isCommand(Opcode opcode) {
    return opcode != Opcode::Loop && opcode != Opcode::Step && opcode != Opcode::End;
}

std::optional<Field> addressField(StepField field) {
    switch (field) {
        case StepField::Dram: return Field::DramAddr;
        case StepField::Addr: return Field::OnchipAddr;
        case StepField::A: return Field::AAddr;
        case StepField::B: return Field::BAddr;
        case StepField::C: return Field::CAddr;
        case StepField::Dst: return Field::DstAddr;
        case StepField::Src0: return Field::Src0Addr;
        case StepField::Src1: return Field::Src1Addr;
        case StepField::None:
        case StepField::Tile: break;
    }
    return std::nullopt;
}

std::optional<std::string> check(std::span<const Command> loop, int depth) {
    const Command& header = loop[0];
    const uint64_t count = header.get(Field::LoopCount), body = header.get(Field::LoopBody);
    if (count == 0) return "its count is 0";
    if (body == 0) return "its body is empty";
    if (depth > kMaxLoopDepth) return "loops nest deeper than " + std::to_string(kMaxLoopDepth);
    for (size_t j = 1; j <= body;) {
        const Command& d = loop[j];
        if (d.opcode == Opcode::End) return "its body holds end";
        if (d.opcode == Opcode::Step) return "its body holds a step outside a loop";
        if (d.opcode != Opcode::Loop) {
            ++j;
            continue;
        }
        const size_t extent = loopExtent(d);
        if (j + extent > body + 1) return "the loop at body descriptor " + std::to_string(j - 1) + " runs past the body";
        if (auto inner = check(loop.subspan(j, extent), depth + 1)) {
            return "the loop at body descriptor " + std::to_string(j - 1) + ": " + *inner;
        }
        j += extent;
    }
    const auto steps = loop.subspan(1 + body);
    for (const Command& step : steps) {
        if (step.opcode != Opcode::Step) return "descriptor " + std::string(opcodeName(step.opcode)) + " where a step belongs";
        for (int e = 0; e < kStepsPerDescriptor; ++e) {
            const uint64_t field = step.get(entryField(e, 1));
            if (field == 0) {
                if (step.get(entryField(e, 0)) != 0 || step.get(entryField(e, 2)) != 0) return "an unused step entry is not zero";
                continue;
            }
            if (field >= kStepFieldCount) return "a step names field " + std::to_string(field);
            const uint64_t target = step.get(entryField(e, 0));
            if (target >= body) return "a step targets descriptor " + std::to_string(target) + " beyond the body";
            const Command& d = loop[1 + target];
            if (!isCommand(d.opcode)) return "a step targets the " + std::string(opcodeName(d.opcode)) + " descriptor " + std::to_string(target);
            if (!stepApplies(static_cast<StepField>(field), d.opcode)) {
                return "a step of '" + std::string(stepFieldName(static_cast<StepField>(field))) + "' targets " +
                       std::string(opcodeName(d.opcode)) + " descriptor " + std::to_string(target);
            }
        }
    }
    return std::nullopt;
}

}  // namespace

size_t loopExtent(const Command& header) {
    return 1 + header.get(Field::LoopBody) + header.get(Field::LoopSteps);
}

bool stepApplies(StepField field, Opcode opcode) {
    switch (field) {
        case StepField::None: return false;
        case StepField::Tile: return isCommand(opcode);
        case StepField::Dram:
        case StepField::Addr: return opcode == Opcode::DmaLoad || opcode == Opcode::DmaStore;
        case StepField::A:
        case StepField::B:
        case StepField::C: return opcode == Opcode::Gemm;
        case StepField::Dst:
        case StepField::Src0:
        case StepField::Src1: return opcode == Opcode::Vector;
    }
    return false;
}

void applyStep(Command& command, StepField field, int64_t amount) {
    if (field == StepField::Tile) {
        command.tileId += static_cast<uint32_t>(amount);
        return;
    }
    const Field target = *addressField(field);
    command.set(target, command.get(target) + static_cast<uint64_t>(amount));
}

std::optional<std::string> checkLoop(std::span<const Command> loop) {
    if (loop.empty() || loop[0].opcode != Opcode::Loop) return "it does not start with a loop header";
    if (loop.size() != loopExtent(loop[0])) return "it spans " + std::to_string(loopExtent(loop[0])) + " descriptors, not " + std::to_string(loop.size());
    if (loop.size() > kMaxLoopDescriptors) {
        return "it spans " + std::to_string(loop.size()) + " descriptors, more than the " +
               std::to_string(kMaxLoopDescriptors) + " of the loop buffer";
    }
    return check(loop, 1);
}

bool expandLoop(std::span<const Command> loop, const LoopEmit& emit) {
    const Command& header = loop[0];
    const uint64_t count = header.get(Field::LoopCount);
    const size_t body = header.get(Field::LoopBody);
    const std::vector<StepEntry> entries = stepEntries(loop.subspan(1 + body));
    std::vector<Command> current(loop.begin() + 1, loop.begin() + 1 + static_cast<std::ptrdiff_t>(body));
    for (uint64_t i = 0; i < count; ++i) {
        if (i > 0) {
            for (const StepEntry& e : entries) applyStep(current[e.target], e.field, e.value);
        }
        for (size_t j = 0; j < body;) {
            const Command& d = current[j];
            if (d.opcode != Opcode::Loop) {
                if (!emit(d, 1 + j)) return false;
                ++j;
                continue;
            }
            const size_t extent = loopExtent(d);
            const LoopEmit inner = [&, offset = 1 + j](const Command& c, size_t at) { return emit(c, offset + at); };
            if (!expandLoop(std::span<const Command>(current).subspan(j, extent), inner)) return false;
            j += extent;
        }
    }
    return true;
}

std::vector<Command> expandLoops(std::span<const Command> descriptors) {
    std::vector<Command> commands;
    commands.reserve(descriptors.size());
    for (size_t i = 0; i < descriptors.size();) {
        const Command& d = descriptors[i];
        if (d.opcode == Opcode::Step) throw InputError("descriptor " + std::to_string(i) + " is a step outside a loop");
        if (d.opcode != Opcode::Loop) {
            commands.push_back(d);
            ++i;
            continue;
        }
        const size_t extent = loopExtent(d);
        if (i + extent > descriptors.size()) {
            throw InputError("the loop at descriptor " + std::to_string(i) + " runs past the end of the stream");
        }
        const auto loop = descriptors.subspan(i, extent);
        if (auto why = checkLoop(loop)) throw InputError("the loop at descriptor " + std::to_string(i) + " cannot run: " + *why);
        expandLoop(loop, [&](const Command& c, size_t) {
            commands.push_back(c);
            return true;
        });
        i += extent;
    }
    return commands;
}

}  // namespace npusim::isa
