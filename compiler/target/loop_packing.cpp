// Loop packing, level by level: the first level folds runs of commands, each further level
// runs of what the level before left (commands and loops), so that a tile nest becomes a
// loop nest. At each position the period (up to kMaxPeriod items) that saves the most
// descriptors wins.
#include "compiler/target/loop_packing.h"

#include <algorithm>
#include <optional>

#include "arch/isa_loops.h"

namespace npusim::compiler {
namespace {

using isa::Command;
using isa::Field;
using isa::Opcode;
using isa::StepField;

/// Longest period, in items, a level looks for.
constexpr size_t kMaxPeriod = 32;
/// Steps are 48-bit signed values.
constexpr int64_t kStepLimit = int64_t{1} << 47;

/// A run of descriptors that packs as one unit: a command, or a whole loop.
struct Item {
    uint32_t begin = 0, end = 0;
    int32_t depth = 0;  ///< loops nested in it
    size_t size() const { return end - begin; }
};

/// One field of one descriptor that differs between two repetitions.
struct Diff {
    size_t at = 0;  ///< descriptor offset in the item
    StepField field = StepField::None;
    int64_t value = 0;
    bool operator==(const Diff&) const = default;
};

struct Address {
    StepField step;
    Field field;
};

std::span<const Address> addressesOf(Opcode opcode) {
    static constexpr Address kDma[] = {{StepField::Dram, Field::DramAddr}, {StepField::Addr, Field::OnchipAddr}};
    static constexpr Address kGemm[] = {{StepField::A, Field::AAddr}, {StepField::B, Field::BAddr}, {StepField::C, Field::CAddr}};
    static constexpr Address kVector[] = {{StepField::Dst, Field::DstAddr}, {StepField::Src0, Field::Src0Addr},
                                          {StepField::Src1, Field::Src1Addr}};
    switch (opcode) {
        case Opcode::DmaLoad:
        case Opcode::DmaStore: return kDma;
        case Opcode::Gemm: return kGemm;
        case Opcode::Vector: return kVector;
        default: return {};
    }
}

bool record(std::vector<Diff>& diffs, size_t at, StepField field, uint64_t from, uint64_t to) {
    if (from == to) return true;
    const auto value = static_cast<int64_t>(to - from);
    if (value < -kStepLimit || value >= kStepLimit) return false;
    diffs.push_back({at, field, value});
    return true;
}

/// Appends how `b` differs from `a`; false when it differs other than in steppable fields.
bool diff(const Command& a, const Command& b, size_t at, std::vector<Diff>& diffs) {
    if (a.opcode != b.opcode || a.kind != b.kind || a.opId != b.opId) return false;
    if (a.opcode == Opcode::Loop || a.opcode == Opcode::Step || a.opcode == Opcode::End) return a == b;
    if (!record(diffs, at, StepField::Tile, a.tileId, b.tileId)) return false;
    Command aligned = b;
    aligned.tileId = a.tileId;
    for (const Address& address : addressesOf(a.opcode)) {
        if (!record(diffs, at, address.step, a.get(address.field), b.get(address.field))) return false;
        aligned.set(address.field, a.get(address.field));
    }
    return aligned == a;
}

/// What two descriptors must share to repeat one another: all but the tile id and the
/// addresses of a command (everything of a loop's own descriptors).
uint64_t signature(const Command& d) {
    uint64_t h = std::hash<uint64_t>{}(static_cast<uint64_t>(d.opcode) | uint64_t{static_cast<uint8_t>(d.kind)} << 8 |
                                       uint64_t{d.opId} << 16);
    const auto mix = [&h](uint64_t v) { h ^= std::hash<uint64_t>{}(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
    Command masked = d;
    if (d.opcode != Opcode::Loop && d.opcode != Opcode::Step) {
        masked.tileId = 0;
        for (const Address& address : addressesOf(d.opcode)) masked.set(address.field, 0);
    }
    mix(masked.tileId);
    for (uint64_t v : masked.values) mix(v);
    return h;
}

class Level {
public:
    Level(std::span<const Command> descriptors, std::span<const Item> items) : in_(descriptors), items_(items) {
        signatures_.reserve(items.size());
        for (const Item& item : items) {
            uint64_t h = item.size();
            for (size_t k = item.begin; k < item.end; ++k) h = h * 0x100000001b3ull ^ signature(in_[k]);
            signatures_.push_back(h);
        }
    }

    /// Packs one level; false when no run was worth a loop.
    bool run(std::vector<Command>& out, std::vector<Item>& outItems) {
        bool packed = false;
        for (size_t i = 0; i < items_.size();) {
            if (const std::optional<Run> best = bestRun(i)) {
                emitLoop(i, *best, out, outItems);
                i += best->period * best->count;
                packed = true;
            } else {
                const Item& item = items_[i];
                const auto begin = static_cast<uint32_t>(out.size());
                outItems.push_back({begin, static_cast<uint32_t>(begin + item.size()), item.depth});
                out.insert(out.end(), in_.begin() + static_cast<std::ptrdiff_t>(item.begin),
                           in_.begin() + static_cast<std::ptrdiff_t>(item.end));
                ++i;
            }
        }
        return packed;
    }

private:
    struct Run {
        size_t period = 0, count = 0, bodyLength = 0, stepDescriptors = 0;
        int depth = 0;
        int64_t saved = 0;
    };

    bool itemDiff(size_t x, size_t y, std::vector<Diff>& diffs) const {
        const Item& a = items_[x];
        const Item& b = items_[y];
        if (signatures_[x] != signatures_[y] || a.size() != b.size()) return false;
        diffs.clear();
        for (size_t k = 0; k < a.size(); ++k) {
            if (!diff(in_[a.begin + k], in_[b.begin + k], k, diffs)) return false;
        }
        return true;
    }

    std::optional<Run> bestRun(size_t i) const {
        std::optional<Run> best;
        std::vector<std::vector<Diff>> steps;
        std::vector<Diff> scratch;
        size_t bodyLength = 0;
        int depth = 0;
        for (size_t period = 1; period <= kMaxPeriod && i + 2 * period <= items_.size(); ++period) {
            bodyLength += items_[i + period - 1].size();
            depth = std::max(depth, items_[i + period - 1].depth + 1);
            if (1 + bodyLength > isa::kMaxLoopDescriptors) break;
            if (depth > isa::kMaxLoopDepth) continue;
            // A multiple of a period that already repeats folds the same run with a longer body.
            if (best && period % best->period == 0) continue;
            steps.assign(period, {});
            bool periodic = true;
            for (size_t j = 0; j < period && periodic; ++j) periodic = itemDiff(i + j, i + period + j, steps[j]);
            if (!periodic) continue;
            size_t count = 2;
            for (; i + (count + 1) * period <= items_.size(); ++count) {
                bool same = true;
                for (size_t j = 0; j < period && same; ++j) {
                    same = itemDiff(i + (count - 1) * period + j, i + count * period + j, scratch) && scratch == steps[j];
                }
                if (!same) break;
            }
            size_t entries = 0;
            for (const auto& s : steps) entries += s.size();
            const size_t stepDescriptors = (entries + isa::kStepsPerDescriptor - 1) / isa::kStepsPerDescriptor;
            const size_t extent = 1 + bodyLength + stepDescriptors;
            if (extent > isa::kMaxLoopDescriptors) continue;
            const int64_t saved = static_cast<int64_t>(count * bodyLength) - static_cast<int64_t>(extent);
            if (saved > 0 && (!best || saved > best->saved)) best = Run{period, count, bodyLength, stepDescriptors, depth, saved};
        }
        return best;
    }

    void emitLoop(size_t i, const Run& run, std::vector<Command>& out, std::vector<Item>& outItems) const {
        const size_t begin = out.size();
        Command header;
        header.opcode = Opcode::Loop;
        header.kind = isa::CommandKind::Sync;
        header.opId = isa::kNoOp;
        header.set(Field::LoopCount, run.count).set(Field::LoopBody, run.bodyLength).set(Field::LoopSteps, run.stepDescriptors);
        out.push_back(header);
        std::vector<Diff> entries, diffs;
        for (size_t j = 0; j < run.period; ++j) {
            itemDiff(i + j, i + run.period + j, diffs);
            const size_t offset = out.size() - begin - 1;
            for (Diff d : diffs) {
                d.at += offset;
                entries.push_back(d);
            }
            const Item& item = items_[i + j];
            out.insert(out.end(), in_.begin() + static_cast<std::ptrdiff_t>(item.begin),
                       in_.begin() + static_cast<std::ptrdiff_t>(item.end));
        }
        for (size_t e = 0; e < entries.size(); e += isa::kStepsPerDescriptor) {
            Command step;
            step.opcode = Opcode::Step;
            step.kind = isa::CommandKind::Sync;
            step.opId = isa::kNoOp;
            for (size_t k = 0; k < isa::kStepsPerDescriptor && e + k < entries.size(); ++k) {
                const auto part = [&](int p) { return static_cast<Field>(static_cast<int>(Field::StepTarget0) + 3 * static_cast<int>(k) + p); };
                step.set(part(0), entries[e + k].at);
                step.set(part(1), static_cast<uint64_t>(entries[e + k].field));
                step.setSigned(part(2), entries[e + k].value);
            }
            out.push_back(step);
        }
        outItems.push_back({static_cast<uint32_t>(begin), static_cast<uint32_t>(out.size()), run.depth});
    }

    std::span<const Command> in_;
    std::span<const Item> items_;
    std::vector<uint64_t> signatures_;  ///< of each item, equal for items that may repeat one another
};

}  // namespace

std::vector<Command> packLoops(std::span<const Command> commands) {
    std::vector<Item> items(commands.size());
    for (size_t i = 0; i < commands.size(); ++i) items[i] = {static_cast<uint32_t>(i), static_cast<uint32_t>(i + 1), 0};
    std::vector<Command> descriptors;
    std::vector<Item> packedItems;
    if (!Level(commands, items).run(descriptors, packedItems)) return {commands.begin(), commands.end()};
    items = std::move(packedItems);
    for (int level = 1; level < isa::kMaxLoopDepth; ++level) {
        std::vector<Command> packed;
        std::vector<Item> next;
        if (!Level(descriptors, items).run(packed, next)) break;
        descriptors = std::move(packed);
        items = std::move(next);
    }
    return descriptors;
}

}  // namespace npusim::compiler
