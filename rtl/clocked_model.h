// A Verilated model on its own clock: reset on construction, one tick per cycle, waveforms
// to a VCD file on request; and access to bit ranges of its ports. Internal to rtl/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include <verilated.h>
#include <verilated_vcd_c.h>

#include "arch/error.h"

namespace npusim::rtl {

/// Bits [lsb, lsb + width) of a Verilated port: an integer for ports of up to 64 bits, a
/// VlWide (32-bit words, least significant first) above.
template <class Port>
void putBits(Port& port, unsigned lsb, unsigned width, uint64_t value) {
    if constexpr (std::is_integral_v<Port>) {
        const uint64_t mask = width == 64 ? ~uint64_t{0} : ((uint64_t{1} << width) - 1);
        port = static_cast<Port>((static_cast<uint64_t>(port) & ~(mask << lsb)) | ((value & mask) << lsb));
    } else {
        for (unsigned i = 0; i < width; ++i) {
            const unsigned bit = lsb + i;
            const uint32_t flag = uint32_t{1} << (bit % 32);
            port[bit / 32] = (value >> i) & 1 ? (port[bit / 32] | flag) : (port[bit / 32] & ~flag);
        }
    }
}

template <class Port>
uint64_t getBits(const Port& port, unsigned lsb, unsigned width) {
    if constexpr (std::is_integral_v<Port>) {
        const uint64_t mask = width == 64 ? ~uint64_t{0} : ((uint64_t{1} << width) - 1);
        return (static_cast<uint64_t>(port) >> lsb) & mask;
    } else {
        uint64_t value = 0;
        for (unsigned i = 0; i < width; ++i) {
            const unsigned bit = lsb + i;
            value |= static_cast<uint64_t>((port[bit / 32] >> (bit % 32)) & 1) << i;
        }
        return value;
    }
}

/// A model with ports `clk` and `rst_n`.
template <class Model>
class ClockedModel {
public:
    explicit ClockedModel(const std::string& vcdPath) {
        if (!vcdPath.empty()) context_.traceEverOn(true);
        model_ = std::make_unique<Model>(&context_, "top");
        if (!vcdPath.empty()) {
            vcd_ = std::make_unique<VerilatedVcdC>();
            model_->trace(vcd_.get(), 99);
            vcd_->open(vcdPath.c_str());
            if (!vcd_->isOpen()) throw InputError("--vcd: cannot write '" + vcdPath + "'");
        }
        // An asynchronous reset acts on the falling edge of rst_n.
        model_->clk = 0;
        model_->rst_n = 1;
        model_->eval();
        model_->rst_n = 0;
        model_->eval();
        model_->rst_n = 1;
        model_->eval();
    }
    ~ClockedModel() {
        if (vcd_) vcd_->close();
        model_->final();
    }
    ClockedModel(const ClockedModel&) = delete;
    ClockedModel& operator=(const ClockedModel&) = delete;

    Model& ports() { return *model_; }
    const Model& ports() const { return *model_; }

    /// One clock cycle: the inputs set are sampled; the outputs then show the next cycle's
    /// values. The VCD has two time units per cycle.
    void tick() {
        model_->clk = 1;
        model_->eval();
        if (vcd_) vcd_->dump(2 * cycles_ + 1);
        model_->clk = 0;
        model_->eval();
        ++cycles_;
        if (vcd_) vcd_->dump(2 * cycles_);
    }
    uint64_t cycles() const { return cycles_; }

private:
    VerilatedContext context_;
    std::unique_ptr<Model> model_;
    std::unique_ptr<VerilatedVcdC> vcd_;
    uint64_t cycles_ = 0;
};

}  // namespace npusim::rtl
