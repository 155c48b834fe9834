#include "cli/sweep/sweep_db.h"

#include <sqlite3.h>

#include "arch/error.h"

namespace npusim::cli {
namespace {

constexpr const char* kColumns =
    "key, sweep_index, model, model_path, model_sha256, preset, params, config, compiler, npusim_version, status, "
    "error, total_cycles, time_seconds, utilization, tensor_utilization, dram_bytes, spills, reformats, findings, "
    "findings_total, pe_count, sram_bytes, wall_seconds, energy_pj, average_w, peak_w, area_mm2";

/// Columns added after the first databases were written: a database without them gains them
/// (0 for its points) when opened to write, and reads them as 0 when opened to read.
constexpr const char* kLaterColumns[] = {"energy_pj", "average_w", "peak_w", "area_mm2"};

constexpr const char* kSchema = R"(
CREATE TABLE IF NOT EXISTS points (
    key TEXT PRIMARY KEY,          -- sha256 of model hash, config hash, compiler options, timing-only
    sweep_index INTEGER NOT NULL,  -- position in the sweep that ran it
    model TEXT NOT NULL, model_path TEXT NOT NULL, model_sha256 TEXT NOT NULL,
    preset TEXT NOT NULL,
    params TEXT NOT NULL,          -- JSON: the point's axis values
    config TEXT NOT NULL,          -- JSON: the full validated arch config (npusim arch show)
    compiler TEXT NOT NULL,        -- JSON: compiler options
    npusim_version TEXT NOT NULL,
    status TEXT NOT NULL,          -- ok | failed
    error TEXT NOT NULL,
    total_cycles INTEGER NOT NULL, time_seconds REAL NOT NULL,
    utilization TEXT NOT NULL,     -- JSON: unit -> busy fraction
    tensor_utilization REAL NOT NULL,
    dram_bytes INTEGER NOT NULL, spills INTEGER NOT NULL, reformats INTEGER NOT NULL,
    findings TEXT NOT NULL,        -- JSON: finding kind -> count
    findings_total INTEGER NOT NULL,
    pe_count INTEGER NOT NULL, sram_bytes INTEGER NOT NULL,
    wall_seconds REAL NOT NULL,
    energy_pj REAL NOT NULL DEFAULT 0, average_w REAL NOT NULL DEFAULT 0,
    peak_w REAL NOT NULL DEFAULT 0, area_mm2 REAL NOT NULL DEFAULT 0,
    finished_at TEXT NOT NULL DEFAULT (datetime('now'))
);
)";

std::string text(sqlite3_stmt* statement, int column) {
    const unsigned char* value = sqlite3_column_text(statement, column);
    return value ? reinterpret_cast<const char*>(value) : "";
}

}  // namespace

SweepDatabase::SweepDatabase(const std::filesystem::path& file, bool readOnly) : file_(file) {
    if (readOnly) {
        if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK ||
            sqlite3_exec(db_, "SELECT key, total_cycles, status FROM points LIMIT 1", nullptr, nullptr, nullptr) != SQLITE_OK) {
            const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            db_ = nullptr;
            throw InputError("'" + file.string() + "' is not a sweep database: " + message);
        }
        missingColumns_ = missingColumns();
        return;
    }
    if (sqlite3_open(file.c_str(), &db_) != SQLITE_OK) {
        const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw RunError("cannot open sweep database '" + file.string() + "': " + message);
    }
    // Several workers write at once: wait for each other's transactions rather than fail.
    sqlite3_busy_timeout(db_, 60'000);
    // The default rollback journal, not WAL: WAL needs shared memory between the writers,
    // which Slurm workers on several nodes of a shared file system do not have.
    try {
        execute(kSchema);
        // Workers may open an older database at once: one adds the columns, the others wait
        // for its transaction and find them there.
        if (!missingColumns().empty()) {
            execute("BEGIN IMMEDIATE");
            for (const std::string& column : missingColumns()) {
                execute("ALTER TABLE points ADD COLUMN " + column + " REAL NOT NULL DEFAULT 0");
            }
            execute("COMMIT");
        }
    } catch (...) {
        sqlite3_close(db_);
        throw;
    }
}

SweepDatabase::~SweepDatabase() { sqlite3_close(db_); }

std::set<std::string> SweepDatabase::missingColumns() const {
    std::set<std::string> missing(std::begin(kLaterColumns), std::end(kLaterColumns));
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, "PRAGMA table_info(points)", -1, &statement, nullptr) != SQLITE_OK) {
        throw RunError("sweep database '" + file_.string() + "': " + sqlite3_errmsg(db_));
    }
    while (sqlite3_step(statement) == SQLITE_ROW) missing.erase(text(statement, 1));
    sqlite3_finalize(statement);
    return missing;
}

void SweepDatabase::execute(const std::string& sql) const {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
        const std::string message = error ? error : "unknown error";
        sqlite3_free(error);
        throw RunError("sweep database '" + file_.string() + "': " + message);
    }
}

std::set<std::string> SweepDatabase::finishedKeys() const {
    std::set<std::string> keys;
    for (const SweepRow& row : select("", "")) keys.insert(row.key);
    return keys;
}

bool SweepDatabase::has(const std::string& key) const { return row(key).has_value(); }

std::optional<SweepRow> SweepDatabase::row(const std::string& key) const {
    std::vector<SweepRow> found = select(" WHERE key = ?1", key);
    if (found.empty()) return std::nullopt;
    return std::move(found.front());
}

std::vector<SweepRow> SweepDatabase::rows() const { return select("", ""); }

std::vector<SweepRow> SweepDatabase::select(const std::string& where, const std::string& key) const {
    std::string columns = kColumns;
    for (const std::string& column : missingColumns_) {
        columns.replace(columns.find(column), column.size(), "0 AS " + column);
    }
    const std::string sql = "SELECT " + columns + " FROM points" + where + " ORDER BY sweep_index, key";
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
        throw RunError("sweep database '" + file_.string() + "': " + sqlite3_errmsg(db_));
    }
    if (!where.empty()) sqlite3_bind_text(statement, 1, key.c_str(), -1, SQLITE_TRANSIENT);
    std::vector<SweepRow> rows;
    int status = SQLITE_ROW;
    while ((status = sqlite3_step(statement)) == SQLITE_ROW) {
        SweepRow r;
        int c = 0;
        r.key = text(statement, c++);
        r.sweepIndex = sqlite3_column_int64(statement, c++);
        r.model = text(statement, c++);
        r.modelPath = text(statement, c++);
        r.modelSha256 = text(statement, c++);
        r.preset = text(statement, c++);
        r.params = text(statement, c++);
        r.config = text(statement, c++);
        r.compiler = text(statement, c++);
        r.npusimVersion = text(statement, c++);
        r.status = text(statement, c++);
        r.error = text(statement, c++);
        r.totalCycles = static_cast<uint64_t>(sqlite3_column_int64(statement, c++));
        r.timeSeconds = sqlite3_column_double(statement, c++);
        r.utilization = text(statement, c++);
        r.tensorUtilization = sqlite3_column_double(statement, c++);
        r.dramBytes = static_cast<uint64_t>(sqlite3_column_int64(statement, c++));
        r.spills = static_cast<uint64_t>(sqlite3_column_int64(statement, c++));
        r.reformats = static_cast<uint64_t>(sqlite3_column_int64(statement, c++));
        r.findings = text(statement, c++);
        r.findingsTotal = static_cast<uint64_t>(sqlite3_column_int64(statement, c++));
        r.peCount = static_cast<uint64_t>(sqlite3_column_int64(statement, c++));
        r.sramBytes = static_cast<uint64_t>(sqlite3_column_int64(statement, c++));
        r.wallSeconds = sqlite3_column_double(statement, c++);
        r.energyPj = sqlite3_column_double(statement, c++);
        r.averageWatts = sqlite3_column_double(statement, c++);
        r.peakWatts = sqlite3_column_double(statement, c++);
        r.areaMm2 = sqlite3_column_double(statement, c++);
        rows.push_back(std::move(r));
    }
    sqlite3_finalize(statement);
    if (status != SQLITE_DONE) throw RunError("sweep database '" + file_.string() + "': " + sqlite3_errmsg(db_));
    return rows;
}

void SweepDatabase::insert(const SweepRow& r) {
    const std::string sql = std::string("INSERT OR REPLACE INTO points (") + kColumns +
                            ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
                            "?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28)";
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
        throw RunError("sweep database '" + file_.string() + "': " + sqlite3_errmsg(db_));
    }
    int c = 1;
    auto bindText = [&](const std::string& value) { sqlite3_bind_text(statement, c++, value.c_str(), -1, SQLITE_TRANSIENT); };
    auto bindInt = [&](uint64_t value) { sqlite3_bind_int64(statement, c++, static_cast<sqlite3_int64>(value)); };
    auto bindReal = [&](double value) { sqlite3_bind_double(statement, c++, value); };
    bindText(r.key);
    bindInt(static_cast<uint64_t>(r.sweepIndex));
    for (const std::string* value : {&r.model, &r.modelPath, &r.modelSha256, &r.preset, &r.params, &r.config,
                                     &r.compiler, &r.npusimVersion, &r.status, &r.error}) {
        bindText(*value);
    }
    bindInt(r.totalCycles);
    bindReal(r.timeSeconds);
    bindText(r.utilization);
    bindReal(r.tensorUtilization);
    bindInt(r.dramBytes);
    bindInt(r.spills);
    bindInt(r.reformats);
    bindText(r.findings);
    bindInt(r.findingsTotal);
    bindInt(r.peCount);
    bindInt(r.sramBytes);
    bindReal(r.wallSeconds);
    for (double value : {r.energyPj, r.averageWatts, r.peakWatts, r.areaMm2}) bindReal(value);
    const int status = sqlite3_step(statement);  // one statement: its own transaction
    sqlite3_finalize(statement);
    if (status != SQLITE_DONE) throw RunError("sweep database '" + file_.string() + "': " + sqlite3_errmsg(db_));
}

}  // namespace npusim::cli
