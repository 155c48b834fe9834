// Reading a whole input file, with the one-line error a user sees when it cannot be read.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace npusim {

/// The file's bytes; throws InputError "cannot read [<what> ]'<path>'" when it cannot be
/// opened.
std::string readWholeFile(const std::filesystem::path& path, std::string_view what = {});

}  // namespace npusim
