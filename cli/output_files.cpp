// Staging, commit and rollback of output files.
#include "cli/output_files.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <unistd.h>

#include "arch/error.h"

namespace npusim::cli {
namespace {

std::string quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

/// Creates and removes a file in `directory`, the one sure test that files can be written there
/// (permissions, a read-only file system, the process's limits); the reason when they cannot.
std::optional<std::string> cannotWriteIn(const std::filesystem::path& directory) {
    std::string probe = (directory / ".npusim-probe-XXXXXX").string();
    const int fd = ::mkstemp(probe.data());
    if (fd < 0) return std::strerror(errno);
    ::close(fd);
    ::unlink(probe.c_str());
    return std::nullopt;
}

/// The directory a relative name without one lies in.
std::filesystem::path directoryOf(const std::filesystem::path& path) {
    return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

}  // namespace

void checkOutputDirectory(std::string_view option, const std::filesystem::path& directory) {
    const std::string who(option);
    std::error_code error;
    if (std::filesystem::exists(directory, error)) {
        if (!std::filesystem::is_directory(directory, error)) {
            throw InputError(who + ": " + quoted(directory) + " exists and is not a directory");
        }
        if (const auto why = cannotWriteIn(directory)) throw InputError(who + ": cannot write into " + quoted(directory) + ": " + *why);
        return;
    }
    // The nearest existing ancestor must be a directory the rest can be created in.
    std::filesystem::path ancestor = directoryOf(directory);
    while (!std::filesystem::exists(ancestor, error)) ancestor = directoryOf(ancestor);  // ends at "." or "/"
    if (!std::filesystem::is_directory(ancestor, error)) {
        throw InputError(who + ": cannot create " + quoted(directory) + ": " + quoted(ancestor) + " is not a directory");
    }
    if (const auto why = cannotWriteIn(ancestor)) {
        throw InputError(who + ": cannot create " + quoted(directory) + " in " + quoted(ancestor) + ": " + *why);
    }
}

void checkOutputFile(std::string_view option, const std::filesystem::path& file) {
    const std::string who(option);
    std::error_code error;
    if (std::filesystem::is_directory(file, error)) throw InputError(who + ": " + quoted(file) + " is a directory");
    const std::filesystem::path directory = directoryOf(file);
    if (!std::filesystem::is_directory(directory, error)) {
        throw InputError(who + ": cannot write " + quoted(file) + ": " +
                         (std::filesystem::exists(directory, error) ? quoted(directory) + " is not a directory"
                                                                    : "no directory " + quoted(directory)));
    }
    if (const auto why = cannotWriteIn(directory)) throw InputError(who + ": cannot write " + quoted(file) + ": " + *why);
}

OutputFiles::~OutputFiles() {
    if (committed_) return;
    std::error_code ignored;
    for (const auto& [temporary, final] : staged_) std::filesystem::remove(temporary, ignored);
    for (auto it = createdDirectories_.rbegin(); it != createdDirectories_.rend(); ++it) {
        std::filesystem::remove(*it, ignored);  // only removes it if still empty
    }
}

void OutputFiles::makeDirectory(const std::filesystem::path& directory) {
    std::vector<std::filesystem::path> missing;
    for (std::filesystem::path p = directory; !p.empty() && !std::filesystem::exists(p); p = p.parent_path()) {
        missing.push_back(p);
        if (p == p.parent_path()) break;
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
        unfinished_.emplace_back(*it, RemovedOnInterrupt::Kind::Directory);
    }
    std::error_code error;
    std::filesystem::create_directories(directory, error);
    if (error || !std::filesystem::is_directory(directory)) {
        throw RunError("cannot create directory '" + directory.string() + "': " +
                       (error ? error.message() : "a file of that name exists"));
    }
    createdDirectories_.insert(createdDirectories_.end(), missing.rbegin(), missing.rend());
}

void OutputFiles::stage(const std::filesystem::path& file, std::string_view content) {
    stage(file, [&](std::ostream& out) { out.write(content.data(), static_cast<std::streamsize>(content.size())); });
}

void OutputFiles::stage(const std::filesystem::path& file, const std::function<void(std::ostream&)>& write) {
    std::filesystem::path temporary = file;
    temporary += ".tmp." + std::to_string(::getpid());
    staged_.emplace_back(temporary, file);
    unfinished_.emplace_back(temporary, RemovedOnInterrupt::Kind::File);
    errno = 0;
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw RunError("cannot write " + quoted(file) + ": " + (errno ? std::strerror(errno) : "cannot open it"));
    write(out);
    out.flush();
    if (!out) throw RunError("cannot write " + quoted(file) + ": " + (errno ? std::strerror(errno) : "the write failed"));
}

void OutputFiles::commit() {
    for (const auto& [temporary, final] : staged_) {
        std::error_code error;
        std::filesystem::rename(temporary, final, error);
        if (error) throw RunError("cannot write '" + final.string() + "': " + error.message());
    }
    committed_ = true;
    unfinished_.clear();
}

}  // namespace npusim::cli
