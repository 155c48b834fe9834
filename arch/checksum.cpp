// CRC-32 from zlib, SHA-256 from OpenSSL's libcrypto, and the 64-bit FNV-1a of config hashes
// (neither library has it; its definition is the two constants below).
#include "arch/checksum.h"

#include <openssl/evp.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <vector>

#include "arch/error.h"
#include "arch/read_file.h"

namespace npusim {

namespace {

/// A SHA-256 computation fed piece by piece.
class Sha256 {
public:
    Sha256() : context_(EVP_MD_CTX_new()) {
        if (!context_ || EVP_DigestInit_ex(context_, EVP_sha256(), nullptr) != 1) fail();
    }
    ~Sha256() { EVP_MD_CTX_free(context_); }
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;

    void update(const void* data, size_t size) {
        if (EVP_DigestUpdate(context_, data, size) != 1) fail();
    }
    std::string hex() {
        std::array<unsigned char, 32> digest{};
        unsigned int length = 0;
        if (EVP_DigestFinal_ex(context_, digest.data(), &length) != 1 || length != digest.size()) fail();
        std::string text;
        for (unsigned char b : digest) {
            char pair[3];
            std::snprintf(pair, sizeof pair, "%02x", b);
            text += pair;
        }
        return text;
    }

private:
    [[noreturn]] static void fail() { throw std::runtime_error("libcrypto could not compute a SHA-256 digest"); }

    EVP_MD_CTX* context_;
};

}  // namespace

std::string sha256Hex(std::span<const std::byte> bytes) {
    Sha256 sha;
    sha.update(bytes.data(), bytes.size());
    return sha.hex();
}

std::string fileSha256(const std::string& path) {
    // Streamed: a model of gigabytes is hashed without holding it.
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("cannot read '" + path + "': " + unreadableReason(path));
    Sha256 sha;
    std::vector<char> chunk(1 << 20);
    while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
        sha.update(chunk.data(), static_cast<size_t>(in.gcount()));
    }
    if (in.bad()) throw InputError("cannot read '" + path + "': " + unreadableReason(path));
    return sha.hex();
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
