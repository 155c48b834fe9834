#include "arch/read_file.h"

#include <fstream>
#include <iterator>

#include "arch/error.h"

namespace npusim {

std::string readWholeFile(const std::filesystem::path& path, std::string_view what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::string label(what);
        if (!label.empty()) label += ' ';
        throw InputError("cannot read " + label + "'" + path.string() + "'");
    }
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace npusim
