// The arch/presets/*.json files, compiled into the library (generated presets_embedded.cpp).
#pragma once

#include <span>
#include <string_view>

namespace npusim {

struct EmbeddedPreset {
    std::string_view name;
    std::string_view json;
};

std::span<const EmbeddedPreset> embeddedPresets();

}  // namespace npusim
