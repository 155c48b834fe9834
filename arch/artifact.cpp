// Artifact container: serialisation, parsing and checksum verification.
#include "arch/artifact.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "arch/atomic_file.h"
#include "arch/checksum.h"
#include "arch/huge_pages.h"
#include "arch/error.h"
#include "arch/int_math.h"
#include "arch/read_file.h"

namespace npusim {
namespace {

using Json = nlohmann::ordered_json;

constexpr char kMagic[8] = {'N', 'P', 'U', 'A', 'R', 'T', '\r', '\n'};
constexpr size_t kHeaderBytes = 24;  // magic, u32 version, u32 manifest crc, u64 manifest size
constexpr size_t kSectionAlignment = 64;

size_t alignSection(size_t value) { return alignUp(value, kSectionAlignment); }

template <class T>
void putLittleEndian(std::vector<std::byte>& out, size_t offset, T value) {
    for (size_t i = 0; i < sizeof(T); ++i) {
        out[offset + i] = static_cast<std::byte>((static_cast<uint64_t>(value) >> (8 * i)) & 0xffu);
    }
}

template <class T>
T getLittleEndian(std::span<const std::byte> in, size_t offset) {
    uint64_t value = 0;
    for (size_t i = 0; i < sizeof(T); ++i) value |= static_cast<uint64_t>(in[offset + i]) << (8 * i);
    return static_cast<T>(value);
}

Json bindingToJson(const TensorBinding& b) {
    return {{"name", b.name},        {"dtype", dtypeName(b.dtype)}, {"shape", b.shape}, {"dram_offset", b.dramOffset},
            {"symbols", b.symbols}, {"image_offset", b.imageOffset}};
}

Json opToJson(const OpRecord& op) {
    Json spills = Json::array();
    for (const SpillRecord& spill : op.spills) {
        spills.push_back({{"tensor", spill.tensor}, {"bytes", spill.bytes}, {"sram_to_keep", spill.sramToKeep}});
    }
    return {{"op_id", op.opId}, {"name", op.name},  {"type", op.type},
            {"dtype", dtypeName(op.dtype)}, {"macs", op.macs}, {"min_dram_bytes", op.minDramBytes},
            {"unit_bounds", {{"array", op.bounds.array}, {"vector", op.bounds.vector}, {"load", op.bounds.load},
                             {"store", op.bounds.store}}},
            {"estimate", {{"cycles", op.estimatedCycles}, {"largest", op.estimateLargest}, {"energy_pj", op.estimatedEnergyPj}}},
            {"spills", spills}, {"sram_bytes", op.sramBytes}, {"note", op.note},
            {"commands", op.commands}, {"command_bytes", op.commandBytes}};
}

DType dtypeFromJson(const Json& j) {
    const auto dtype = parseDType(j.get<std::string>());
    if (!dtype) throw std::invalid_argument("unknown dtype '" + j.get<std::string>() + "'");
    return *dtype;
}

TensorBinding bindingFromJson(const Json& j) {
    return {j.at("name").get<std::string>(), dtypeFromJson(j.at("dtype")), j.at("shape").get<Shape>(),
            j.at("dram_offset").get<uint64_t>(), j.at("symbols").get<std::vector<std::string>>(),
            j.at("image_offset").get<int64_t>()};
}

OpRecord opFromJson(const Json& j) {
    OpRecord op{j.at("op_id").get<uint32_t>(), j.at("name").get<std::string>(),
                j.at("type").get<std::string>(), dtypeFromJson(j.at("dtype")),
                j.at("macs").get<uint64_t>(), j.at("min_dram_bytes").get<uint64_t>(), {}, 0, "", 0, {},
                j.at("sram_bytes").get<uint64_t>(), j.at("note").get<std::string>(),
                j.at("commands").get<uint64_t>(), j.at("command_bytes").get<uint64_t>()};
    const Json& bounds = j.at("unit_bounds");
    op.bounds = {bounds.at("array").get<uint64_t>(), bounds.at("vector").get<uint64_t>(),
                 bounds.at("load").get<uint64_t>(), bounds.at("store").get<uint64_t>()};
    op.estimatedCycles = j.at("estimate").at("cycles").get<double>();
    op.estimateLargest = j.at("estimate").at("largest").get<std::string>();
    op.estimatedEnergyPj = j.at("estimate").at("energy_pj").get<double>();
    for (const Json& spill : j.at("spills")) {
        op.spills.push_back({spill.at("tensor").get<std::string>(), spill.at("bytes").get<uint64_t>(),
                             spill.at("sram_to_keep").get<uint64_t>()});
    }
    return op;
}

Json uploadsToJson(const std::vector<WeightUpload>& uploads) {
    Json j = Json::array();
    for (const WeightUpload& u : uploads) {
        j.push_back({{"source", u.source}, {"dram_offset", u.dramOffset}, {"bytes", u.bytes}, {"op_id", u.opId}});
    }
    return j;
}

Json segmentToJson(const SegmentRecord& s) {
    if (!s.cpu) return {{"device", "npu"}, {"section", s.section}, {"uploads", uploadsToJson(s.uploads)}};
    Json j = {{"device", "cpu"},     {"kernel", s.kernel},         {"op_id", s.opId},
              {"operations", s.operations}, {"inputs", Json::array()}, {"outputs", Json::array()},
              {"uploads", uploadsToJson(s.uploads)}};
    for (const auto& b : s.inputs) j["inputs"].push_back(bindingToJson(b));
    for (const auto& b : s.outputs) j["outputs"].push_back(bindingToJson(b));
    return j;
}

SegmentRecord segmentFromJson(const Json& j) {
    SegmentRecord s;
    const std::string device = j.at("device").get<std::string>();
    if (device != "npu" && device != "cpu") throw std::invalid_argument("unknown segment device '" + device + "'");
    s.cpu = device == "cpu";
    for (const Json& u : j.at("uploads")) {
        s.uploads.push_back({u.at("source").get<uint64_t>(), u.at("dram_offset").get<uint64_t>(),
                             u.at("bytes").get<uint64_t>(), u.at("op_id").get<uint32_t>()});
    }
    if (!s.cpu) {
        s.section = j.at("section").get<std::string>();
        return s;
    }
    s.kernel = j.at("kernel").get<std::string>();
    s.opId = j.at("op_id").get<uint32_t>();
    s.operations = j.at("operations").get<uint64_t>();
    for (const auto& b : j.at("inputs")) s.inputs.push_back(bindingFromJson(b));
    for (const auto& b : j.at("outputs")) s.outputs.push_back(bindingFromJson(b));
    return s;
}

Json manifestToJson(const ArtifactManifest& m) {
    Json j;
    j["format_version"] = m.formatVersion;
    j["compiler_version"] = m.compilerVersion;
    j["model"] = {{"name", m.modelName}, {"sha256", m.modelHash}};
    j["arch"] = {{"name", m.archName}, {"hash", m.archHash}, {"config", m.archConfig}};
    j["precision"] = {{"default", m.precision}, {"overrides", m.precisionOverrides}, {"calibration", m.calibration}};
    j["objective"] = m.objective;
    j["inputs"] = Json::array();
    for (const auto& b : m.inputs) j["inputs"].push_back(bindingToJson(b));
    j["outputs"] = Json::array();
    for (const auto& b : m.outputs) j["outputs"].push_back(bindingToJson(b));
    j["sizes"] = Json::array();
    for (const auto& b : m.sizes) j["sizes"].push_back(bindingToJson(b));
    j["dram_bytes"] = m.dramBytes;
    j["weights_offset"] = m.weightsOffset;
    j["resident_weight_bytes"] = m.residentWeightBytes;
    j["ops"] = Json::array();
    for (const auto& op : m.ops) j["ops"].push_back(opToJson(op));
    j["segments"] = Json::array();
    for (const auto& s : m.segments) j["segments"].push_back(segmentToJson(s));
    j["buckets"] = Json::array();
    for (const BucketRecord& b : m.buckets) {
        Json bucket = {{"symbol", b.symbol}, {"size", b.size}, {"inputs", Json::array()}, {"outputs", Json::array()},
                       {"dram_bytes", b.dramBytes}, {"weights_offset", b.weightsOffset},
                       {"resident_weight_bytes", b.residentWeightBytes}, {"sizes", Json::array()}, {"ops", Json::array()}};
        for (const auto& binding : b.inputs) bucket["inputs"].push_back(bindingToJson(binding));
        for (const auto& binding : b.outputs) bucket["outputs"].push_back(bindingToJson(binding));
        for (const auto& binding : b.sizes) bucket["sizes"].push_back(bindingToJson(binding));
        for (const auto& op : b.ops) bucket["ops"].push_back(opToJson(op));
        bucket["segments"] = Json::array();
        for (const auto& s : b.segments) bucket["segments"].push_back(segmentToJson(s));
        j["buckets"].push_back(std::move(bucket));
    }
    return j;
}

ArtifactManifest manifestFromJson(const Json& j) {
    ArtifactManifest m;
    m.formatVersion = j.at("format_version").get<uint32_t>();
    m.compilerVersion = j.at("compiler_version").get<std::string>();
    m.modelName = j.at("model").at("name").get<std::string>();
    m.modelHash = j.at("model").at("sha256").get<std::string>();
    m.archName = j.at("arch").at("name").get<std::string>();
    m.archHash = j.at("arch").at("hash").get<std::string>();
    m.archConfig = j.at("arch").at("config").get<std::string>();
    m.precision = j.at("precision").at("default").get<std::string>();
    m.precisionOverrides = j.at("precision").at("overrides").get<std::map<std::string, std::string>>();
    m.calibration = j.at("precision").at("calibration").get<std::string>();
    m.objective = j.at("objective").get<std::string>();
    for (const auto& b : j.at("inputs")) m.inputs.push_back(bindingFromJson(b));
    for (const auto& b : j.at("outputs")) m.outputs.push_back(bindingFromJson(b));
    for (const auto& b : j.at("sizes")) m.sizes.push_back(bindingFromJson(b));
    m.dramBytes = j.at("dram_bytes").get<uint64_t>();
    m.weightsOffset = j.at("weights_offset").get<uint64_t>();
    m.residentWeightBytes = j.at("resident_weight_bytes").get<uint64_t>();
    for (const auto& op : j.at("ops")) m.ops.push_back(opFromJson(op));
    for (const auto& s : j.at("segments")) m.segments.push_back(segmentFromJson(s));
    if (m.segments.empty()) throw std::invalid_argument("the manifest lists no segment");
    for (const Json& b : j.at("buckets")) {
        BucketRecord bucket;
        bucket.symbol = b.at("symbol").get<std::string>();
        bucket.size = b.at("size").get<int64_t>();
        for (const auto& binding : b.at("inputs")) bucket.inputs.push_back(bindingFromJson(binding));
        for (const auto& binding : b.at("outputs")) bucket.outputs.push_back(bindingFromJson(binding));
        for (const auto& binding : b.at("sizes")) bucket.sizes.push_back(bindingFromJson(binding));
        bucket.dramBytes = b.at("dram_bytes").get<uint64_t>();
        bucket.weightsOffset = b.at("weights_offset").get<uint64_t>();
        bucket.residentWeightBytes = b.at("resident_weight_bytes").get<uint64_t>();
        for (const auto& op : b.at("ops")) bucket.ops.push_back(opFromJson(op));
        for (const auto& s : b.at("segments")) bucket.segments.push_back(segmentFromJson(s));
        if (bucket.segments.empty()) throw std::invalid_argument("bucket " + bucketLabel(bucket) + " lists no segment");
        m.buckets.push_back(std::move(bucket));
    }
    return m;
}

}  // namespace

std::vector<std::string> runSections(const Artifact& artifact) {
    std::vector<std::string> names{kWeightsSection};
    for (const SegmentRecord& segment : artifact.manifest.segments) {
        if (!segment.cpu) names.push_back(segment.section);
    }
    if (artifact.sections.contains(kCpuSection)) names.push_back(kCpuSection);
    return names;
}

uint64_t Artifact::sectionBytes(const std::string& name) const {
    if (const auto section = sections.find(name); section != sections.end()) return section->second.size();
    const auto unread = unreadSections.find(name);
    return unread == unreadSections.end() ? 0 : unread->second;
}

std::string bucketLabel(const BucketRecord& bucket) { return bucket.symbol + "=" + std::to_string(bucket.size); }

Artifact bucketArtifact(const Artifact& artifact, size_t index) {
    const BucketRecord& bucket = artifact.manifest.buckets.at(index);
    Artifact view;
    view.manifest = artifact.manifest;
    view.manifest.buckets.clear();
    view.manifest.inputs = bucket.inputs;
    view.manifest.outputs = bucket.outputs;
    view.manifest.dramBytes = bucket.dramBytes;
    view.manifest.weightsOffset = bucket.weightsOffset;
    view.manifest.residentWeightBytes = bucket.residentWeightBytes;
    view.manifest.sizes = bucket.sizes;
    view.manifest.ops = bucket.ops;
    view.manifest.segments = bucket.segments;
    std::string label = bucketLabel(bucket);
    label.insert(label.begin(), '@');
    for (const auto& [name, bytes] : artifact.sections) {
        if (name.ends_with(label)) view.sections[name.substr(0, name.size() - label.size())] = bytes;
    }
    for (const auto& [name, bytes] : artifact.unreadSections) {
        if (name.ends_with(label)) view.unreadSections[name.substr(0, name.size() - label.size())] = bytes;
    }
    return view;
}

std::string artifactSummaryJson(const Artifact& artifact) {
    Json j = manifestToJson(artifact.manifest);
    // The arch config as a JSON object rather than the string the manifest stores.
    if (Json config = Json::parse(artifact.manifest.archConfig, nullptr, false); !config.is_discarded()) {
        j["arch"]["config"] = std::move(config);
    }
    j["sections"] = Json::array();
    for (const auto& [name, bytes] : artifact.sections) {
        j["sections"].push_back({{"name", name}, {"size", bytes.size()}, {"crc32", hexDigest(crc32(bytes))}});
    }
    return j.dump(2) + "\n";
}

std::vector<std::byte> serializeArtifact(const Artifact& artifact) {
    if (!artifact.unreadSections.empty()) {
        throw InputError("cannot write an artifact whose '" + artifact.unreadSections.begin()->first +
                         "' section was left unread (read for a timing-only run)");
    }
    // Section offsets are relative to the end of the manifest (aligned), so the manifest
    // can describe them without knowing its own size.
    Json sections = Json::array();
    size_t payload = 0;  // end of the last section
    for (const auto& [name, bytes] : artifact.sections) {
        const size_t offset = alignSection(payload);
        sections.push_back({{"name", name}, {"offset", offset}, {"size", bytes.size()},
                            {"crc32", hexDigest(crc32(bytes))}});
        payload = offset + bytes.size();
    }
    Json manifest = manifestToJson(artifact.manifest);
    manifest["sections"] = sections;
    const std::string manifestText = manifest.dump(1);

    const size_t payloadStart = alignSection(kHeaderBytes + manifestText.size());
    std::vector<std::byte> out(payloadStart + payload, std::byte{0});
    std::memcpy(out.data(), kMagic, sizeof kMagic);
    putLittleEndian<uint32_t>(out, 8, kArtifactFormatVersion);
    putLittleEndian<uint32_t>(out, 12, crc32(std::as_bytes(std::span(manifestText))));
    putLittleEndian<uint64_t>(out, 16, manifestText.size());
    std::memcpy(out.data() + kHeaderBytes, manifestText.data(), manifestText.size());
    for (size_t i = 0; const auto& [name, bytes] : artifact.sections) {
        const size_t offset = payloadStart + sections[i++]["offset"].get<size_t>();
        if (!bytes.empty()) std::memcpy(out.data() + offset, bytes.data(), bytes.size());
    }
    return out;
}

namespace {

/// Reads `into.size()` bytes at `offset` of the container (the caller checked the range).
using ReadAt = std::function<void(uint64_t offset, std::span<std::byte> into)>;

/// Whether a timing-only reader leaves section `name` in the file: a weights section (of the
/// artifact, or of one of its buckets), unless a CPU segment reads weights from it.
bool unreadWhenTimingOnly(const ArtifactManifest& manifest, const std::string& name) {
    if (name != kWeightsSection && !name.starts_with(std::string(kWeightsSection) + "@")) return false;
    const auto readsImage = [](const std::vector<SegmentRecord>& segments) {
        return std::any_of(segments.begin(), segments.end(), [](const SegmentRecord& segment) {
            return std::any_of(segment.inputs.begin(), segment.inputs.end(),
                               [](const TensorBinding& binding) { return binding.imageOffset >= 0; });
        });
    };
    if (readsImage(manifest.segments)) return false;
    return std::none_of(manifest.buckets.begin(), manifest.buckets.end(),
                        [&](const BucketRecord& bucket) { return readsImage(bucket.segments); });
}

/// Parses a container of `size` bytes read through `readAt`: the header and manifest, then
/// each section straight into its place, checksums verified (a section left unread is only
/// checked to lie inside the container).
Artifact parseContainer(uint64_t size, const ReadAt& readBytes, const std::string& origin, ArtifactRead read) {
    auto readAt = [&](uint64_t offset, std::span<std::byte> into) {
        if (!into.empty()) readBytes(offset, into);
    };
    auto fail = [&](const std::string& what) -> InputError {
        return InputError("artifact '" + origin + "': " + what);
    };
    std::vector<std::byte> header(std::min<uint64_t>(size, kHeaderBytes));
    readAt(0, header);
    if (header.size() < sizeof kMagic || std::memcmp(header.data(), kMagic, sizeof kMagic) != 0) {
        throw fail("not an npusim artifact (bad magic)");
    }
    if (header.size() < kHeaderBytes) throw fail("truncated header");
    const auto version = getLittleEndian<uint32_t>(header, 8);
    if (version != kArtifactFormatVersion) {
        throw fail("format version " + std::to_string(version) + ", this npusim reads version " +
                   std::to_string(kArtifactFormatVersion));
    }
    const auto manifestCrc = getLittleEndian<uint32_t>(header, 12);
    const auto manifestSize = getLittleEndian<uint64_t>(header, 16);
    if (manifestSize > size - kHeaderBytes) throw fail("truncated manifest");
    std::string manifestText(manifestSize, '\0');
    readAt(kHeaderBytes, std::as_writable_bytes(std::span(manifestText)));
    if (crc32(std::as_bytes(std::span(manifestText))) != manifestCrc) throw fail("manifest checksum mismatch");

    Artifact artifact;
    const uint64_t payloadStart = alignSection(kHeaderBytes + manifestSize);
    try {
        const Json manifest = Json::parse(manifestText);
        artifact.manifest = manifestFromJson(manifest);
        for (const Json& section : manifest.at("sections")) {
            const std::string name = section.at("name").get<std::string>();
            const auto offset = section.at("offset").get<uint64_t>();
            const auto bytes = section.at("size").get<uint64_t>();
            if (payloadStart > size || offset > size - payloadStart || bytes > size - payloadStart - offset) {
                throw fail("section '" + name + "' is truncated");
            }
            if (read == ArtifactRead::TimingOnly && unreadWhenTimingOnly(artifact.manifest, name)) {
                artifact.unreadSections[name] = bytes;
                continue;
            }
            std::vector<std::byte>& data = artifact.sections[name];
            data.reserve(bytes);
            adviseHugePages(data.data(), bytes);  // a network's weights: tens of MiB
            data.resize(bytes);
            readAt(payloadStart + offset, data);
            if (hexDigest(crc32(data)) != section.at("crc32").get<std::string>()) {
                throw fail("section '" + name + "' checksum mismatch");
            }
        }
    } catch (const nlohmann::json::exception& e) {
        throw fail(std::string("malformed manifest: ") + e.what());
    } catch (const std::invalid_argument& e) {
        throw fail(std::string("malformed manifest: ") + e.what());
    }
    return artifact;
}

/// A container held in memory.
Artifact parseBytes(std::span<const std::byte> bytes, const std::string& origin, ArtifactRead read) {
    return parseContainer(bytes.size(), [&](uint64_t offset, std::span<std::byte> into) {
        std::memcpy(into.data(), bytes.data() + offset, into.size());
    }, origin, read);
}

}  // namespace

Artifact parseArtifact(std::span<const std::byte> bytes, const std::string& origin) {
    return parseBytes(bytes, origin, ArtifactRead::Whole);
}

uint64_t commandCount(const ArtifactManifest& manifest) {
    uint64_t commands = 0;
    for (const OpRecord& op : manifest.ops) commands += op.commands;
    return commands;
}

void writeArtifact(const std::filesystem::path& path, const Artifact& artifact) {
    writeFileAtomic(path, serializeArtifact(artifact));
}

Artifact readArtifact(const std::filesystem::path& path, ArtifactRead read) {
    // A regular file is read section by section into place (a whole network's weights are
    // tens of MiB: no second copy); anything else (a pipe) whole, then parsed.
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) {
        const std::string bytes = readWholeFile(path, "artifact");
        return parseBytes(std::as_bytes(std::span(bytes)), path.string(), read);
    }
    std::ifstream in(path, std::ios::binary);
    const uint64_t size = std::filesystem::file_size(path, error);
    if (!in || error) throw InputError("cannot read artifact '" + path.string() + "': " + unreadableReason(path));
    return parseContainer(size, [&](uint64_t offset, std::span<std::byte> into) {
        in.seekg(static_cast<std::streamoff>(offset));
        in.read(reinterpret_cast<char*>(into.data()), static_cast<std::streamsize>(into.size()));
        if (static_cast<size_t>(in.gcount()) != into.size()) {
            throw InputError("cannot read artifact '" + path.string() + "': it changed while being read");
        }
    }, path.string(), read);
}

}  // namespace npusim
