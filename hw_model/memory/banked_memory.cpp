// Banked memory: data storage plus per-bank occupancy for conflict timing.
#include "hw_model/memory/banked_memory.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>

#include "hw_model/common/access_extension.h"

namespace npusim::hw {

BankedMemory::BankedMemory(sc_core::sc_module_name name, const MemoryConfig& config,
                           const Clock& clock)
    : sc_module(name),
      tSocket("tSocket"),
      config_(config),
      clock_(clock),

      banks_(config.banks),
      perBank_(config.banks, 0),
      widthShift_(std::countr_zero(config.bankWidthBytes)),
      banksShift_(std::has_single_bit(config.banks) ? std::countr_zero(config.banks) : -1) {
    tSocket.bind(*this);
}

void BankedMemory::bankLoad(uint64_t address, uint64_t rows, uint64_t rowBytes, uint64_t stride) {
    if (rows == 1) {  // most accesses (a DMA burst): no period to find
        addRow(address, rowBytes, 1);
        return;
    }
    // Rows at most a bank word apart (a strided burst's elements) leave no word between the
    // first's start and the last's end untouched, and one access reads each word once, however
    // many of its bytes it takes.
    if (stride <= config_.bankWidthBytes) {
        addRow(address, (rows - 1) * stride + rowBytes, 1);
        return;
    }
    // A row's banks depend only on its start modulo the interleave period, which repeats
    // every `cycle` rows: count those rows once, weighted by how often each recurs.
    const uint64_t period = uint64_t{config_.banks} * config_.bankWidthBytes;
    const uint64_t cycle = period / std::gcd(stride % period, period);
    for (uint64_t r = 0; r < std::min(rows, cycle); ++r) {
        addRow(address + r * stride, rowBytes, (rows - r + cycle - 1) / cycle);
    }
}

void BankedMemory::addRow(uint64_t address, uint64_t bytes, uint64_t repeats) {
    if (bytes == 0) return;
    const uint64_t banks = config_.banks;
    const uint64_t firstChunk = address >> widthShift_;  // the width is a power of two
    const uint64_t chunks = ((address + bytes - 1) >> widthShift_) - firstChunk + 1;
    // Chunks firstChunk .. firstChunk+chunks-1 land on bank (firstBank + i) % banks: every
    // bank gets chunks / banks of them, and the banks after firstBank one more for the rest.
    // (A power-of-two bank count, as every preset has, divides by shifting.)
    const uint64_t firstBank = banksShift_ >= 0 ? firstChunk & (banks - 1) : firstChunk % banks;
    const uint64_t each = banksShift_ >= 0 ? chunks >> banksShift_ : chunks / banks;
    const uint64_t rest = chunks - each * banks;
    if (each > 0) {
        for (uint64_t bank = 0; bank < banks; ++bank) addChunks(bank, each * repeats);
    }
    for (uint64_t i = 0; i < rest; ++i) {
        const uint64_t bank = firstBank + i;
        addChunks(bank < banks ? bank : bank - banks, repeats);
    }
}

void BankedMemory::addChunks(uint64_t bank, uint64_t chunks) {
    if (perBank_[bank] == 0) touched_.push_back(static_cast<uint32_t>(bank));
    perBank_[bank] += chunks;
}

bool BankedMemory::copyBlock(tlm::tlm_generic_payload& payload, const BlockShape& shape) {
    const uint64_t address = payload.get_address();
    if (!shape.fits(address, config_.sizeBytes)) return false;
    auto* data = reinterpret_cast<std::byte*>(payload.get_data_ptr());
    if (!data) return true;  // timing only: no data moves
    if (storage_.empty()) storage_ = ZeroedRegion(config_.sizeBytes);  // on first use
    for (uint64_t r = 0; r < shape.rows; ++r) {
        std::byte* cell = storage_.data() + address + r * shape.stride;
        if (payload.is_read()) {
            std::memcpy(data + r * shape.rowBytes, cell, shape.rowBytes);
        } else {
            std::memcpy(cell, data + r * shape.rowBytes, shape.rowBytes);
        }
    }
    return true;
}

unsigned int BankedMemory::transport_dbg(tlm::tlm_generic_payload& payload) {
    if (!copyBlock(payload, blockShapeOf(payload))) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return 0;
    }
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    return payload.get_data_length();
}

void BankedMemory::b_transport(tlm::tlm_generic_payload& payload,
                               sc_core::sc_time& delay) {
    const BlockShape shape = blockShapeOf(payload);
    if (flips_.covers(payload.get_address(), shape)) {
        if (payload.is_read()) {
            payload.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);  // the parity check fails
            return;
        }
        flips_.take(payload.get_address(), shape);  // rewritten: fresh parity
    }
    if (!copyBlock(payload, shape)) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    // Timing: each bank serves its chunks, `ports` per cycle, in the cycles it has free from
    // the issue time on; the access is done when its busiest bank is.
    AccessTag* tag = AccessTag::of(payload);
    const int owner = tag ? tag->initiator : kUntaggedOwner;
    bankLoad(payload.get_address(), shape.rows, shape.rowBytes, shape.stride);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const uint64_t issue = (now + delay).value();
    uint64_t end = issue, waited = 0;
    for (const uint32_t b : touched_) {
        banks_[b].forgetBefore(now.value());
        const uint64_t ports = config_.ports;
        const uint64_t cycles = ports == 1 ? perBank_[b] : (perBank_[b] + ports - 1) / ports;  // no division per bank on one port
        perBank_[b] = 0;
        const ResourceTimeline::Grant grant = banks_[b].use(issue, clock_.cyclesToUnits(cycles), owner);
        end = std::max(end, grant.end);
        waited = std::max(waited, grant.waitedForOthers);
    }
    touched_.clear();
    if (tag) tag->contentionCycles += clock_.unitsToCyclesCeil(waited);
    delay = sc_core::sc_time::from_value(end) - now;
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void BankedMemory::flipBit(uint64_t address, int bit) {
    if (address >= config_.sizeBytes) return;
    flips_.flip(address, bit, storage_.empty() ? nullptr : storage_.data() + address);
}

uint64_t BankedMemory::scrub() {
    storage_ = ZeroedRegion();  // zeroes again on the next data access
    flips_.clear();
    const uint64_t perCycle = uint64_t{config_.banks} * config_.bankWidthBytes;
    return (config_.sizeBytes + perCycle - 1) / perCycle;
}

}  // namespace npusim::hw
