// Atomic file writes (temporary file + rename).
#include "arch/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>
#include <unistd.h>

#include "arch/error.h"

namespace npusim {

void writeFileAtomic(const std::filesystem::path& path, std::span<const std::byte> bytes) {
    std::filesystem::path temporary = path;
    temporary += ".tmp." + std::to_string(::getpid());
    // The stream keeps no error code: the system's reason is errno right after the failure.
    const auto reason = [](const char* otherwise) { return std::string(errno ? std::strerror(errno) : otherwise); };
    {
        errno = 0;
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) throw RunError("cannot write '" + path.string() + "': " + reason("cannot open it"));
        out.write(reinterpret_cast<const char*>(bytes.data()),
                  static_cast<std::streamsize>(bytes.size()));
        out.flush();
        if (!out) {
            const std::string why = reason("the write failed");
            std::error_code ignored;
            std::filesystem::remove(temporary, ignored);
            throw RunError("cannot write '" + path.string() + "': " + why);
        }
    }
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error) {
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
        throw RunError("cannot write '" + path.string() + "': " + error.message());
    }
}

}  // namespace npusim
