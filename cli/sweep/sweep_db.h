// The sweep database (SQLite, rollback journal): one row per finished point, written in one
// transaction by the process that ran it, so a sweep killed midway loses no finished point and the file stays
// readable. Rows are keyed by what decides the result (model hash, validated config hash,
// compiler options, timing-only), so a rerun skips what is there, and a baseline database
// from another version of npusim matches point for point.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

struct sqlite3;

namespace npusim::cli {

struct SweepRow {
    std::string key;
    int64_t sweepIndex = 0;
    std::string model, modelPath, modelSha256, preset;
    std::string params, config, compiler;  ///< JSON texts: axis values, the full config, compiler options
    std::string npusimVersion;
    std::string status = "ok";  ///< ok, or failed (error says why)
    std::string error;
    uint64_t totalCycles = 0;
    double timeSeconds = 0;
    std::string utilization;  ///< JSON: unit -> busy fraction
    double tensorUtilization = 0;
    uint64_t dramBytes = 0, spills = 0, reformats = 0;
    std::string findings;  ///< JSON: kind -> count
    uint64_t findingsTotal = 0;
    uint64_t peCount = 0, sramBytes = 0;  ///< the design's size
    /// The run's energy (dynamic and leakage, pJ), its average and peak power, and the chip's
    /// area (the arch config's area table; 0 in a database written before them).
    double energyPj = 0, averageWatts = 0, peakWatts = 0, areaMm2 = 0;
    double wallSeconds = 0;  ///< host time to compile the point (from the imported model) and simulate it
};

class SweepDatabase {
public:
    /// Opens (creating when missing) the database; RunError naming the file when it cannot.
    /// Read only: the file must exist and hold a sweep (InputError otherwise).
    explicit SweepDatabase(const std::filesystem::path& file, bool readOnly = false);
    ~SweepDatabase();
    SweepDatabase(const SweepDatabase&) = delete;
    SweepDatabase& operator=(const SweepDatabase&) = delete;

    std::set<std::string> finishedKeys() const;
    bool has(const std::string& key) const;
    /// Inserts a finished point (replacing a row with its key) in one transaction.
    void insert(const SweepRow& row);
    std::vector<SweepRow> rows() const;
    std::optional<SweepRow> row(const std::string& key) const;

private:
    void execute(const std::string& sql) const;
    /// Columns of kLaterColumns the database's table lacks.
    std::set<std::string> missingColumns() const;
    std::vector<SweepRow> select(const std::string& where, const std::string& key) const;
    std::filesystem::path file_;
    sqlite3* db_ = nullptr;
    std::set<std::string> missingColumns_;  ///< opened to read: read as 0
};

}  // namespace npusim::cli
