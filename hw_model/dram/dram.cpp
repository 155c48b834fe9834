// DRAM storage and bandwidth/latency timing.
#include "hw_model/dram/dram.h"

#include <algorithm>
#include <cstring>

#include "hw_model/common/access_extension.h"

namespace npusim::hw {

Dram::Dram(sc_core::sc_module_name name, const DramConfig& config, const Clock& clock)
    : sc_module(name), tSocket("tSocket"), config_(config), clock_(clock), timing_(config, clock.period().value()) {
    tSocket.bind(*this);
}

void Dram::copy(uint64_t address, std::byte* data, uint64_t bytes, bool read) {
    while (bytes > 0) {
        const uint64_t page = address / kPageBytes;
        const uint64_t offset = address % kPageBytes;
        const uint64_t chunk = std::min(bytes, kPageBytes - offset);
        auto it = pages_.find(page);
        if (read) {
            if (it == pages_.end()) {
                std::memset(data, 0, chunk);  // never written: reads as zero
            } else {
                std::memcpy(data, it->second.data() + offset, chunk);
            }
        } else {
            if (it == pages_.end()) {
                it = pages_.emplace(page, ZeroedRegion(kPageBytes)).first;
            }
            std::memcpy(it->second.data() + offset, data, chunk);
        }
        address += chunk;
        data += chunk;
        bytes -= chunk;
    }
}

bool Dram::copyBlock(tlm::tlm_generic_payload& payload) {
    const BlockShape shape = blockShapeOf(payload);
    const uint64_t address = payload.get_address();
    if (!shape.fits(address, config_.sizeBytes)) return false;
    auto* data = reinterpret_cast<std::byte*>(payload.get_data_ptr());
    if (data) {  // timing only: no data moves
        for (uint64_t r = 0; r < shape.rows; ++r) {
            copy(address + r * shape.stride, data + r * shape.rowBytes, shape.rowBytes, payload.is_read());
        }
    }
    // ECC: a read corrects a flipped bit in what it returns and in the stored word; a write
    // stores fresh check bits.
    if (!flips_.empty()) {
        for (const auto& [flipped, mask] : flips_.take(address, shape)) {
            if (!payload.is_read()) continue;
            ++correctedErrors_;
            if (!data) continue;
            const uint64_t offset = flipped - address;
            data[offset / shape.stride * shape.rowBytes + offset % shape.stride] ^= std::byte{mask};
            std::byte value{};
            copy(flipped, &value, 1, true);
            value ^= std::byte{mask};
            copy(flipped, &value, 1, false);
        }
    }
    return true;
}

void Dram::flipBit(uint64_t address, int bit) {
    if (address >= config_.sizeBytes) return;
    std::byte value{};
    copy(address, &value, 1, true);
    copy(address, &value, 1, false);  // the stored byte exists from here on
    const uint64_t page = address / kPageBytes;
    flips_.flip(address, bit, pages_.at(page).data() + address % kPageBytes);
}

unsigned int Dram::transport_dbg(tlm::tlm_generic_payload& payload) {
    if (!copyBlock(payload)) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return 0;
    }
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    return payload.get_data_length();
}

void Dram::b_transport(tlm::tlm_generic_payload& payload,
                       sc_core::sc_time& delay) {
    if (!copyBlock(payload)) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    // A strided block (a DMA's gather) moves every byte from its first to its last over the
    // bus: a burst is not sparse.
    const uint64_t bytes = blockShapeOf(payload).extent();
    AccessTag* tag = AccessTag::of(payload);
    if (tag) {
        (payload.is_read() ? bytesRead_ : bytesWritten_) += bytes;
        ++transactions_;
    }

    // Timing: banks, row buffers and channel buses (DramTiming).
    const int owner = tag ? tag->initiator : kUntaggedOwner;
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    timing_.forgetBefore(now.value());
    const DramTiming::Result result = timing_.access((now + delay).value(), payload.get_address(), bytes, owner);
    if (tag) tag->contentionCycles += clock_.unitsToCyclesCeil(result.waitedForOthers);
    delay = sc_core::sc_time::from_value(result.end) - now;
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace npusim::hw
