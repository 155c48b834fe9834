// Staging, commit and rollback of output files.
#include "cli/output_files.h"

#include <fstream>
#include <unistd.h>

#include "arch/error.h"

namespace npusim::cli {

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
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    write(out);
    out.flush();
    if (!out) throw RunError("cannot write '" + file.string() + "'");
}

void OutputFiles::commit() {
    for (const auto& [temporary, final] : staged_) {
        std::error_code error;
        std::filesystem::rename(temporary, final, error);
        if (error) throw RunError("cannot write '" + final.string() + "': " + error.message());
    }
    committed_ = true;
}

}  // namespace npusim::cli
