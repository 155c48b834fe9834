// CRC-32 from zlib, SHA-256 from OpenSSL's libcrypto, and the 64-bit FNV-1a of config hashes
// (neither library has it; its definition is the two constants below).
#include "arch/checksum.h"

#include <openssl/evp.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "arch/read_file.h"

namespace npusim {

std::string sha256Hex(std::span<const std::byte> bytes) {
    std::array<unsigned char, 32> digest{};
    unsigned int length = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1 ||
        length != digest.size()) {
        throw std::runtime_error("libcrypto could not compute a SHA-256 digest");
    }
    std::string hex;
    for (unsigned char b : digest) {
        char pair[3];
        std::snprintf(pair, sizeof pair, "%02x", b);
        hex += pair;
    }
    return hex;
}

std::string fileSha256(const std::string& path) {
    const std::string bytes = readWholeFile(path);
    return sha256Hex(std::as_bytes(std::span(bytes)));
}

uint32_t crc32(std::span<const std::byte> bytes) {
    // zlib takes lengths as uInt: spans past 4 GiB go in pieces.
    uLong crc = ::crc32(0L, Z_NULL, 0);
    for (size_t at = 0; at < bytes.size();) {
        const size_t piece = std::min<size_t>(bytes.size() - at, std::numeric_limits<uInt>::max());
        crc = ::crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), static_cast<uInt>(piece));
        at += piece;
    }
    return static_cast<uint32_t>(crc);
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
