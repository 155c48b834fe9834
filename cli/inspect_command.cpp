// npusim inspect ARTIFACT [--json]: what an artifact holds, read from its manifest: the model,
// the compiler and the arch it was built with, its inputs and outputs, the op table and the
// sections with their sizes and checksums.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

#include "arch/artifact.h"
#include "arch/checksum.h"
#include "cli/commands.h"

namespace npusim::cli {
namespace {

std::string bindingText(const TensorBinding& b) {
    return b.name + ": " + std::string(dtypeName(b.dtype)) + shapeString(b.shape) + " at dram +" +
           std::to_string(b.dramOffset);
}

void printManifest(const Artifact& artifact) {
    const ArtifactManifest& m = artifact.manifest;
    std::printf("artifact format %u, compiler %s\n", m.formatVersion, m.compilerVersion.c_str());
    std::printf("model     %s (sha256 %s)\n", m.modelName.c_str(), m.modelHash.c_str());
    std::printf("arch      %s (config %s)\n", m.archName.c_str(), m.archHash.c_str());
    std::printf("compiled  at %s, schedules chosen for %s\n", m.precision.c_str(), m.objective.c_str());
    std::printf("dram      %llu bytes window, %llu bytes of resident weights at +%llu\n",
                static_cast<unsigned long long>(m.dramBytes), static_cast<unsigned long long>(m.residentWeightBytes),
                static_cast<unsigned long long>(m.weightsOffset));
    for (const TensorBinding& b : m.inputs) std::printf("input     %s\n", bindingText(b).c_str());
    for (const TensorBinding& b : m.outputs) std::printf("output    %s\n", bindingText(b).c_str());
    std::printf("\n%-6s %-28s %-18s %-6s %14s %14s %10s  %s\n", "op_id", "name", "type", "dtype", "MACs",
                "min DRAM B", "SRAM B", "notes");
    for (const OpRecord& op : m.ops) {
        std::string notes = op.note;
        for (const SpillRecord& spill : op.spills) {
            notes += (notes.empty() ? "" : "; ") + std::string("spills ") + spill.tensor + " (" +
                     std::to_string(spill.bytes) + " B)";
        }
        std::printf("%-6u %-28s %-18s %-6s %14llu %14llu %10llu  %s\n", op.opId, op.name.c_str(), op.type.c_str(),
                    std::string(dtypeName(op.dtype)).c_str(), static_cast<unsigned long long>(op.macs),
                    static_cast<unsigned long long>(op.minDramBytes), static_cast<unsigned long long>(op.sramBytes),
                    notes.c_str());
    }
    std::printf("\nsegments (run in this order)\n");
    for (size_t i = 0; i < m.segments.size(); ++i) {
        const SegmentRecord& s = m.segments[i];
        if (!s.uploads.empty()) {
            uint64_t bytes = 0;
            for (const WeightUpload& upload : s.uploads) bytes += upload.bytes;
            std::printf("%-3zu      after uploading %zu streamed weights, %llu bytes\n", i, s.uploads.size(),
                        static_cast<unsigned long long>(bytes));
        }
        if (!s.cpu) {
            std::printf("%-3zu npu  job running section '%s'\n", i, s.section.c_str());
            continue;
        }
        const auto op = std::find_if(m.ops.begin(), m.ops.end(), [&](const OpRecord& r) { return r.opId == s.opId; });
        std::printf("%-3zu cpu  %s (op %u) as JIT kernel @%s, %llu operations\n", i,
                    op == m.ops.end() ? "?" : op->name.c_str(), s.opId, s.kernel.c_str(),
                    static_cast<unsigned long long>(s.operations));
        for (const TensorBinding& b : s.inputs) std::printf("       copies in   %s\n", bindingText(b).c_str());
        for (const TensorBinding& b : s.outputs) std::printf("       copies out  %s\n", bindingText(b).c_str());
    }
    std::printf("\n%-12s %12s  %s\n", "section", "bytes", "crc32");
    for (const auto& [name, bytes] : artifact.sections) {
        std::printf("%-12s %12zu  %s\n", name.c_str(), bytes.size(), hexDigest(crc32(bytes)).c_str());
    }
}

}  // namespace

void addInspectCommand(CLI::App& app) {
    CLI::App* inspect = app.add_subcommand("inspect", "print what an artifact holds (its manifest and sections)");
    auto path = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    inspect->add_option("artifact", *path, "artifact file (.npuart)")->required();
    inspect->add_flag("--json", *json, "print the manifest and sections as JSON, for tools");
    inspect->callback([path, json] {
        const Artifact artifact = readArtifact(*path);
        if (*json) {
            std::cout << artifactSummaryJson(artifact);
        } else {
            printManifest(artifact);
        }
    });
}

}  // namespace npusim::cli
