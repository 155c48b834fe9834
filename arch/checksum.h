// Checksums and digests used by the artifact container and config hashes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace npusim {

/// CRC-32 (IEEE 802.3 polynomial), as used by zip and PNG.
uint32_t crc32(std::span<const std::byte> bytes);
/// 64-bit FNV-1a hash.
uint64_t fnv1a64(std::span<const std::byte> bytes);
/// SHA-256 (FIPS 180-4), as lower-case hex.
std::string sha256Hex(std::span<const std::byte> bytes);
/// sha256Hex of a file's bytes; throws InputError naming the file when it cannot be read.
std::string fileSha256(const std::string& path);
/// Lower-case hex, zero-padded to the value's width.
std::string hexDigest(uint64_t value);
std::string hexDigest(uint32_t value);

}  // namespace npusim
