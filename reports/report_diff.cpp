#include "reports/report_diff.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "reports/text_format.h"

namespace npusim::reports {
namespace {

/// "a -> b (+5.6%)" for two energies in pJ; "-" for a side without one.
std::string energyChangeText(const std::optional<double>& a, const std::optional<double>& b) {
    std::string text = (a ? energyText(*a) : "-") + " -> " + (b ? energyText(*b) : "-");
    if (a && b && *a > 0) text += " (" + std::string(*b >= *a ? "+" : "") + percentText((*b - *a) / *a) + ")";
    return text;
}

/// "+1234 (+5.6%)" against `base`; "new" or "gone" when one side is missing.
template <class T>
std::string changeText(const std::optional<T>& a, const std::optional<T>& b) {
    if (!a) return "new";
    if (!b) return "gone";
    const double delta = static_cast<double>(*b) - static_cast<double>(*a);
    const std::string sign = delta > 0 ? "+" : "";
    std::string text = sign;
    text += wholeText(delta);
    if (*a != 0) text += " (" + sign + percentText(delta / static_cast<double>(*a)) + ")";
    return text;
}

template <class T>
std::string valueText(const std::optional<T>& value) {
    return value ? std::to_string(*value) : "-";
}

std::string padded(const std::string& text, size_t width, bool right) {
    if (text.size() >= width) return text;
    const std::string fill(width - text.size(), ' ');
    return right ? fill + text : text + fill;
}

/// Rows as aligned columns (first column left-aligned, the rest right-aligned).
void writeColumns(std::ostringstream& out, const std::vector<std::vector<std::string>>& rows) {
    std::vector<size_t> widths;
    for (const auto& row : rows) {
        widths.resize(std::max(widths.size(), row.size()));
        for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
    }
    for (const auto& row : rows) {
        out << " ";
        for (size_t c = 0; c < row.size(); ++c) out << " " << padded(row[c], widths[c], c > 1);
        out << "\n";
    }
}

template <class T>
nlohmann::ordered_json optionalJson(const std::optional<T>& value) {
    return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json();
}

}  // namespace

ReportDiff diffReports(const Report& a, const std::string& labelA, const Report& b, const std::string& labelB) {
    ReportDiff diff;
    const auto side = [](const Report& r, const std::string& label) {
        ReportDiff::Side s{label,
                           r.model,
                           r.arch,
                           r.precision,
                           r.objective,
                           r.totalCycles,
                           r.dramBytesRead + r.dramBytesWritten,
                           {},
                           {},
                           r.energy.totalPj(),
                           r.energy.averageWatts,
                           r.energy.peakWatts,
                           r.energy.areaMm2};
        if (r.check) {
            s.maxRelError = r.check->maxRelError;
            for (const OutputAccuracy& output : r.check->outputs) s.cosine = std::min(s.cosine.value_or(1.0), output.cosine);
        }
        return s;
    };
    diff.a = side(a, labelA);
    diff.b = side(b, labelB);

    for (const UnitReport& unit : a.units) diff.units.push_back({unit.name, unit.utilization, std::nullopt});
    for (const UnitReport& unit : b.units) {
        auto it = std::find_if(diff.units.begin(), diff.units.end(), [&](const auto& u) { return u.unit == unit.name; });
        if (it == diff.units.end()) it = diff.units.insert(diff.units.end(), {unit.name, std::nullopt, std::nullopt});
        it->utilizationB = unit.utilization;
    }

    std::map<std::string, size_t> opIndex;
    auto opChange = [&](const OpReport& op) -> ReportDiff::OpChange& {
        const auto [it, fresh] = opIndex.emplace(op.name, diff.ops.size());
        if (fresh) diff.ops.push_back({op.name, op.type, std::nullopt, std::nullopt, "", "", std::nullopt, std::nullopt});
        return diff.ops[it->second];
    };
    // Op energies are compared when both reports have them (not one older than the energy model).
    const bool energies = !a.energy.units.empty() && !b.energy.units.empty();
    for (const OpReport& op : a.ops) {
        ReportDiff::OpChange& change = opChange(op);
        change.cyclesA = change.cyclesA.value_or(0) + op.cycles;
        change.boundA = op.bound;
        if (energies) change.energyA = change.energyA.value_or(0) + op.energyPj;
    }
    for (const OpReport& op : b.ops) {
        ReportDiff::OpChange& change = opChange(op);
        change.cyclesB = change.cyclesB.value_or(0) + op.cycles;
        change.boundB = op.bound;
        if (energies) change.energyB = change.energyB.value_or(0) + op.energyPj;
    }
    std::stable_sort(diff.ops.begin(), diff.ops.end(),
                     [](const auto& x, const auto& y) { return std::llabs(x.delta()) > std::llabs(y.delta()); });

    std::map<std::pair<std::string, std::string>, ReportDiff::FindingChange> findings;
    for (const Finding& f : a.findings) {
        auto& change = findings.try_emplace({f.kind, f.op}, ReportDiff::FindingChange{f.kind, f.op, {}, {}}).first->second;
        change.lostA = change.lostA.value_or(0) + f.cycles;
    }
    for (const Finding& f : b.findings) {
        auto& change = findings.try_emplace({f.kind, f.op}, ReportDiff::FindingChange{f.kind, f.op, {}, {}}).first->second;
        change.lostB = change.lostB.value_or(0) + f.cycles;
    }
    for (const auto& [key, change] : findings) {
        if (change.lostA != change.lostB) diff.findings.push_back(change);
    }
    std::stable_sort(diff.findings.begin(), diff.findings.end(),
                     [](const auto& x, const auto& y) { return std::llabs(x.delta()) > std::llabs(y.delta()); });
    return diff;
}

std::string diffToText(const ReportDiff& d) {
    std::ostringstream out;
    const auto name = [](const ReportDiff::Side& s) {
        return s.model + " on " + s.arch + (s.precision == "fp32" ? "" : " at " + s.precision) +
               (s.objective == "cycles" ? "" : ", schedules for " + s.objective);
    };
    out << "A: " << d.a.label << " (" << name(d.a) << ")\n";
    out << "B: " << d.b.label << " (" << name(d.b) << ")\n";
    out << "total cycles: " << d.a.totalCycles << " -> " << d.b.totalCycles << "  "
        << changeText<uint64_t>(d.a.totalCycles, d.b.totalCycles) << "\n";
    out << "DRAM bytes: " << d.a.dramBytes << " -> " << d.b.dramBytes << "  "
        << changeText<uint64_t>(d.a.dramBytes, d.b.dramBytes) << "\n";
    if (d.a.energyPj > 0 && d.b.energyPj > 0) {
        out << "energy: " << energyChangeText(d.a.energyPj, d.b.energyPj) << "\n";
        out << "power: average " << fixedText(d.a.averageWatts, 3) << " W -> " << fixedText(d.b.averageWatts, 3) << " W, peak "
            << fixedText(d.a.peakWatts, 3) << " W -> " << fixedText(d.b.peakWatts, 3) << " W\n";
        out << "area: " << fixedText(d.a.areaMm2, 3) << " mm2 -> " << fixedText(d.b.areaMm2, 3) << " mm2\n";
    }
    if (d.a.maxRelError || d.b.maxRelError) {
        const auto error = [](const ReportDiff::Side& s) {
            if (!s.maxRelError) return std::string("not checked");
            char text[96];
            std::snprintf(text, sizeof text, "max rel error %.3g, cosine %.6f", *s.maxRelError, s.cosine.value_or(1.0));
            return std::string(text);
        };
        out << "error against the reference interpreter: " << error(d.a) << " -> " << error(d.b) << "\n";
    }

    out << "\nunit utilisation\n";
    std::vector<std::vector<std::string>> rows{{"unit", "", "A", "B"}};
    for (const auto& u : d.units) {
        rows.push_back({u.unit, "", u.utilizationA ? percentText(*u.utilizationA) : "-",
                        u.utilizationB ? percentText(*u.utilizationB) : "-"});
    }
    writeColumns(out, rows);

    out << "\nops, largest change in cycles first\n";
    rows = {{"op", "type", "A cycles", "B cycles", "change", "bound A -> B", "energy A -> B"}};
    size_t unchanged = 0;
    for (const auto& op : d.ops) {
        if (op.cyclesA == op.cyclesB && op.boundA == op.boundB && op.energyA == op.energyB) {
            ++unchanged;
            continue;
        }
        rows.push_back({op.op, op.type, valueText(op.cyclesA), valueText(op.cyclesB), changeText(op.cyclesA, op.cyclesB),
                        (op.boundA.empty() ? "-" : op.boundA) + " -> " + (op.boundB.empty() ? "-" : op.boundB),
                        energyChangeText(op.energyA, op.energyB)});
    }
    writeColumns(out, rows);
    if (unchanged > 0) out << "  (" << unchanged << " ops unchanged)\n";

    out << "\nfindings that changed, largest change in cycles lost first\n";
    if (d.findings.empty()) {
        out << "  none\n";
    } else {
        rows = {{"kind", "op", "A lost", "B lost", "change"}};
        for (const auto& f : d.findings) {
            rows.push_back({f.kind, f.op, valueText(f.lostA), valueText(f.lostB), changeText(f.lostA, f.lostB)});
        }
        writeColumns(out, rows);
    }
    return out.str();
}

std::string diffToJson(const ReportDiff& d) {
    using Json = nlohmann::ordered_json;
    auto side = [](const ReportDiff::Side& s) {
        return Json{{"label", s.label},         {"model", s.model},
                    {"arch", s.arch},           {"precision", s.precision},
                    {"objective", s.objective},
                    {"total_cycles", s.totalCycles}, {"dram_bytes", s.dramBytes},
                    {"max_rel_error", optionalJson(s.maxRelError)}, {"cosine", optionalJson(s.cosine)},
                    {"energy_pj", s.energyPj > 0 ? Json(s.energyPj) : Json()},
                    {"average_w", s.energyPj > 0 ? Json(s.averageWatts) : Json()},
                    {"peak_w", s.energyPj > 0 ? Json(s.peakWatts) : Json()},
                    {"area_mm2", s.energyPj > 0 ? Json(s.areaMm2) : Json()}};
    };
    Json j;
    j["a"] = side(d.a);
    j["b"] = side(d.b);
    j["total_cycles_change"] = static_cast<int64_t>(d.b.totalCycles) - static_cast<int64_t>(d.a.totalCycles);
    j["units"] = Json::array();
    for (const auto& u : d.units) {
        j["units"].push_back({{"unit", u.unit}, {"utilization_a", optionalJson(u.utilizationA)},
                              {"utilization_b", optionalJson(u.utilizationB)}});
    }
    j["ops"] = Json::array();
    for (const auto& op : d.ops) {
        j["ops"].push_back({{"op", op.op}, {"type", op.type}, {"cycles_a", optionalJson(op.cyclesA)},
                            {"cycles_b", optionalJson(op.cyclesB)}, {"change", op.delta()},
                            {"bound_a", op.boundA}, {"bound_b", op.boundB},
                            {"energy_pj_a", optionalJson(op.energyA)}, {"energy_pj_b", optionalJson(op.energyB)}});
    }
    j["findings"] = Json::array();
    for (const auto& f : d.findings) {
        j["findings"].push_back({{"kind", f.kind}, {"op", f.op}, {"cycles_lost_a", optionalJson(f.lostA)},
                                 {"cycles_lost_b", optionalJson(f.lostB)}, {"change", f.delta()}});
    }
    return j.dump(2) + "\n";
}

}  // namespace npusim::reports
