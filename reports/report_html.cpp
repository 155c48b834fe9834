// report.html: the same sections as report.md in one self-contained page: styles inline, the
// plots embedded as data: URIs, no script and nothing fetched from the network.
#include <algorithm>
#include <cstdint>
#include <sstream>

#include "reports/report.h"
#include "reports/report_tables.h"

namespace npusim::reports {
namespace {

std::string escaped(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string base64(const std::string& bytes) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (size_t i = 0; i < bytes.size(); i += 3) {
        const size_t n = std::min<size_t>(3, bytes.size() - i);
        uint32_t word = 0;
        for (size_t k = 0; k < 3; ++k) word = word << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
        for (size_t k = 0; k < 4; ++k) out += k <= n ? kAlphabet[(word >> (18 - 6 * k)) & 63] : '=';
    }
    return out;
}

void writeTable(std::ostringstream& out, const std::string& id, const std::string& title, const Table& table) {
    if (table.rows.empty()) return;
    out << "<section id=\"" << id << "\"><h2>" << escaped(title) << "</h2>\n<table>\n<thead><tr>";
    for (size_t c = 0; c < table.headers.size(); ++c) {
        out << "<th" << (table.numeric[c] ? " class=\"n\"" : "") << ">" << escaped(table.headers[c]) << "</th>";
    }
    out << "</tr></thead>\n<tbody>\n";
    for (const auto& row : table.rows) {
        out << "<tr>";
        for (size_t c = 0; c < row.size(); ++c) {
            out << "<td" << (table.numeric[c] ? " class=\"n\"" : "") << ">" << escaped(row[c]) << "</td>";
        }
        out << "</tr>\n";
    }
    out << "</tbody></table>\n";
    if (!table.note.empty()) out << "<p class=\"note\">" << escaped(table.note) << "</p>\n";
    out << "</section>\n";
}

void writePlot(std::ostringstream& out, const std::vector<Plot>& plots, const std::string& name,
               const std::string& caption) {
    for (const Plot& plot : plots) {
        if (plot.name != name) continue;
        out << "<figure id=\"plot-" << escaped(name) << "\"><img alt=\"" << escaped(caption)
            << "\" src=\"data:image/png;base64," << base64(plot.png) << "\"><figcaption>" << escaped(caption)
            << "</figcaption></figure>\n";
    }
}

constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 2em auto; max-width: 1400px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
ul.summary { line-height: 1.6; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f2f2f2; } td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #fafafa; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption, p.note { font-size: 0.85em; color: #666; }
)";

}  // namespace

std::string reportToHtml(const Report& r, const std::vector<Plot>& plots) {
    const std::string title = "npusim report: " + r.model + " on " + r.arch;
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << escaped(title)
        << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n<h1>" << escaped(title) << "</h1>\n";
    out << "<section id=\"summary\"><ul class=\"summary\">\n";
    for (const std::string& line : summaryLines(r)) out << "<li>" << escaped(line) << "</li>\n";
    out << "</ul></section>\n";
    if (r.generation) {
        out << "<section id=\"generation\"><h2>Generation</h2><ul class=\"summary\">\n";
        for (const std::string& line : generationLines(r)) out << "<li>" << escaped(line) << "</li>\n";
        out << "</ul></section>\n";
        writePlot(out, plots, "tokens", "Each step's cycles, host to host: the prefill (its first token) and every decode step");
        writeTable(out, "generation-requests", "Requests", generationRequestsTable(r));
        writeTable(out, "generation-steps", "Steps", generationStepsTable(r));
    }
    writeTable(out, "findings", "Top findings", findingsTable(r, kTopFindings));
    writePlot(out, plots, "timeline", "Timeline: each unit's busy (blue) and stalled (orange) share of every time bin from 0, every "
                                            "event counted; above, the spans of the longest ops");
    writeTable(out, "units", "Units", unitsTable(r));
    writePlot(out, plots, "utilization", "Each unit's cycles: busy, stalled by reason, idle");
    writeTable(out, "energy", "Energy", energyTable(r));
    writeTable(out, "stalls", "Stalls by unit", unitStallsTable(r));
    writeTable(out, "stalled-ops", "Ops that stalled most", opStallsTable(r, kTopStalledOps));
    writePlot(out, plots, "op_cycles", "Cycles per op, most first");
    writePlot(out, plots, "roofline",
              "Roofline: each tensor-unit op's attained MACs per cycle against its MACs per compulsory DRAM byte (the ops table's intensity), and "
              "the bound its shape allows (green)");
    writeTable(out, "ops", "Ops", opsTable(r));
    writeTable(out, "command-streams", "Command streams", commandStreamsTable(r, kTopCommandOps));
    out << "</body>\n</html>\n";
    return out.str();
}

}  // namespace npusim::reports
