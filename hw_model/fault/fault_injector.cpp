#include "hw_model/fault/fault_injector.h"

#include <charconv>

#include "arch/error.h"

namespace npusim::hw {

std::string_view faultKindName(FaultKind kind) {
    switch (kind) {
        case FaultKind::DmaError: return "dma_error";
        case FaultKind::UnitHang: return "unit_hang";
        case FaultKind::LostIrq: return "lost_irq";
        case FaultKind::DramFlip: return "dram_flip";
        case FaultKind::SramFlip: return "sram_flip";
    }
    return "?";
}

FaultSpec parseFaultSpec(const std::string& text) {
    const size_t at = text.find('@');
    const std::string kind = text.substr(0, at);
    FaultSpec spec;
    bool known = false;
    for (FaultKind k : {FaultKind::DmaError, FaultKind::UnitHang, FaultKind::LostIrq, FaultKind::DramFlip,
                        FaultKind::SramFlip}) {
        if (kind == faultKindName(k)) {
            spec.kind = k;
            known = true;
        }
    }
    if (!known) throw InputError("--inject '" + text + "': no fault kind '" + kind + "' (dma_error, unit_hang, lost_irq, dram_flip, sram_flip)");
    const std::string count = at == std::string::npos ? "" : text.substr(at + 1);
    const auto [end, error] = std::from_chars(count.data(), count.data() + count.size(), spec.at);
    if (count.empty() || error != std::errc() || end != count.data() + count.size() || spec.at == 0) {
        throw InputError("--inject '" + text + "': give KIND@N, N the event (from 1) at which the fault fires");
    }
    return spec;
}

FaultInjector::FaultInjector(std::vector<FaultSpec> specs) {
    for (const FaultSpec& spec : specs) injected_.push_back({spec, 0, false});
}

bool FaultInjector::trigger(FaultKind kind) {
    bool fires = false;
    for (Injected& injected : injected_) {
        if (injected.spec.kind != kind) continue;
        ++injected.events;
        if (!injected.fired && injected.events == injected.spec.at) {
            injected.fired = true;
            fires = true;
        }
    }
    return fires;
}

}  // namespace npusim::hw
