// Artifact container: round trip, and every kind of corruption is caught with a message.
#include <filesystem>

#include <gtest/gtest.h>

#include "arch/artifact.h"
#include "arch/checksum.h"
#include "arch/error.h"
#include "tests/support/artifact_support.h"

namespace npusim {
namespace {

Artifact sampleArtifact() {
    Artifact artifact;
    ArtifactManifest& m = artifact.manifest;
    m.compilerVersion = "test";
    m.modelName = "matmul";
    m.modelHash = "0123456789abcdef";
    m.archName = "edge";
    m.archHash = "fedcba9876543210";
    m.archConfig = "{}";
    m.inputs = {testing::binding("a", DType::Fp32, {4, 8}, 0x100)};
    m.outputs = {testing::binding("y", DType::Int32, {4, 2}, 0x400)};
    m.dramBytes = 0x1000;
    m.weightsOffset = 0x200;
    m.ops = {{0, "matmul_0", "MatMul", DType::Fp32, 64, 256, {40, 3, 2, 1}, 52.5, "compute", 1250.5, {{"t", 32, 96}}, 4096, "note"}};
    artifact.sections[kCommandsSection] = std::vector<std::byte>(64 * 3, std::byte{7});
    m.residentWeightBytes = 16;
    artifact.manifest.segments = {testing::npuSegment(kCommandsSection, {{16, 0x300, 17, 0}})};
    artifact.sections[kWeightsSection] = std::vector<std::byte>(33, std::byte{9});
    return artifact;
}

std::string errorOf(std::span<const std::byte> bytes) {
    try {
        parseArtifact(bytes, "x.npuart");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}


TEST(Checksum, Sha256MatchesTheStandardVectors) {
    auto sha = [](std::string_view text) { return sha256Hex(std::as_bytes(std::span(text.data(), text.size()))); };
    EXPECT_EQ(sha(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    // 56 bytes: the length no longer fits the first padding block.
    EXPECT_EQ(sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(sha(std::string(1000, 'a')), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

TEST(Checksum, Crc32MatchesTheStandardCheckValue) {
    const std::string_view text = "123456789";
    EXPECT_EQ(hexDigest(crc32(std::as_bytes(std::span(text.data(), text.size())))), "cbf43926");
    EXPECT_EQ(crc32({}), 0u);
}

TEST(Artifact, RoundTrips) {
    const Artifact artifact = sampleArtifact();
    const std::vector<std::byte> bytes = serializeArtifact(artifact);
    const Artifact back = parseArtifact(bytes, "x");
    EXPECT_EQ(back.manifest, artifact.manifest);
    EXPECT_EQ(back.sections, artifact.sections);
}

TEST(Artifact, DetectsCorruptionAndTruncation) {
    const std::vector<std::byte> good = serializeArtifact(sampleArtifact());
    std::vector<std::byte> bad = good;
    bad.back() ^= std::byte{1};  // inside the last section
    EXPECT_NE(errorOf(bad).find("checksum mismatch"), std::string::npos);

    bad = good;
    bad[30] ^= std::byte{1};  // inside the manifest
    EXPECT_NE(errorOf(bad).find("manifest checksum mismatch"), std::string::npos);

    bad.assign(good.begin(), good.begin() + static_cast<long>(good.size() - 40));
    EXPECT_NE(errorOf(bad).find("truncated"), std::string::npos);

    bad = good;
    bad[0] = std::byte{'X'};
    EXPECT_NE(errorOf(bad).find("not an npusim artifact"), std::string::npos);

    bad = good;
    bad[8] = std::byte{99};
    EXPECT_NE(errorOf(bad).find("format version 99"), std::string::npos);

    EXPECT_NE(errorOf({}).find("not an npusim artifact"), std::string::npos);
}

/// The artifact written to a file of its own (removed with the test's scope).
struct ArtifactFile {
    explicit ArtifactFile(const Artifact& artifact)
        : path(std::filesystem::temp_directory_path() /
               ("artifact_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".npuart")) {
        writeArtifact(path, artifact);
    }
    ~ArtifactFile() { std::filesystem::remove(path); }
    std::filesystem::path path;
};

TEST(Artifact, ReadsAFileWholeOrForATimingOnlyRun) {
    const Artifact artifact = sampleArtifact();
    const ArtifactFile file(artifact);
    const Artifact whole = readArtifact(file.path);
    EXPECT_EQ(whole.sections, artifact.sections);
    EXPECT_TRUE(whole.unreadSections.empty());
    // A timing-only run never reads the weights' bytes: they stay in the file, known by size.
    const Artifact timing = readArtifact(file.path, ArtifactRead::TimingOnly);
    EXPECT_EQ(timing.manifest, artifact.manifest);
    EXPECT_FALSE(timing.sections.contains(kWeightsSection));
    EXPECT_EQ(timing.sections.at(kCommandsSection), artifact.sections.at(kCommandsSection));
    EXPECT_EQ(timing.sectionBytes(kWeightsSection), 33u);
    EXPECT_EQ(timing.sectionBytes("absent"), 0u);
    EXPECT_THROW(serializeArtifact(timing), InputError);  // it cannot be written back
}

TEST(Artifact, KeepsTheWeightsAHostKernelReads) {
    Artifact artifact = sampleArtifact();
    SegmentRecord host;
    host.cpu = true;
    TensorBinding weight = testing::binding("w", DType::Fp32, {2}, 0x500);
    weight.imageOffset = 16;
    host.inputs = {weight};
    artifact.manifest.segments.push_back(host);
    const ArtifactFile file(artifact);
    const Artifact timing = readArtifact(file.path, ArtifactRead::TimingOnly);
    EXPECT_EQ(timing.sections.at(kWeightsSection), artifact.sections.at(kWeightsSection));
    EXPECT_TRUE(timing.unreadSections.empty());
}

}  // namespace
}  // namespace npusim
