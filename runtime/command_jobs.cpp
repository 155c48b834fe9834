// Cutting a command stream into jobs, carrying outstanding semaphore signals across the cuts.
#include "runtime/command_jobs.h"

#include <algorithm>
#include <optional>
#include <string>

#include "arch/error.h"
#include "arch/isa_loops.h"

namespace npusim::runtime {
namespace {

using Balance = std::map<uint64_t, int64_t>;  ///< semaphore -> signals minus waits

/// What descriptors [begin, end) do to the semaphores, loops counted as often as they run
/// (their steps never touch semaphore fields); `queues` learns which queue signals each one.
Balance balanceOf(std::span<const isa::Command> descriptors, size_t begin, size_t end, std::map<uint64_t, isa::Queue>& queues) {
    Balance balance;
    for (size_t i = begin; i < end;) {
        const isa::Command& d = descriptors[i];
        if (d.opcode == isa::Opcode::Loop) {
            const size_t extent = isa::loopExtent(d);
            const auto count = static_cast<int64_t>(d.get(isa::Field::LoopCount));
            for (const auto& [sem, delta] : balanceOf(descriptors, i + 1, i + 1 + d.get(isa::Field::LoopBody), queues)) {
                balance[sem] += delta * count;
            }
            i += extent;
            continue;
        }
        if (d.opcode == isa::Opcode::SemSignal) {
            ++balance[d.get(isa::Field::Semaphore)];
            queues.emplace(d.get(isa::Field::Semaphore), isa::queueOf(d));
        }
        if (d.opcode == isa::Opcode::SemWait) --balance[d.get(isa::Field::Semaphore)];
        ++i;
    }
    return balance;
}

/// Descriptors of a job's prologue: one signal per outstanding count.
uint64_t prologueLength(const Balance& balance) {
    uint64_t signals = 0;
    for (const auto& [sem, count] : balance) signals += static_cast<uint64_t>(count);
    return signals;
}

}  // namespace

std::vector<CommandJob> planCommandJobs(std::span<const std::byte> stream, uint64_t maxBytes) {
    const std::vector<isa::Command> descriptors = isa::decodeStream(stream);
    const uint64_t maxDescriptors = std::max<uint64_t>(maxBytes / isa::kCommandBytes, 2);
    std::map<uint64_t, isa::Queue> queues;
    // A cut point: the descriptor that would start the next job, and the balance before it.
    struct Cut {
        size_t at = 0;
        Balance balance;
    };
    std::vector<CommandJob> jobs;
    Balance balance, jobStart;
    std::optional<Cut> lastClean, lastAny;  // inside the current job, after its first descriptor
    size_t begin = 0;
    const auto startJob = [&](const Cut& cut) {
        jobs.push_back({begin, cut.at, {}});
        begin = cut.at;
        jobStart = cut.balance;
        lastClean.reset();
        lastAny.reset();
    };
    const auto length = [&](size_t end) { return prologueLength(jobStart) + (end - begin) + 1; };  // + END
    for (size_t i = 0; i < descriptors.size();) {
        const isa::Command& d = descriptors[i];
        const size_t extent = d.opcode == isa::Opcode::Loop ? isa::loopExtent(d) : 1;
        if (i + extent > descriptors.size()) throw InputError("the loop at descriptor " + std::to_string(i) + " runs past the end of the stream");
        if (i > begin) {
            const bool clean = std::all_of(balance.begin(), balance.end(), [](const auto& b) { return b.second == 0; });
            (clean ? lastClean : lastAny) = Cut{i, balance};
            if (clean) lastAny.reset();
        }
        if (length(i + extent) > maxDescriptors) {
            // The latest clean cut, else the latest one that carries signals.
            if (lastClean && (!lastAny || lastAny->at < lastClean->at)) {
                startJob(*lastClean);
            } else if (lastAny) {
                startJob(*lastAny);
            }
        }
        for (const auto& [sem, delta] : balanceOf(descriptors, i, i + extent, queues)) {
            if ((balance[sem] += delta) < 0) {
                throw InputError("descriptor " + std::to_string(i) + " waits on semaphore " + std::to_string(sem) +
                                 " more often than it was signalled before");
            }
        }
        i += extent;
    }
    jobs.push_back({begin, descriptors.size(), {}});
    // Each job's prologue: what was outstanding where it starts.
    Balance running;
    size_t next = 0;
    for (CommandJob& job : jobs) {
        for (; next < job.begin;) {
            const size_t extent = descriptors[next].opcode == isa::Opcode::Loop ? isa::loopExtent(descriptors[next]) : 1;
            for (const auto& [sem, delta] : balanceOf(descriptors, next, next + extent, queues)) running[sem] += delta;
            next += extent;
        }
        for (const auto& [sem, count] : running) {
            if (count > 0) job.carried[sem] = {static_cast<uint64_t>(count), queues.at(sem)};
        }
    }
    return jobs;
}

uint64_t jobByteCount(std::span<const std::byte> stream, const CommandJob& job) {
    uint64_t commands = job.end - job.begin + (job.end != stream.size() / isa::kCommandBytes ? 1 : 0);
    for (const auto& [sem, carried] : job.carried) commands += carried.count;
    return commands * isa::kCommandBytes;
}

std::vector<std::byte> jobBytes(std::span<const std::byte> stream, const CommandJob& job) {
    std::vector<std::byte> bytes;
    bytes.reserve(jobByteCount(stream, job));
    for (const auto& [sem, carried] : job.carried) {
        isa::Command signal;
        signal.opcode = isa::Opcode::SemSignal;
        signal.kind = isa::CommandKind::Sync;
        signal.opId = isa::kNoOp;
        signal.set(isa::Field::Queue, static_cast<uint64_t>(carried.queue)).set(isa::Field::Semaphore, sem);
        const isa::EncodedCommand encoded = isa::encode(signal);
        for (uint64_t n = 0; n < carried.count; ++n) bytes.insert(bytes.end(), encoded.begin(), encoded.end());
    }
    const size_t total = stream.size() / isa::kCommandBytes;
    const auto part = stream.subspan(job.begin * isa::kCommandBytes, (job.end - job.begin) * isa::kCommandBytes);
    bytes.insert(bytes.end(), part.begin(), part.end());
    if (job.end != total) {
        const auto end = stream.last(isa::kCommandBytes);  // the stream's own END
        bytes.insert(bytes.end(), end.begin(), end.end());
    }
    return bytes;
}

}  // namespace npusim::runtime
