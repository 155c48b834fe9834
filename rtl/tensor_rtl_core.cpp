// The adapter between the tensor unit and the Verilated array: one tile is a preload of B's k
// rows, a stream of A's m rows and a drain, clocked cycle by cycle; the phases are counted off
// the array's valid flags. A systolic array's timing does not depend on the values, so each
// tile shape is measured once (the first time it is issued) and every computed tile checks it.
#include "rtl/tensor_rtl_core.h"

#include <cstring>
#include <map>
#include <span>
#include <stdexcept>

#include "Vsystolic_array_16.h"
#include "Vsystolic_array_32.h"
#include "Vsystolic_array_8.h"
#include "arch/error.h"
#include "rtl/clocked_model.h"

namespace npusim::rtl {
namespace {

constexpr unsigned kOperandBits = 10;  // systolic_array's OPERAND_BITS

/// One clocked array, whatever its size.
class ArrayDriver {
public:
    virtual ~ArrayDriver() = default;
    virtual void preload(bool valid, uint32_t row, std::span<const int32_t> operands) = 0;
    virtual void stream(bool valid, bool swap, std::span<const int32_t> operands) = 0;
    /// One clock cycle: the inputs set are sampled, the outputs show the next cycle's values.
    virtual void tick() = 0;
    virtual bool valid(uint32_t column) const = 0;
    virtual int32_t result(uint32_t column) const = 0;
    virtual uint64_t cycles() const = 0;
};

template <class Model>
class VerilatedArray : public ArrayDriver {
public:
    VerilatedArray(uint32_t size, const std::string& vcdPath) : size_(size), array_(vcdPath) {}

    void preload(bool valid, uint32_t row, std::span<const int32_t> operands) override {
        array_.ports().w_valid = valid;
        array_.ports().w_row = row;
        for (uint32_t c = 0; c < size_; ++c) {
            putBits(array_.ports().w_data, c * kOperandBits, kOperandBits, static_cast<uint64_t>(operands[c]));
        }
    }
    void stream(bool valid, bool swap, std::span<const int32_t> operands) override {
        array_.ports().a_valid = valid;
        array_.ports().swap = swap;
        for (uint32_t r = 0; r < size_; ++r) {
            putBits(array_.ports().a_data, r * kOperandBits, kOperandBits, static_cast<uint64_t>(operands[r]));
        }
    }
    void tick() override { array_.tick(); }
    bool valid(uint32_t column) const override { return getBits(array_.ports().c_valid, column, 1) != 0; }
    int32_t result(uint32_t column) const override {
        return static_cast<int32_t>(static_cast<uint32_t>(getBits(array_.ports().c_data, column * 32, 32)));
    }
    uint64_t cycles() const override { return array_.cycles(); }

private:
    uint32_t size_;
    ClockedModel<Model> array_;
};

bool onArray(DType dtype) { return dtype == DType::Int8 || dtype == DType::UInt8; }

/// Whether every operand minus its zero point fits the array's signed operands: zero points
/// inside the dtype's range (the ISA allows any 16-bit value) keep |x - zp| <= 255.
bool operandsFit(const hw::GemmTile& tile) {
    const int32_t low = tile.dtype == DType::Int8 ? -128 : 0, high = tile.dtype == DType::Int8 ? 127 : 255;
    return tile.aZeroPoint >= low && tile.aZeroPoint <= high && tile.bZeroPoint >= low && tile.bZeroPoint <= high;
}

/// The operand an int8 or uint8 element enters the array as: minus its zero point.
int32_t operand(const std::byte* data, size_t index, DType dtype, int32_t zeroPoint) {
    const auto raw = static_cast<uint8_t>(data[index]);
    return (dtype == DType::Int8 ? static_cast<int8_t>(raw) : static_cast<int32_t>(raw)) - zeroPoint;
}

uint64_t total(const TilePhases& p) { return p.preload + p.stream + p.latency; }

std::string phasesText(const TilePhases& p) {
    return std::to_string(p.preload) + "/" + std::to_string(p.stream) + "/" + std::to_string(p.latency) + "/" +
           std::to_string(p.firstResult);
}

class TensorRtlCore : public hw::TensorCore {
public:
    TensorRtlCore(std::unique_ptr<ArrayDriver> array, uint32_t size, RtlLog& log)
        : array_(std::move(array)), size_(size), log_(log), counts_(log.blocks["tensor"]), model_(hw::makeModelTensorCore()) {}

    TilePhases phases(const hw::TileShape& shape, const TilePhases& model, uint32_t opId,
                          uint32_t tileId) override {
        if (!onArray(shape.dtype)) {
            ++counts_.onModel;
            return model;
        }
        auto measured = measuredPhases_.find(shape);
        if (measured == measuredPhases_.end()) {
            hw::GemmTile zeros{shape.dtype, shape.m, shape.n, shape.k, 0, 0, false, nullptr, nullptr, nullptr};
            measured = measuredPhases_.emplace(shape, run(zeros)).first;
        }
        ++counts_.onRtl;
        if (measured->second != model) {
            log_.differences.push_back({"tensor", opId, tileId, total(model), total(measured->second),
                                        "preload/stream/latency/first result: model " + phasesText(model) + ", RTL " +
                                            phasesText(measured->second)});
        }
        return measured->second;
    }

    void compute(const hw::GemmTile& tile) override {
        if (!onArray(tile.dtype)) {
            model_->compute(tile);
            return;
        }
        if (!operandsFit(tile)) {
            // Its timing was the array's; its values are beyond the array's operand width.
            --counts_.onRtl;
            ++counts_.onModel;
            model_->compute(tile);
            return;
        }
        const TilePhases phases = run(tile);
        const auto measured = measuredPhases_.find({tile.dtype, tile.m, tile.n, tile.k, tile.accumulate});
        if (measured != measuredPhases_.end() && measured->second != phases) {
            throw std::logic_error("RTL tensor core: a tile's phases depend on its values");
        }
    }

private:
    /// Clocks one tile through the array (values from `tile` when it has operands, zeros
    /// otherwise), writes its results into tile.c and returns the phases counted.
    TilePhases run(const hw::GemmTile& tile) {
        if (tile.k > size_ || tile.n > size_) throw std::logic_error("RTL tensor core: tile larger than the array");
        std::vector<int32_t> operands(size_, 0);
        TilePhases phases;
        for (uint32_t p = 0; p < tile.k; ++p) {
            for (uint32_t c = 0; c < size_; ++c) {
                operands[c] = tile.b && c < tile.n ? operand(tile.b, size_t{p} * tile.n + c, tile.dtype, tile.bZeroPoint) : 0;
            }
            array_->preload(true, p, operands);
            array_->tick();
            ++phases.preload;
        }
        array_->preload(false, 0, std::vector<int32_t>(size_, 0));

        // Row i's result leaves column c as that column's i-th valid flag.
        std::vector<uint32_t> received(size_, 0);
        const auto collect = [&](uint64_t cycle, uint64_t streamStart) {
            for (uint32_t c = 0; c < size_; ++c) {
                if (!array_->valid(c)) continue;
                if (received[0] == 0 && c == 0) phases.firstResult = cycle - streamStart;
                const uint32_t row = received[c]++;
                if (tile.c && c < tile.n && row < tile.m) {
                    std::byte* slot = tile.c + (size_t{row} * tile.n + c) * 4;
                    uint32_t sum = static_cast<uint32_t>(array_->result(c));
                    if (tile.accumulate) {
                        uint32_t held = 0;
                        std::memcpy(&held, slot, 4);
                        sum += held;
                    }
                    std::memcpy(slot, &sum, 4);
                }
            }
        };
        const uint64_t streamStart = array_->cycles();
        for (uint32_t i = 0; i < tile.m; ++i) {
            for (uint32_t r = 0; r < size_; ++r) {
                operands[r] = tile.a && r < tile.k ? operand(tile.a, size_t{i} * tile.k + r, tile.dtype, tile.aZeroPoint) : 0;
            }
            array_->stream(true, i == 0, operands);
            array_->tick();
            ++phases.stream;
            collect(array_->cycles(), streamStart);
        }
        array_->stream(false, false, std::vector<int32_t>(size_, 0));
        const uint64_t streamEnd = array_->cycles();
        // Drain until the last row has left the last column.
        while (received[size_ - 1] < tile.m) {
            array_->tick();
            collect(array_->cycles(), streamStart);
            if (array_->cycles() - streamEnd > 4 * uint64_t{size_} + 16) {
                throw std::logic_error("RTL tensor core: the array did not drain");
            }
        }
        phases.latency = array_->cycles() - streamEnd;
        counts_.clockCycles = array_->cycles();
        return phases;
    }

    std::unique_ptr<ArrayDriver> array_;
    uint32_t size_;
    RtlLog& log_;
    RtlBlockCounts& counts_;
    std::unique_ptr<hw::TensorCore> model_;
    std::map<hw::TileShape, TilePhases> measuredPhases_;
};

}  // namespace

std::vector<uint32_t> builtArraySizes() { return {8, 16, 32}; }

std::unique_ptr<hw::TensorCore> makeTensorRtlCore(const ArchConfig& config, RtlLog& log,
                                                  const std::string& vcdPath) {
    const TensorUnitConfig& t = config.tensor;
    std::string sizes;
    for (uint32_t size : builtArraySizes()) sizes += (sizes.empty() ? "" : ", ") + std::to_string(size) + "x" + std::to_string(size);
    if (t.dataflow != Dataflow::WeightStationary) {
        throw InputError("--rtl tensor: the RTL systolic arrays (" + sizes + ") are weight stationary, but arch '" +
                         config.name + "' has tensor.dataflow output_stationary");
    }
    std::unique_ptr<ArrayDriver> array;
    if (t.rows == t.cols && t.rows == 8) array = std::make_unique<VerilatedArray<Vsystolic_array_8>>(8, vcdPath);
    if (t.rows == t.cols && t.rows == 16) array = std::make_unique<VerilatedArray<Vsystolic_array_16>>(16, vcdPath);
    if (t.rows == t.cols && t.rows == 32) array = std::make_unique<VerilatedArray<Vsystolic_array_32>>(32, vcdPath);
    if (!array) {
        throw InputError("--rtl tensor: no RTL array of " + std::to_string(t.rows) + "x" + std::to_string(t.cols) +
                         " (arch '" + config.name + "') is built; built: " + sizes);
    }
    return std::make_unique<TensorRtlCore>(std::move(array), t.rows, log);
}

}  // namespace npusim::rtl
