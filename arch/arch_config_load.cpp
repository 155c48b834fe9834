// Loading an architecture config: built-in presets or files, plus --set overrides.
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "arch/arch_config.h"
#include "arch/error.h"
#include "arch/presets_embedded.h"
#include "arch/read_file.h"

namespace npusim {
namespace {

using Json = nlohmann::ordered_json;

/// Sets one dotted path in a JSON document; the value is JSON if it parses, else a string.
void applyOverride(Json& document, const std::string& assignment) {
    const size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0) {
        throw InputError("--set '" + assignment + "': expected path.to.field=value");
    }
    const std::string path = assignment.substr(0, eq);
    const std::string text = assignment.substr(eq + 1);
    Json value = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) value = text;

    Json* node = &document;
    std::string walked;
    size_t start = 0;
    while (true) {
        const size_t dot = path.find('.', start);
        const std::string key = path.substr(start, dot == std::string::npos ? dot : dot - start);
        if (key.empty()) throw InputError("--set '" + assignment + "': empty path segment");
        if (!node->is_object()) {
            throw InputError("--set '" + assignment + "': '" + walked + "' is not an object");
        }
        walked += (walked.empty() ? "" : ".") + key;
        if (dot == std::string::npos) {
            (*node)[key] = value;
            return;
        }
        if (!node->contains(key)) (*node)[key] = Json::object();
        node = &(*node)[key];
        start = dot + 1;
    }
}

std::string bytesText(uint64_t bytes) {
    if (bytes % (uint64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
    if (bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
    return std::to_string(bytes) + " bytes";
}

/// A config changed by --set is not its preset any more: its name says how it differs
/// ("edge+tensor.rows=32") and its description is made from the fields it now has, unless the
/// overrides set them.
void relabel(ArchConfig& config, std::span<const std::string> overrides) {
    std::string changes, list;
    bool named = false, described = false;
    for (const std::string& assignment : overrides) {
        named = named || assignment.starts_with("name=");
        described = described || assignment.starts_with("description=");
        changes += "+" + assignment;
        list += (list.empty() ? "" : ", ") + assignment;
    }
    const std::string base = config.name;
    if (!named) config.name = base + changes;
    if (!described) {
        char bandwidth[32];
        std::snprintf(bandwidth, sizeof bandwidth, "%g", config.dram.bandwidthGbps);
        config.description = base + " with " + list + ": " + std::to_string(config.tensor.rows) + "x" +
                             std::to_string(config.tensor.cols) + " systolic array, " + bytesText(config.sram.sizeBytes) +
                             " SRAM, " + bandwidth + " GB/s DRAM";
    }
}

bool looksLikePath(std::string_view text) {
    return text.find('/') != std::string_view::npos || text.ends_with(".json") ||
           std::filesystem::exists(std::filesystem::path(text));
}

}  // namespace

std::vector<std::string> archPresetNames() {
    std::vector<std::string> names;
    for (const EmbeddedPreset& preset : embeddedPresets()) names.emplace_back(preset.name);
    return names;
}

std::optional<std::string_view> archPresetText(std::string_view name) {
    for (const EmbeddedPreset& preset : embeddedPresets()) {
        if (preset.name == name) return preset.json;
    }
    return std::nullopt;
}

ArchConfig loadArchConfig(std::string_view presetOrPath, std::span<const std::string> overrides) {
    std::string text;
    std::string origin;
    if (const auto preset = archPresetText(presetOrPath)) {
        text = std::string(*preset);
        origin = "preset '" + std::string(presetOrPath) + "'";
    } else if (looksLikePath(presetOrPath)) {
        text = readWholeFile(std::filesystem::path(presetOrPath), "arch config file");
        origin = std::string(presetOrPath);
    } else {
        std::string known;
        for (const std::string& name : archPresetNames()) known += (known.empty() ? "" : ", ") + name;
        throw InputError("unknown arch preset '" + std::string(presetOrPath) + "' (presets: " +
                         known + "; or give a JSON file path)");
    }
    if (overrides.empty()) return validateArchConfig(parseArchConfigFile(text, origin));

    // Overrides act on the parsed document, so the parse layer checks their paths and types.
    parseArchConfigFile(text, origin);
    Json document = Json::parse(text, nullptr, true, /*ignore_comments=*/true);
    for (const std::string& assignment : overrides) applyOverride(document, assignment);
    ArchConfig config = validateArchConfig(parseArchConfigFile(document.dump(), origin + " with --set"));
    relabel(config, overrides);
    return config;
}

}  // namespace npusim
