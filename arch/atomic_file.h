// Writing files so that an interrupted or failed run never leaves a half-written file under
// the final name: write to a temporary name in the same directory, then rename.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>

namespace npusim {

/// Writes bytes to path atomically; throws RunError when the file cannot be written.
void writeFileAtomic(const std::filesystem::path& path, std::span<const std::byte> bytes);

}  // namespace npusim
