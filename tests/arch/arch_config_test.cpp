// Architecture config: presets validate, both layers round-trip, errors name the field.
#include <gtest/gtest.h>

#include "arch/arch_config.h"
#include "arch/error.h"

namespace npusim {
namespace {

std::string errorOf(const std::function<void()>& action) {
    try {
        action();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(ArchConfig, PresetsExistAndValidate) {
    const auto names = archPresetNames();
    for (const char* expected : {"edge", "mobile", "server"}) {
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
    }
    for (const std::string& name : names) {
        const ArchConfig config = loadArchConfig(name, {});
        EXPECT_EQ(config.name, name);
        EXPECT_GT(config.tensor.rows, 0u);
    }
}

TEST(ArchConfig, EdgeDerivedValues) {
    const ArchConfig edge = loadArchConfig("edge", {});
    EXPECT_EQ(edge.clockPeriodPs, 1250u);              // 800 MHz
    EXPECT_DOUBLE_EQ(edge.dram.bytesPerCycle, 16.0);   // 12.8 GB/s / 0.8 GHz
    EXPECT_EQ(edge.dram.latencyCycles, 56u);           // 70 ns * 0.8 GHz
    EXPECT_EQ(edge.dram.tRcdCycles, 12u);              // 15 ns * 0.8 GHz
    EXPECT_EQ(edge.sram.sizeBytes, 1024u * 1024);
    EXPECT_EQ(edge.sram.bytesPerCycle(), 256u);        // 16 banks x 16 bytes
    EXPECT_DOUBLE_EQ(edge.tensor.peakMacsPerCycle(DType::Int8), 256.0);
    EXPECT_DOUBLE_EQ(edge.tensor.peakMacsPerCycle(DType::Fp32), 64.0);
}

TEST(ArchConfig, ParseLayerRoundTrips) {
    for (const std::string& name : archPresetNames()) {
        const ArchConfigFile file = parseArchConfigFile(*archPresetText(name), name);
        const ArchConfigFile again = parseArchConfigFile(archConfigFileToJson(file), name);
        EXPECT_EQ(file, again) << name;
    }
}

TEST(ArchConfig, ValidatedLayerRoundTripsThroughShowForm) {
    for (const std::string& name : archPresetNames()) {
        const ArchConfig config = loadArchConfig(name, {});
        const std::string shown = archConfigFileToJson(toArchConfigFile(config));
        const ArchConfig again = validateArchConfig(parseArchConfigFile(shown, name));
        EXPECT_EQ(archConfigFileToJson(toArchConfigFile(again)), shown) << name;
        EXPECT_EQ(archConfigHash(again), archConfigHash(config)) << name;
    }
}

TEST(ArchConfig, EmptyFileGetsDefaults) {
    const ArchConfig config = validateArchConfig(parseArchConfigFile("{ /* nothing */ }", "empty"));
    EXPECT_EQ(config.tensor.rows, 16u);
    EXPECT_TRUE(config.tensor.supports(DType::Int8));
    EXPECT_EQ(config.name, "custom");
}

TEST(ArchConfig, ErrorsNameTheField) {
    EXPECT_NE(errorOf([] { parseArchConfigFile(R"({"sram": {"bankz": 4}})", "f.json"); })
                  .find("field 'sram.bankz': unknown field"),
              std::string::npos);
    EXPECT_NE(errorOf([] { parseArchConfigFile(R"({"tensor": {"rows": "many"}})", "f.json"); })
                  .find("field 'tensor.rows': expected an integer"),
              std::string::npos);
    EXPECT_NE(errorOf([] { parseArchConfigFile(R"({"tensor": {"rows": -4}})", "f.json"); })
                  .find("'tensor.rows': expected a non-negative integer"),
              std::string::npos);
    EXPECT_NE(errorOf([] { validateArchConfig(parseArchConfigFile(R"({"tensor": {"rows": 0}})", "f")); })
                  .find("field 'tensor.rows': must be in [1, 1024], got 0"),
              std::string::npos);
    EXPECT_NE(errorOf([] {
                  validateArchConfig(parseArchConfigFile(R"({"sram": {"bank_width_bytes": 12}})", "f"));
              }).find("'sram.bank_width_bytes': must be a power of two"),
              std::string::npos);
    EXPECT_NE(errorOf([] {
                  validateArchConfig(
                      parseArchConfigFile(R"({"tensor": {"dtypes": {"int32": {}}}})", "f"));
              }).find("'tensor.dtypes.int32'"),
              std::string::npos);
    EXPECT_NE(errorOf([] { parseArchConfigFile("{ \"clock_mhz\": ", "f.json"); }).find("f.json: invalid JSON"),
              std::string::npos);
}

TEST(ArchConfig, OverridesSetFieldsAndAreChecked) {
    const std::vector<std::string> overrides = {"tensor.rows=32", "dram.bandwidth_gbps=25.6",
                                                "tensor.dtypes.fp16.cycles_per_row=3"};
    const ArchConfig config = loadArchConfig("edge", overrides);
    EXPECT_EQ(config.tensor.rows, 32u);
    EXPECT_DOUBLE_EQ(config.dram.bytesPerCycle, 32.0);
    EXPECT_EQ(config.tensor.cyclesPerRow.at(DType::Fp16), 3u);
    EXPECT_NE(archConfigHash(config), archConfigHash(loadArchConfig("edge", {})));

    EXPECT_NE(errorOf([] { loadArchConfig("edge", std::vector<std::string>{"tensor.rowz=3"}); })
                  .find("'tensor.rowz': unknown field"),
              std::string::npos);
    EXPECT_NE(errorOf([] { loadArchConfig("edge", std::vector<std::string>{"tensor.rows=x"}); })
                  .find("'tensor.rows': expected an integer"),
              std::string::npos);
    EXPECT_NE(errorOf([] { loadArchConfig("edge", std::vector<std::string>{"tensor.rows"}); })
                  .find("expected path.to.field=value"),
              std::string::npos);
    EXPECT_NE(errorOf([] { loadArchConfig("edge", std::vector<std::string>{"tensor.rows.x=1"}); })
                  .find("'tensor.rows' is not an object"),
              std::string::npos);
}

TEST(ArchConfig, UnknownPresetListsTheKnownOnes) {
    const std::string message = errorOf([] { loadArchConfig("huge", {}); });
    EXPECT_NE(message.find("unknown arch preset 'huge'"), std::string::npos);
    EXPECT_NE(message.find("edge"), std::string::npos);
    EXPECT_NE(errorOf([] { loadArchConfig("/nonexistent/arch.json", {}); }).find("cannot read"),
              std::string::npos);
}

}  // namespace
}  // namespace npusim
