// A fuzz target's driver for the test suite (gcc, no libFuzzer): runs the target on every file
// of the seed corpora, then on deterministic mutations of them (bit flips, byte changes,
// truncations, splices). A crash, a sanitizer report or an exception other than InputError
// ends the process with a failure; the input that did it is written to fuzz-crash-input.
//   fuzz_<target> [--mutations N] [--seed S] SEED_FILE_OR_DIR...
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<uint8_t> readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The input being run, for the crash report.
std::vector<uint8_t>* current = nullptr;

void run(std::vector<uint8_t>& input) {
    current = &input;
    LLVMFuzzerTestOneInput(input.data(), input.size());
    current = nullptr;
}

std::vector<uint8_t> mutate(const std::vector<uint8_t>& seed, const std::vector<uint8_t>& other, std::mt19937_64& rng) {
    std::vector<uint8_t> input = seed;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
        const size_t at = input.empty() ? 0 : rng() % input.size();
        switch (rng() % 5) {
            case 0:  // flip a bit
                if (!input.empty()) input[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
                break;
            case 1:  // an interesting byte
                if (!input.empty()) input[at] = std::vector<uint8_t>{0, 1, 0x7f, 0x80, 0xff}[rng() % 5];
                break;
            case 2:  // truncate
                input.resize(at);
                break;
            case 3:  // duplicate a stretch
                if (!input.empty()) {
                    const size_t length = std::min<size_t>(input.size() - at, 1 + rng() % 64);
                    input.insert(input.begin() + static_cast<std::ptrdiff_t>(at), input.begin() + static_cast<std::ptrdiff_t>(at),
                                 input.begin() + static_cast<std::ptrdiff_t>(at + length));
                }
                break;
            default:  // splice another seed's tail
                if (!other.empty()) {
                    input.resize(at);
                    input.insert(input.end(), other.begin() + static_cast<std::ptrdiff_t>(rng() % other.size()), other.end());
                }
        }
    }
    return input;
}

}  // namespace

int main(int argc, char** argv) {
    std::set_terminate([] {
        if (current) std::ofstream("fuzz-crash-input", std::ios::binary).write(reinterpret_cast<const char*>(current->data()), static_cast<std::streamsize>(current->size()));
        std::string what = "not a std::exception";
        try {
            if (std::current_exception()) std::rethrow_exception(std::current_exception());
        } catch (const std::exception& e) {
            what = e.what();
        } catch (...) {
        }
        std::fprintf(stderr, "fuzz: the target ended with an uncaught exception (%s); input in fuzz-crash-input\n",
                     what.c_str());
        std::abort();
    });
    long mutations = 2000;
    uint64_t seedValue = 1;
    std::vector<std::vector<uint8_t>> seeds;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--mutations" && i + 1 < argc) {
            mutations = std::atol(argv[++i]);
        } else if (arg == "--seed" && i + 1 < argc) {
            seedValue = std::strtoull(argv[++i], nullptr, 10);
        } else if (std::filesystem::is_directory(arg)) {
            for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
                if (entry.is_regular_file()) seeds.push_back(readFile(entry.path()));
            }
        } else if (std::filesystem::is_regular_file(arg)) {
            seeds.push_back(readFile(arg));
        } else {
            std::fprintf(stderr, "fuzz: no seed file or directory '%s'\n", arg.c_str());
            return 2;
        }
    }
    if (seeds.empty()) {
        std::fprintf(stderr, "usage: %s [--mutations N] [--seed S] SEED_FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    for (std::vector<uint8_t>& seed : seeds) run(seed);
    std::mt19937_64 rng(seedValue);
    for (long m = 0; m < mutations; ++m) {
        std::vector<uint8_t> input = mutate(seeds[rng() % seeds.size()], seeds[rng() % seeds.size()], rng);
        run(input);
    }
    std::printf("fuzz: %zu seeds and %ld mutations ran cleanly\n", seeds.size(), mutations);
    return 0;
}
