// CRC-32 and FNV-1a.
#include "arch/checksum.h"

#include <array>
#include <cstdio>

namespace npusim {
namespace {

constexpr std::array<uint32_t, 256> makeCrcTable() {
    std::array<uint32_t, 256> table{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int bit = 0; bit < 8; ++bit) c = (c & 1u) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    return table;
}

constexpr std::array<uint32_t, 256> kCrcTable = makeCrcTable();

}  // namespace

uint32_t crc32(std::span<const std::byte> bytes) {
    uint32_t crc = 0xffffffffu;
    for (std::byte b : bytes) crc = kCrcTable[(crc ^ static_cast<uint8_t>(b)) & 0xffu] ^ (crc >> 8);
    return crc ^ 0xffffffffu;
}

uint64_t fnv1a64(std::span<const std::byte> bytes) {
    uint64_t hash = 0xcbf29ce484222325ull;
    for (std::byte b : bytes) {
        hash ^= static_cast<uint8_t>(b);
        hash *= 0x100000001b3ull;
    }
    return hash;
}

std::string hexDigest(uint64_t value) {
    char buffer[17];
    std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
    return buffer;
}

std::string hexDigest(uint32_t value) {
    char buffer[9];
    std::snprintf(buffer, sizeof buffer, "%08x", value);
    return buffer;
}

}  // namespace npusim
