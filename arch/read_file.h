// Reading a whole input file, with the one-line error a user sees when it cannot be read.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace npusim {

/// The file's bytes; throws InputError "cannot read [<what> ]'<path>': <why>" when it cannot be
/// opened.
std::string readWholeFile(const std::filesystem::path& path, std::string_view what = {});

/// Why `path` cannot be read as a file, for messages: "no such file", "it is a directory", or
/// the system's reason for refusing to open it.
std::string unreadableReason(const std::filesystem::path& path);

}  // namespace npusim
