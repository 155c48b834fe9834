// The parse layer of the architecture config: JSON <-> ArchConfigFile. One field list per
// struct (visitFields) drives both reading and writing, so they cannot drift apart.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "arch/arch_config.h"
#include "arch/error.h"

namespace npusim {
namespace {

using Json = nlohmann::ordered_json;

template <class V> void visitFields(TensorDTypeFile& s, V& v) { v("cycles_per_row", s.cyclesPerRow); }
template <class V> void visitFields(TensorUnitFile& s, V& v) {
    v("rows", s.rows);
    v("cols", s.cols);
    v("dataflow", s.dataflow);
    v("double_buffered", s.doubleBuffered);
    v("dtypes", s.dtypes);
}
template <class V> void visitFields(VectorUnitFile& s, V& v) {
    v("lanes", s.lanes);
    v("pipeline_depth", s.pipelineDepth);
    v("op_cycles", s.opCycles);
}
template <class V> void visitFields(MemoryFile& s, V& v) {
    v("size_kib", s.sizeKib);
    v("banks", s.banks);
    v("bank_width_bytes", s.bankWidthBytes);
    v("ports", s.ports);
}
template <class V> void visitFields(DmaFile& s, V& v) {
    v("channels", s.channels);
    v("burst_bytes", s.burstBytes);
    v("max_outstanding", s.maxOutstanding);
    v("transpose", s.transpose);
}
template <class V> void visitFields(DramFile& s, V& v) {
    v("size_mib", s.sizeMib);
    v("bandwidth_gbps", s.bandwidthGbps);
    v("latency_ns", s.latencyNs);
    v("channels", s.channels);
    v("banks", s.banks);
    v("row_bytes", s.rowBytes);
    v("page_policy", s.pagePolicy);
    v("t_cas_ns", s.tCasNs);
    v("t_rcd_ns", s.tRcdNs);
    v("t_rp_ns", s.tRpNs);
}
template <class V> void visitFields(ControlCoreFile& s, V& v) {
    v("dispatch_cycles", s.dispatchCycles);
    v("validate_cycles", s.validateCycles);
}
template <class V> void visitFields(HostFile& s, V& v) {
    v("mmio_latency_ns", s.mmioLatencyNs);
    v("copy_gbps", s.copyGbps);
    v("irq_latency_ns", s.irqLatencyNs);
    v("cpu_gops", s.cpuGops);
}
template <class V> void visitFields(EnergyFile& s, V& v) {
    v("technology_nm", s.technologyNm);
    v("nominal_voltage_v", s.nominalVoltageV);
    v("voltage_v", s.voltageV);
    v("mac_pj", s.macPj);
    v("vector_lane_pj", s.vectorLanePj);
    v("sram_pj_per_byte", s.sramPjPerByte);
    v("dma_pj_per_byte", s.dmaPjPerByte);
    v("dram_pj_per_byte", s.dramPjPerByte);
    v("dram_activate_pj", s.dramActivatePj);
    v("control_core_pj_per_cycle", s.controlCorePjPerCycle);
    v("leakage_mw_per_mm2", s.leakageMwPerMm2);
}
template <class V> void visitFields(AreaFile& s, V& v) {
    v("mac_um2", s.macUm2);
    v("sram_mm2_per_mib", s.sramMm2PerMib);
    v("vector_lane_um2", s.vectorLaneUm2);
    v("dma_channel_mm2", s.dmaChannelMm2);
    v("control_core_mm2", s.controlCoreMm2);
}
template <class V> void visitFields(ArchConfigFile& s, V& v) {
    v("name", s.name);
    v("description", s.description);
    v("clock_mhz", s.clockMhz);
    v("tensor", s.tensor);
    v("vector", s.vector);
    v("sram", s.sram);
    v("accumulator", s.accumulator);
    v("dma", s.dma);
    v("dram", s.dram);
    v("queue_depth", s.queueDepth);
    v("semaphores", s.semaphores);
    v("control_core", s.controlCore);
    v("host", s.host);
    v("energy", s.energy);
    v("area", s.area);
}

class Reader {
public:
    explicit Reader(std::string origin) : origin_(std::move(origin)) {}

    [[noreturn]] void fail(const std::string& path, const std::string& what) const {
        throw InputError(origin_ + ": field '" + path + "': " + what);
    }

    void read(const Json& j, const std::string& path, uint32_t& out) const {
        const uint64_t v = readUnsigned(j, path);
        if (v > UINT32_MAX) fail(path, "value too large");
        out = static_cast<uint32_t>(v);
    }
    void read(const Json& j, const std::string& path, uint64_t& out) const {
        out = readUnsigned(j, path);
    }
    void read(const Json& j, const std::string& path, double& out) const {
        if (!j.is_number()) fail(path, "expected a number, got " + j.dump());
        out = j.get<double>();
    }
    void read(const Json& j, const std::string& path, bool& out) const {
        if (!j.is_boolean()) fail(path, "expected true or false, got " + j.dump());
        out = j.get<bool>();
    }
    void read(const Json& j, const std::string& path, std::string& out) const {
        if (!j.is_string()) fail(path, "expected a string, got " + j.dump());
        out = j.get<std::string>();
    }
    template <class T>
    void read(const Json& j, const std::string& path, std::map<std::string, T>& out) const {
        if (!j.is_object()) fail(path, "expected an object, got " + j.dump());
        for (const auto& [key, value] : j.items()) read(value, path + "." + key, out[key]);
    }
    template <class T>
        requires std::is_class_v<T>
    void read(const Json& j, const std::string& path, T& out) const {
        if (!j.is_object()) fail(path, "expected an object, got " + j.dump());
        std::vector<std::string> known;
        auto visitor = [&](std::string_view key, auto& field) {
            known.emplace_back(key);
            const auto it = j.find(std::string(key));
            if (it == j.end()) return;
            field.emplace();
            read(*it, join(path, key), *field);
        };
        visitFields(out, visitor);
        for (const auto& [key, value] : j.items()) {
            if (std::find(known.begin(), known.end(), key) == known.end()) {
                std::string names;
                for (const std::string& name : known) names += (names.empty() ? "" : ", ") + name;
                fail(join(path, key), "unknown field (" + (path.empty() ? std::string("top-level fields") : "fields of " + path) +
                                          ": " + names + ")");
            }
        }
    }

private:
    static std::string join(const std::string& path, std::string_view key) {
        return path.empty() ? std::string(key) : path + "." + std::string(key);
    }
    uint64_t readUnsigned(const Json& j, const std::string& path) const {
        if (j.is_number_unsigned()) return j.get<uint64_t>();
        if (j.is_number_integer()) fail(path, "expected a non-negative integer, got " + j.dump());
        fail(path, "expected an integer, got " + j.dump());
    }

    std::string origin_;
};

Json write(uint32_t v) { return v; }
Json write(uint64_t v) { return v; }
Json write(double v) { return v; }
Json write(bool v) { return v; }
Json write(const std::string& v) { return v; }
template <class T>
    requires std::is_class_v<T>
Json write(const T& s);
template <class T>
Json write(const std::map<std::string, T>& m) {
    Json j = Json::object();
    for (const auto& [key, value] : m) j[key] = write(value);
    return j;
}
template <class T>
    requires std::is_class_v<T>
Json write(const T& s) {  // a struct with visitFields
    Json j = Json::object();
    T copy = s;
    auto visitor = [&](std::string_view key, auto& field) {
        if (field) j[std::string(key)] = write(*field);
    };
    visitFields(copy, visitor);
    return j;
}

}  // namespace

ArchConfigFile parseArchConfigFile(std::string_view jsonText, std::string_view origin) {
    Json j;
    try {
        j = Json::parse(jsonText, nullptr, true, /*ignore_comments=*/true);
    } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number out of range
        std::string what = e.what();
        const size_t colon = what.find("parse error");
        throw InputError(std::string(origin) + ": invalid JSON: " +
                         (colon == std::string::npos ? what : what.substr(colon)));
    }
    ArchConfigFile file;
    Reader(std::string(origin)).read(j, "", file);
    return file;
}

std::string archConfigFileToJson(const ArchConfigFile& file) { return write(file).dump(2); }

}  // namespace npusim
