// Bits an injected fault flipped in a memory, until the memory notices (a read: ECC corrects
// it, parity reports it) or overwrites them (a write stores fresh check bits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

#include "hw_model/common/access_extension.h"

namespace npusim::hw {

class BitFlips {
public:
    /// Flips bit `bit` of the byte at `address`; `byte` is the stored byte (null when the
    /// memory holds no data: timing only).
    void flip(uint64_t address, int bit, std::byte* byte);
    /// The flipped bits a block at `address` of `shape` covers, removed: address -> bit mask.
    std::map<uint64_t, uint8_t> take(uint64_t address, const BlockShape& shape);
    /// Whether the block covers a flipped bit.
    bool covers(uint64_t address, const BlockShape& shape) const;
    bool empty() const { return flipped_.empty(); }
    void clear() { flipped_.clear(); }

private:
    std::map<uint64_t, uint8_t> flipped_;  ///< address -> flipped bits
};

}  // namespace npusim::hw
