#include "arch/read_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <unistd.h>

#include "arch/error.h"

namespace npusim {

std::string unreadableReason(const std::filesystem::path& path) {
    std::error_code error;
    const std::filesystem::file_status status = std::filesystem::status(path, error);
    if (status.type() == std::filesystem::file_type::not_found) return "no such file";
    if (status.type() == std::filesystem::file_type::directory) return "it is a directory";
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return std::strerror(errno);
    ::close(fd);
    return error ? error.message() : "it cannot be read";
}

std::string readWholeFile(const std::filesystem::path& path, std::string_view what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::string label(what);
        if (!label.empty()) label += ' ';
        throw InputError("cannot read " + label + "'" + path.string() + "': " + unreadableReason(path));
    }
    // One read of the whole size where the stream can tell it (a regular file); else (a pipe)
    // chunk by chunk.
    std::string bytes;
    in.seekg(0, std::ios::end);
    if (const std::streamoff size = in.tellg(); size > 0) {
        bytes.resize(static_cast<size_t>(size));
        in.seekg(0);
        in.read(bytes.data(), size);
        bytes.resize(static_cast<size_t>(in.gcount()));
        return bytes;
    }
    in.clear();
    in.seekg(0);
    char chunk[1 << 16];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) bytes.append(chunk, static_cast<size_t>(in.gcount()));
    return bytes;
}

}  // namespace npusim
