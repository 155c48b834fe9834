// report.md: what a person reads first: summary, top findings, units, stall breakdown, ops.
#include <sstream>

#include "reports/report.h"
#include "reports/report_tables.h"

namespace npusim::reports {
namespace {

std::string cell(const std::string& text) {
    std::string out;
    for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
}

void writeTable(std::ostringstream& out, const std::string& title, const Table& table) {
    if (table.rows.empty()) return;
    out << "\n## " << title << "\n\n|";
    for (const std::string& header : table.headers) out << " " << cell(header) << " |";
    out << "\n|";
    for (bool numeric : table.numeric) out << (numeric ? "---:|" : "---|");
    out << "\n";
    for (const auto& row : table.rows) {
        out << "|";
        for (const std::string& value : row) out << " " << cell(value) << " |";
        out << "\n";
    }
    if (!table.note.empty()) out << "\n" << table.note << "\n";
}

}  // namespace

std::string reportToMarkdown(const Report& r) {
    std::ostringstream out;
    out << "# npusim report: " << r.model << " on " << r.arch << "\n\n";
    for (const std::string& line : summaryLines(r)) out << "- " << line << "\n";
    if (r.generation) {
        out << "\n## Generation\n\n";
        for (const std::string& line : generationLines(r)) out << "- " << line << "\n";
        writeTable(out, "Requests", generationRequestsTable(r));
        writeTable(out, "Steps", generationStepsTable(r));
    }
    writeTable(out, "Top findings", findingsTable(r, kTopFindings));
    writeTable(out, "Units", unitsTable(r));
    writeTable(out, "Energy", energyTable(r));
    writeTable(out, "Stalls by unit", unitStallsTable(r));
    writeTable(out, "Ops that stalled most", opStallsTable(r, kTopStalledOps));
    writeTable(out, "Ops", opsTable(r));
    writeTable(out, "Command streams", commandStreamsTable(r, kTopCommandOps));
    return out.str();
}

}  // namespace npusim::reports
