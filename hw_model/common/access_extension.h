// Side-band data of a memory transaction, carried in typed TLM extensions: who issued it and
// for which command (AccessTag), and the 2D block it covers (Block2d).
#pragma once

#include <cstdint>

#include <tlm>

#include "arch/isa.h"

namespace npusim::hw {

/// Who accesses memory and why; the target reports back how long it made the access wait
/// for resources held by other initiators.
class AccessTag : public tlm::tlm_extension<AccessTag> {
public:
    uint16_t initiator = 0;  ///< trace unit index of the issuing unit
    uint32_t opId = 0, tileId = 0;
    isa::CommandKind kind = isa::CommandKind::Compute;
    /// Out: cycles this access waited for a bank or bus held by another initiator.
    uint64_t contentionCycles = 0;

    tlm::tlm_extension_base* clone() const override { return new AccessTag(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const AccessTag&>(other);
    }
    static AccessTag* of(tlm::tlm_generic_payload& payload) {
        return payload.get_extension<AccessTag>();
    }
};

/// The owner, in resource timelines, of an access without an AccessTag (the host's).
inline constexpr int kUntaggedOwner = -1;

/// A strided 2D access: `rows` rows of `rowBytes` bytes, `stride` bytes apart in the target,
/// packed back to back in the payload's data buffer. Without it an access is linear.
class Block2d : public tlm::tlm_extension<Block2d> {
public:
    uint64_t rows = 1, rowBytes = 0, stride = 0;

    tlm::tlm_extension_base* clone() const override { return new Block2d(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const Block2d&>(other);
    }
    static Block2d* of(tlm::tlm_generic_payload& payload) {
        return payload.get_extension<Block2d>();
    }
};

/// The rows a payload covers: its Block2d, or one linear row.
struct BlockShape {
    uint64_t rows = 1, rowBytes = 0, stride = 0;
    /// Bytes from the first to the last byte touched.
    uint64_t extent() const { return rows == 0 ? 0 : (rows - 1) * stride + rowBytes; }
    /// True when the block is non-empty and lies inside [0, size) starting at `address`.
    bool fits(uint64_t address, uint64_t size) const {
        return rows > 0 && rowBytes > 0 && extent() <= size && address <= size - extent();
    }
};

inline BlockShape blockShapeOf(tlm::tlm_generic_payload& payload) {
    if (const Block2d* block = Block2d::of(payload)) return {block->rows, block->rowBytes, block->stride};
    return {1, payload.get_data_length(), payload.get_data_length()};
}

}  // namespace npusim::hw
