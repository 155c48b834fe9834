// The fuzz targets' contract: a parser given any bytes either returns or throws InputError
// (the one-line error a user sees); anything else (another exception, a crash, a sanitizer
// report, a hang) is a bug. Each target defines LLVMFuzzerTestOneInput; it links with
// libFuzzer (scripts/fuzz.sh) or with fuzz_replay.cpp, which runs it over a seed corpus and
// mutations of it in the test suite.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "arch/error.h"

namespace npusim::fuzz {

/// Runs `parse`, accepting InputError: the parser's way to refuse bad input.
template <class Parse>
void expectInputErrorsOnly(Parse parse) {
    try {
        parse();
    } catch (const InputError&) {
    }
}

/// The input as a file (for readers that take a path), removed when this goes.
class InputFile {
public:
    InputFile(const uint8_t* data, size_t size, const std::string& suffix)
        : path_(std::filesystem::temp_directory_path() / ("npusim-fuzz-" + std::to_string(getpid()) + suffix)) {
        std::ofstream(path_, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    ~InputFile() { std::filesystem::remove(path_); }
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace npusim::fuzz
