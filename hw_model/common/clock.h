// The NPU clock: conversions between cycles and SystemC time. Every unit waits in whole
// cycles, so times stay exact multiples of the period.
#pragma once

#include <cstdint>

#include <systemc>

namespace npusim::hw {

class Clock {
public:
    explicit Clock(uint64_t periodPs) : period_(static_cast<double>(periodPs), sc_core::SC_PS) {}

    sc_core::sc_time period() const { return period_; }
    /// In integer time units (a product through double would round above 2^53 and cost more).
    sc_core::sc_time cycles(uint64_t count) const { return sc_core::sc_time::from_value(cyclesToUnits(count)); }
    /// Whole cycles in t, rounding down.
    uint64_t toCycles(const sc_core::sc_time& t) const {
        return t.value() / period_.value();
    }
    /// Whole cycles in t, rounding up (a partial cycle still occupies the cycle).
    uint64_t toCyclesCeil(const sc_core::sc_time& t) const { return unitsToCyclesCeil(t.value()); }
    /// The same for a time in SystemC's integer time units (as timelines keep it).
    uint64_t unitsToCyclesCeil(uint64_t units) const { return (units + period_.value() - 1) / period_.value(); }
    /// `count` cycles in SystemC's integer time units.
    uint64_t cyclesToUnits(uint64_t count) const { return period_.value() * count; }
    /// The current simulation time in cycles.
    uint64_t now() const { return toCycles(sc_core::sc_time_stamp()); }

private:
    sc_core::sc_time period_;
};

}  // namespace npusim::hw
