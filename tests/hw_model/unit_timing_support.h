// Commands, byte conversions and the fixture of the unit timing tests (unit_timing_test.cpp,
// dma_timing_test.cpp): single commands on the `edge` preset, their cycles derived in each
// test's comment from the unit's parameters: 800 MHz; DRAM 16 B/cycle, 56 cycles of controller
// latency, 12 to activate a row (tRCD), 12 to precharge one (tRP), 12 for a column access
// (tCAS): a first access to a bank has its data 80 cycles after issue; DMA bursts of 64 B, 32
// outstanding; SRAM 16 banks x 16 B, accumulator 8 banks x 16 B; 16x16 array with int8 at 1
// and fp32 at 4 cycles per row; vector unit 16 lanes, 4 pipeline stages.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "arch/arch_config.h"
#include "unit_harness.h"

namespace npusim::test {

using isa::Command;
using isa::Field;
using Memory = UnitHarness::Memory;

inline Command dma(isa::Opcode opcode, uint64_t dram, uint64_t onchip, uint64_t rows, uint64_t rowBytes,
            isa::MemorySpace space = isa::MemorySpace::Sram) {
    Command c;
    c.opcode = opcode;
    c.kind = opcode == isa::Opcode::DmaLoad ? isa::CommandKind::Load : isa::CommandKind::Store;
    c.set(Field::DramAddr, dram).set(Field::OnchipAddr, onchip).set(Field::Rows, rows);
    c.set(Field::RowBytes, rowBytes).set(Field::DramStride, rowBytes).set(Field::OnchipStride, rowBytes);
    c.set(Field::Space, static_cast<uint64_t>(space));
    return c;
}

inline Command gemm(DType dtype, uint64_t m, uint64_t n, uint64_t k, uint64_t a, uint64_t b, bool accumulate) {
    Command c;
    c.opcode = isa::Opcode::Gemm;
    c.kind = isa::CommandKind::Compute;
    c.set(Field::AAddr, a).set(Field::BAddr, b).set(Field::CAddr, 0);
    c.set(Field::M, m).set(Field::N, n).set(Field::K, k).set(Field::DType, static_cast<uint64_t>(dtype));
    c.set(Field::AStride, k).set(Field::BStride, n).set(Field::CStride, n);
    c.set(Field::Accumulate, accumulate ? 1 : 0);
    return c;
}

inline Command semaphore(isa::Opcode opcode, isa::Queue queue, uint64_t sem) {
    Command c;
    c.opcode = opcode;
    c.kind = isa::CommandKind::Sync;
    c.set(Field::Queue, static_cast<uint64_t>(queue)).set(Field::Semaphore, sem);
    return c;
}

template <class T>
std::vector<std::byte> bytesOf(const std::vector<T>& values) {
    std::vector<std::byte> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

template <class T>
std::vector<T> valuesOf(const std::vector<std::byte>& bytes) {
    std::vector<T> values(bytes.size() / sizeof(T));
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
}

class UnitTiming : public ::testing::Test {
protected:
    UnitHarness harness{"harness", loadArchConfig("edge", {})};
};

}  // namespace npusim::test
