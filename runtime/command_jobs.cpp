// Cutting a command stream into jobs at the points where no semaphore is outstanding.
#include "runtime/command_jobs.h"

#include <algorithm>
#include <map>
#include <string>

#include "arch/error.h"
#include "arch/isa.h"
#include "arch/isa_loops.h"

namespace npusim::runtime {
namespace {

using Balance = std::map<uint64_t, int64_t>;  ///< semaphore -> signals minus waits

/// What descriptors [begin, end) do to the semaphores, loops counted as often as they run
/// (their steps never touch semaphore fields).
Balance balanceOf(std::span<const isa::Command> descriptors, size_t begin, size_t end) {
    Balance balance;
    for (size_t i = begin; i < end;) {
        const isa::Command& d = descriptors[i];
        if (d.opcode == isa::Opcode::Loop) {
            const size_t extent = isa::loopExtent(d);
            const auto count = static_cast<int64_t>(d.get(isa::Field::LoopCount));
            for (const auto& [sem, delta] : balanceOf(descriptors, i + 1, i + 1 + d.get(isa::Field::LoopBody))) {
                balance[sem] += delta * count;
            }
            i += extent;
            continue;
        }
        if (d.opcode == isa::Opcode::SemSignal) ++balance[d.get(isa::Field::Semaphore)];
        if (d.opcode == isa::Opcode::SemWait) --balance[d.get(isa::Field::Semaphore)];
        ++i;
    }
    return balance;
}

}  // namespace

std::vector<CommandJob> planCommandJobs(std::span<const std::byte> stream, uint64_t maxBytes) {
    const std::vector<isa::Command> descriptors = isa::decodeStream(stream);
    const uint64_t maxDescriptors = std::max<uint64_t>(maxBytes / isa::kCommandBytes, 2) - 1;  // room for END
    std::vector<CommandJob> jobs;
    Balance balance;
    int64_t outstanding = 0;  // semaphores whose balance is not zero
    size_t begin = 0, lastCut = 0;
    for (size_t i = 0; i < descriptors.size();) {
        if (outstanding == 0 && i > begin) lastCut = i;
        const isa::Command& d = descriptors[i];
        const size_t extent = d.opcode == isa::Opcode::Loop ? isa::loopExtent(d) : 1;
        if (i + extent > descriptors.size()) throw InputError("the loop at descriptor " + std::to_string(i) + " runs past the end of the stream");
        if (i + extent - begin > maxDescriptors && lastCut > begin) {
            jobs.push_back({begin, lastCut});
            begin = lastCut;
        }
        const auto add = [&](uint64_t sem, int64_t delta) {
            int64_t& b = balance[sem];
            const bool was = b != 0;
            b += delta;
            outstanding += static_cast<int64_t>(b != 0) - static_cast<int64_t>(was);
        };
        if (d.opcode == isa::Opcode::Loop) {
            for (const auto& [sem, delta] : balanceOf(descriptors, i, i + extent)) add(sem, delta);
        } else if (d.opcode == isa::Opcode::SemSignal || d.opcode == isa::Opcode::SemWait) {
            add(d.get(isa::Field::Semaphore), d.opcode == isa::Opcode::SemSignal ? 1 : -1);
        }
        i += extent;
    }
    jobs.push_back({begin, descriptors.size()});
    return jobs;
}

}  // namespace npusim::runtime
