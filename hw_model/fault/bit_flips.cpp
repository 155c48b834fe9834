#include "hw_model/fault/bit_flips.h"

namespace npusim::hw {

void BitFlips::flip(uint64_t address, int bit, std::byte* byte) {
    const auto mask = static_cast<uint8_t>(1u << bit);
    flipped_[address] ^= mask;
    if (byte) *byte ^= std::byte{mask};
}

std::map<uint64_t, uint8_t> BitFlips::take(uint64_t address, const BlockShape& shape) {
    std::map<uint64_t, uint8_t> covered;
    for (auto it = flipped_.lower_bound(address); it != flipped_.end() && it->first < address + shape.extent();) {
        const uint64_t offset = it->first - address;
        if (offset % shape.stride < shape.rowBytes) {
            covered.insert(*it);
            it = flipped_.erase(it);
        } else {
            ++it;
        }
    }
    return covered;
}

bool BitFlips::covers(uint64_t address, const BlockShape& shape) const {
    for (auto it = flipped_.lower_bound(address); it != flipped_.end() && it->first < address + shape.extent(); ++it) {
        if ((it->first - address) % shape.stride < shape.rowBytes) return true;
    }
    return false;
}

}  // namespace npusim::hw
