// Command streams too large to keep in device memory run as a chain of jobs: the stream is
// cut where no semaphore is outstanding (every signal so far has been waited for), so each
// piece, ended like the stream, is a job of its own that needs nothing from the one before
// but the data it left in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace npusim::runtime {

/// Descriptors [begin, end) of a stream, run as one job (its `end` appended unless it is the
/// stream's last piece, which has its own).
struct CommandJob {
    size_t begin = 0, end = 0;
};

/// Cuts an encoded stream (ending with `end`) into jobs of at most `maxBytes` each, with the
/// END they need, where cuts are possible: between top-level descriptors (never inside a loop)
/// with every semaphore's signals and waits balanced. A stretch with no such point stays whole,
/// however long. Throws InputError on a stream that does not decode.
std::vector<CommandJob> planCommandJobs(std::span<const std::byte> stream, uint64_t maxBytes);

}  // namespace npusim::runtime
