// Conformance runs: ONNX backend test cases (a directory per case with model.onnx and
// test_data_set_*/input_<i>.pb, output_<i>.pb) compiled for an architecture, simulated on
// the whole stack and compared with ONNX's expected outputs at ONNX's tolerances.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "arch/arch_config.h"

namespace npusim::cli {

enum class CaseStatus { Passed, Failed, Skipped };
std::string_view caseStatusName(CaseStatus status);

struct CaseResult {
    std::string name;
    CaseStatus status = CaseStatus::Failed;
    std::string reason;  ///< why it failed or was skipped; for a passed case, what its comparison left out (or empty)
    uint32_t npuOps = 0, cpuOps = 0;
    uint64_t cycles = 0;  ///< of the last test data set's job
};

/// ONNX's backend test tolerances: |actual - expected| <= atol + rtol * |expected|.
struct Tolerance {
    double rtol = 1e-3, atol = 1e-7;
};

/// The case directories under `suite` (those holding a model.onnx) whose names match
/// `filter` (ECMAScript regex, searched anywhere in the name), sorted by name. InputError for
/// a missing suite or an invalid regex.
std::vector<std::filesystem::path> findCases(const std::filesystem::path& suite, const std::string& filter);

/// Runs one case: skipped when the model uses an op or element type outside npusim's,
/// failed when compiling, simulating or comparing fails. The simulation runs in a child
/// process (one SystemC elaboration each), killed after `timeoutSeconds`.
CaseResult runConformanceCase(const std::filesystem::path& directory, const ArchConfig& config,
                              const Tolerance& tolerance, unsigned timeoutSeconds);

}  // namespace npusim::cli
