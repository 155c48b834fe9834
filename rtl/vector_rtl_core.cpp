// The adapter between the vector unit and the Verilated lanes: a block's elements, in row-major
// order, enter `lanes` at a time, one group per cycle, with the second operand as its mode
// reads it; results leave `depth` cycles later. The lanes' timing does not depend on the
// values, so each (op, groups) is measured once (by the first block computed, or by a block of
// zeros in a timing-only run) and every later block checks it.
#include "rtl/vector_rtl_core.h"

#include <cstring>
#include <map>
#include <stdexcept>

#include "Vvector_lanes_16_4.h"
#include "Vvector_lanes_32_6.h"
#include "Vvector_lanes_8_4.h"
#include "arch/error.h"
#include "rtl/clocked_model.h"

namespace npusim::rtl {
namespace {

using isa::VectorOp;

bool onLanes(const hw::VectorBlock& block) {
    if (block.dtype != DType::Int32 || block.outDType != DType::Int32) return false;
    switch (block.op) {
        case VectorOp::Copy:
        case VectorOp::Add:
        case VectorOp::Sub:
        case VectorOp::Mul:
        case VectorOp::Max:
        case VectorOp::Min:
        case VectorOp::Relu:
        case VectorOp::Clip:
        case VectorOp::Less:
        case VectorOp::Equal: return true;
        default: return false;
    }
}

int32_t element(const std::byte* base, uint64_t index) {
    int32_t value = 0;
    std::memcpy(&value, base + index * 4, 4);
    return value;
}

/// One clocked set of lanes, whatever its width.
class LaneDriver {
public:
    virtual ~LaneDriver() = default;
    virtual void present(bool valid, VectorOp op, const std::vector<int32_t>& a, const std::vector<int32_t>& b,
                         int32_t lo, int32_t hi) = 0;
    virtual void tick() = 0;
    virtual bool valid() const = 0;
    virtual int32_t result(uint32_t lane) const = 0;
    virtual uint64_t cycles() const = 0;
};

template <class Model>
class VerilatedLanes : public LaneDriver {
public:
    VerilatedLanes(uint32_t lanes, const std::string& vcdPath) : lanes_(lanes), model_(vcdPath) {}

    void present(bool valid, VectorOp op, const std::vector<int32_t>& a, const std::vector<int32_t>& b, int32_t lo,
                 int32_t hi) override {
        Model& p = model_.ports();
        p.in_valid = valid;
        p.op = static_cast<uint8_t>(op);
        p.lo = static_cast<uint32_t>(lo);
        p.hi = static_cast<uint32_t>(hi);
        for (uint32_t l = 0; l < lanes_; ++l) {
            putBits(p.a, l * 32, 32, static_cast<uint32_t>(a[l]));
            putBits(p.b, l * 32, 32, static_cast<uint32_t>(b[l]));
        }
    }
    void tick() override { model_.tick(); }
    bool valid() const override { return model_.ports().out_valid != 0; }
    int32_t result(uint32_t lane) const override {
        return static_cast<int32_t>(static_cast<uint32_t>(getBits(model_.ports().result, lane * 32, 32)));
    }
    uint64_t cycles() const override { return model_.cycles(); }

private:
    uint32_t lanes_;
    ClockedModel<Model> model_;
};

class VectorRtlCore : public hw::VectorCore {
public:
    VectorRtlCore(std::unique_ptr<LaneDriver> lanes, uint32_t width, uint32_t depth, RtlLog& log)
        : lanes_(std::move(lanes)), width_(width), depth_(depth), log_(log), counts_(log.blocks["vector"]),
          model_(hw::makeModelVectorCore()) {}

    uint64_t computeCycles(const hw::VectorBlock& block, uint64_t model, uint32_t opId, uint32_t tileId) override {
        if (!onLanes(block)) {
            ++counts_.onModel;
            return model;
        }
        const uint64_t groups = (uint64_t{block.rows} * block.cols + width_ - 1) / width_;
        auto measured = measured_.find({block.op, groups});
        if (measured == measured_.end()) {
            hw::VectorBlock shape = block;
            shape.src0 = shape.src1 = nullptr;
            shape.dst = nullptr;
            measured = measured_.emplace(std::make_pair(block.op, groups), run(shape)).first;
        }
        ++counts_.onRtl;
        if (measured->second != model) {
            log_.differences.push_back({"vector", opId, tileId, model, measured->second,
                                        std::to_string(groups) + " groups of " + std::to_string(width_) +
                                            " lanes: model " + std::to_string(model) + " cycles, RTL " +
                                            std::to_string(measured->second)});
        }
        return measured->second;
    }

    void compute(const hw::VectorBlock& block) override {
        if (!onLanes(block)) {
            model_->compute(block);
            return;
        }
        const uint64_t cycles = run(block);
        const uint64_t groups = (uint64_t{block.rows} * block.cols + width_ - 1) / width_;
        // The first block of its kind is the measurement; every later one checks it.
        const auto [measured, first] = measured_.emplace(std::make_pair(block.op, groups), cycles);
        if (!first && measured->second != cycles) {
            throw std::logic_error("RTL vector core: a block's cycles depend on its values");
        }
    }

private:
    /// The second operand of element (r, c), as the block's mode reads it.
    int32_t operand1(const hw::VectorBlock& block, uint64_t r, uint64_t c) const {
        switch (block.mode) {
            case isa::Operand1Mode::Full: return element(block.src1, r * block.cols + c);
            case isa::Operand1Mode::Row: return element(block.src1, c);
            case isa::Operand1Mode::Column: return element(block.src1, r);
            case isa::Operand1Mode::Scalar: return element(block.src1, 0);
            case isa::Operand1Mode::Immediate: return static_cast<int32_t>(block.immediate);
            case isa::Operand1Mode::None: break;
        }
        return 0;
    }

    /// Clocks the block through the lanes (values from `block` when it has operands, zeros
    /// otherwise), writes the results into block.dst and returns the cycles from the first
    /// group entering to the last result leaving.
    uint64_t run(const hw::VectorBlock& block) {
        const uint64_t elements = uint64_t{block.rows} * block.cols;
        const uint64_t groups = (elements + width_ - 1) / width_;
        std::vector<int32_t> a(width_, 0), b(width_, 0);
        const auto lo = static_cast<int32_t>(block.immediate), hi = static_cast<int32_t>(block.immediate2);
        const uint64_t start = lanes_->cycles();
        uint64_t received = 0, lastSeen = start + depth_ - 1;
        const auto collect = [&] {
            if (!lanes_->valid()) return;
            for (uint32_t l = 0; l < width_; ++l) {
                const uint64_t index = received * width_ + l;
                if (block.dst && index < elements) {
                    const int32_t value = lanes_->result(l);
                    std::memcpy(block.dst + index * 4, &value, 4);
                }
            }
            ++received;
            lastSeen = lanes_->cycles();
        };
        for (uint64_t g = 0; g < groups; ++g) {
            for (uint32_t l = 0; l < width_; ++l) {
                const uint64_t index = g * width_ + l;
                const bool real = block.src0 && index < elements;
                a[l] = real ? element(block.src0, index) : 0;
                b[l] = real && block.src1 ? operand1(block, index / block.cols, index % block.cols)
                                          : (block.mode == isa::Operand1Mode::Immediate ? static_cast<int32_t>(block.immediate) : 0);
            }
            lanes_->present(true, block.op, a, b, lo, hi);
            lanes_->tick();
            collect();
        }
        lanes_->present(false, block.op, a, b, lo, hi);
        while (received < groups) {
            lanes_->tick();
            collect();
            if (lanes_->cycles() - start > groups + 4 * uint64_t{depth_} + 16) {
                throw std::logic_error("RTL vector core: the lanes did not drain");
            }
        }
        counts_.clockCycles = lanes_->cycles();
        // With no group, the lanes still take their depth, as the model says.
        return groups == 0 ? depth_ : lastSeen - start + 1;
    }

    std::unique_ptr<LaneDriver> lanes_;
    uint32_t width_, depth_;
    RtlLog& log_;
    RtlBlockCounts& counts_;
    std::unique_ptr<hw::VectorCore> model_;
    std::map<std::pair<VectorOp, uint64_t>, uint64_t> measured_;
};

}  // namespace

std::vector<std::pair<uint32_t, uint32_t>> builtLaneConfigs() { return {{8, 4}, {16, 4}, {32, 6}}; }

std::unique_ptr<hw::VectorCore> makeVectorRtlCore(const ArchConfig& config, RtlLog& log, const std::string& vcdPath) {
    const uint32_t lanes = config.vector.lanes, depth = config.vector.pipelineDepth;
    std::unique_ptr<LaneDriver> driver;
    if (lanes == 8 && depth == 4) driver = std::make_unique<VerilatedLanes<Vvector_lanes_8_4>>(lanes, vcdPath);
    if (lanes == 16 && depth == 4) driver = std::make_unique<VerilatedLanes<Vvector_lanes_16_4>>(lanes, vcdPath);
    if (lanes == 32 && depth == 6) driver = std::make_unique<VerilatedLanes<Vvector_lanes_32_6>>(lanes, vcdPath);
    if (!driver) {
        std::string built;
        for (const auto& [l, d] : builtLaneConfigs()) {
            built += (built.empty() ? "" : ", ") + std::to_string(l) + " lanes depth " + std::to_string(d);
        }
        throw InputError("--rtl vector: no RTL lanes of " + std::to_string(lanes) + " lanes and pipeline depth " +
                         std::to_string(depth) + " (arch '" + config.name + "') are built; built: " + built);
    }
    return std::make_unique<VectorRtlCore>(std::move(driver), lanes, depth, log);
}

}  // namespace npusim::rtl
