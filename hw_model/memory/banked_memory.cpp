// Banked memory: data storage plus per-bank occupancy for conflict timing.
#include "hw_model/memory/banked_memory.h"

#include <algorithm>
#include <cstring>

#include "hw_model/common/access_extension.h"

namespace npusim::hw {

BankedMemory::BankedMemory(sc_core::sc_module_name name, const MemoryConfig& config,
                           const Clock& clock)
    : sc_module(name),
      tSocket("tSocket"),
      config_(config),
      clock_(clock),
      storage_(config.sizeBytes, std::byte{0}),
      bankFreeAt_(config.banks, sc_core::SC_ZERO_TIME),
      bankOwner_(config.banks, -1) {
    tSocket.register_b_transport(this, &BankedMemory::b_transport);
}

std::vector<uint64_t> BankedMemory::bankLoad(uint64_t address, uint64_t rows, uint64_t rowBytes,
                                             uint64_t stride) const {
    std::vector<uint64_t> perBank(config_.banks, 0);
    for (uint64_t r = 0; r < rows; ++r) countRow(address + r * stride, rowBytes, perBank);
    return perBank;
}

uint64_t BankedMemory::cyclesFor(const std::vector<uint64_t>& perBank) const {
    const uint64_t busiest = *std::max_element(perBank.begin(), perBank.end());
    return (busiest + config_.ports - 1) / config_.ports;
}

void BankedMemory::countRow(uint64_t address, uint64_t bytes, std::vector<uint64_t>& perBank) const {
    if (bytes == 0) return;
    const uint64_t width = config_.bankWidthBytes;
    const uint64_t banks = config_.banks;
    const uint64_t firstChunk = address / width;
    const uint64_t chunks = (address + bytes - 1) / width - firstChunk + 1;
    const uint64_t firstBank = firstChunk % banks;
    for (uint64_t b = 0; b < banks; ++b) {
        // Chunks firstChunk .. firstChunk+chunks-1 land on bank (firstBank + i) % banks.
        const uint64_t offset = (b + banks - firstBank) % banks;
        if (offset < chunks) perBank[b] += (chunks - offset + banks - 1) / banks;
    }
}

uint64_t BankedMemory::accessCycles(uint64_t address, uint64_t rows, uint64_t rowBytes,
                                    uint64_t stride) const {
    return cyclesFor(bankLoad(address, rows, rowBytes, stride));
}

void BankedMemory::b_transport(int initiatorSocket, tlm::tlm_generic_payload& payload,
                               sc_core::sc_time& delay) {
    const Block2d* block = Block2d::of(payload);
    const uint64_t rows = block ? block->rows : 1;
    const uint64_t rowBytes = block ? block->rowBytes : payload.get_data_length();
    const uint64_t stride = block ? block->stride : rowBytes;
    const uint64_t address = payload.get_address();
    const uint64_t lastByte = address + (rows - 1) * stride + rowBytes;
    if (rows == 0 || rowBytes == 0 || lastByte > storage_.size() || lastByte < address) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }

    // Data.
    auto* data = reinterpret_cast<std::byte*>(payload.get_data_ptr());
    for (uint64_t r = 0; r < rows; ++r) {
        std::byte* cell = storage_.data() + address + r * stride;
        if (payload.is_read()) {
            std::memcpy(data + r * rowBytes, cell, rowBytes);
        } else {
            std::memcpy(cell, data + r * rowBytes, rowBytes);
        }
    }

    // Timing: the access starts when every bank it needs is free, and holds those banks for
    // as many cycles as its busiest bank needs.
    AccessTag* tag = AccessTag::of(payload);
    const int owner = tag ? tag->initiator : -1 - initiatorSocket;
    const std::vector<uint64_t> perBank = bankLoad(address, rows, rowBytes, stride);
    const uint64_t cycles = cyclesFor(perBank);

    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time issue = now + delay;
    sc_core::sc_time startForOthers = issue, start = issue;
    for (size_t b = 0; b < perBank.size(); ++b) {
        if (perBank[b] == 0) continue;
        start = std::max(start, bankFreeAt_[b]);
        if (bankOwner_[b] != owner) startForOthers = std::max(startForOthers, bankFreeAt_[b]);
    }
    const sc_core::sc_time end = start + clock_.cycles(cycles);
    for (size_t b = 0; b < perBank.size(); ++b) {
        if (perBank[b] == 0) continue;
        bankFreeAt_[b] = end;
        bankOwner_[b] = owner;
    }
    if (tag) tag->contentionCycles += clock_.toCyclesCeil(startForOthers - issue);
    delay = end - now;
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace npusim::hw
