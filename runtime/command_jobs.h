// Command streams too large to keep in device memory run as a chain of jobs. The stream is cut
// between top-level descriptors (never inside a loop), where every semaphore has been signalled
// at least as often as waited on; the NPU starts each job with its semaphores at zero, so a
// piece cut where signals are still outstanding begins with a prologue of signals that restores
// them. Each piece, ended like the stream, is a job of its own that needs nothing from the one
// before but the data it left in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "arch/isa.h"

namespace npusim::runtime {

/// Descriptors [begin, end) of a stream, run as one job after the signals in `carried` (per
/// semaphore, the count outstanding where the job starts, and the queue that signals it), with
/// the END it needs appended unless it is the stream's last piece, which has its own.
struct CommandJob {
    struct Carried {
        uint64_t count = 0;
        isa::Queue queue = isa::Queue::Load;
    };
    size_t begin = 0, end = 0;
    std::map<uint64_t, Carried> carried;
};

/// Cuts an encoded stream (ending with `end`) into jobs of at most `maxBytes` each, prologue
/// and END included, preferring points where no semaphore is outstanding (no prologue). A
/// single loop longer than that stays whole. Throws InputError on a stream that does not
/// decode, or that waits on a semaphore before it is signalled (no point before it can be cut).
std::vector<CommandJob> planCommandJobs(std::span<const std::byte> stream, uint64_t maxBytes);

/// The encoded commands of a job: its prologue of signals, its descriptors and, unless it ends
/// the stream, the stream's END.
std::vector<std::byte> jobBytes(std::span<const std::byte> stream, const CommandJob& job);
/// The size jobBytes gives, without making them.
uint64_t jobByteCount(std::span<const std::byte> stream, const CommandJob& job);

}  // namespace npusim::runtime
