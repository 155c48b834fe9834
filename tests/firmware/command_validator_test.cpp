// The firmware's command validation: every error code from the command that causes it.
#include <gtest/gtest.h>

#include "arch/arch_config.h"
#include "firmware/command_validator.h"

namespace npusim::firmware {
namespace {

using isa::Field;
using regs::ErrorCode;

class Validator : public ::testing::Test {
protected:
    const ArchConfig edge = loadArchConfig("edge", {});
    static constexpr uint64_t kWindow = 1 << 20;

    ErrorCode check(const std::string& line) const {
        return validateCommand(isa::assemble(line), edge, kWindow);
    }
};

TEST_F(Validator, AcceptsWellFormedCommands) {
    EXPECT_EQ(check("dma.load dram=0x0 space=sram addr=0x0 rows=16 row_bytes=64 dram_stride=64 stride=64"),
              ErrorCode::None);
    EXPECT_EQ(check("gemm a=0x0 b=0x1000 c=0x0 m=64 n=16 k=16 dtype=int8 a_stride=16 b_stride=16 c_stride=16"),
              ErrorCode::None);
    EXPECT_EQ(check("vec func=relu dtype=fp32 out=fp32 rows=4 cols=8 dst_stride=8 src0_stride=8"), ErrorCode::None);
    EXPECT_EQ(check("sem.wait queue=tensor sem=31"), ErrorCode::None);
    EXPECT_EQ(check("end"), ErrorCode::None);
}

TEST_F(Validator, DmaOutsideTheContextWindow) {
    // The last row ends one byte past the 1 MiB window.
    EXPECT_EQ(check("dma.load dram=0xfffc1 space=sram addr=0x0 rows=1 row_bytes=64 dram_stride=64 stride=64"),
              ErrorCode::DramOutOfWindow);
    EXPECT_EQ(check("dma.store dram=0x0 space=acc addr=0x0 rows=2 row_bytes=64 dram_stride=0x100000 stride=64"),
              ErrorCode::DramOutOfWindow);
    // A strided row reaches 15 x 8 + 4 bytes: its last element is one byte past the window.
    EXPECT_EQ(check("dma.load dram=0xfff85 space=sram addr=0x0 rows=1 row_bytes=64 stride=64 elem=4 elem_stride=8"),
              ErrorCode::DramOutOfWindow);
    EXPECT_EQ(check("dma.load dram=0xfff84 space=sram addr=0x0 rows=1 row_bytes=64 stride=64 elem=4 elem_stride=8"),
              ErrorCode::None);
}

TEST_F(Validator, OnchipMovesStayInsideSram) {
    // edge has 1 MiB of SRAM, and the window here is 1 MiB too: a move is checked against SRAM.
    const std::string lastRow = "dma.load dram=0xfffc0 space=acc addr=0x0 rows=1 row_bytes=64 dram_stride=64 stride=64";
    EXPECT_EQ(check(lastRow + " onchip_move=1"), ErrorCode::None);
    EXPECT_EQ(check("dma.store dram=0xfffc1 space=acc addr=0x0 rows=1 row_bytes=64 dram_stride=64 stride=64 onchip_move=1"),
              ErrorCode::OnchipOutOfRange);
    const ErrorCode small = validateCommand(isa::assemble(lastRow + " onchip_move=1"), edge, 64);
    EXPECT_EQ(small, ErrorCode::None);  // the context window does not bound a move
}

TEST_F(Validator, OnChipAccessesBeyondCapacity) {
    EXPECT_EQ(check("dma.load dram=0x0 space=sram addr=0xfffc0 rows=1 row_bytes=128 dram_stride=128 stride=128"),
              ErrorCode::OnchipOutOfRange);
    EXPECT_EQ(check("dma.load dram=0x0 space=acc addr=0xff00 rows=1 row_bytes=512 dram_stride=512 stride=512"),
              ErrorCode::OnchipOutOfRange);
    EXPECT_EQ(check("gemm a=0xfff00 b=0x0 c=0x0 m=64 n=16 k=16 dtype=int8 a_stride=16 b_stride=16 c_stride=16"),
              ErrorCode::OnchipOutOfRange);
    EXPECT_EQ(check("vec func=copy dtype=fp32 out=fp32 dst_space=acc rows=1025 cols=16 dst_stride=16 src0_stride=16"),
              ErrorCode::OnchipOutOfRange);
}

TEST_F(Validator, FieldsTheUnitsCannotExecute) {
    // n beyond the array's 16 columns, k beyond its 16 rows, strides shorter than a row.
    EXPECT_EQ(check("gemm m=4 n=17 k=16 dtype=int8 a_stride=16 b_stride=17 c_stride=17"), ErrorCode::BadField);
    EXPECT_EQ(check("gemm m=4 n=16 k=17 dtype=int8 a_stride=17 b_stride=16 c_stride=16"), ErrorCode::BadField);
    EXPECT_EQ(check("gemm m=4 n=16 k=16 dtype=int8 a_stride=8 b_stride=16 c_stride=16"), ErrorCode::BadField);
    EXPECT_EQ(check("gemm m=0 n=16 k=16 dtype=int8 a_stride=16 b_stride=16 c_stride=16"), ErrorCode::BadField);
    // A transposed tile holds A^T: m within the columns, n streams.
    EXPECT_EQ(check("gemm m=16 n=64 k=16 dtype=int8 a_stride=16 b_stride=64 c_stride=64"), ErrorCode::BadField);
    EXPECT_EQ(check("gemm m=16 n=64 k=16 dtype=int8 transpose=1 a_stride=16 b_stride=64 c_stride=64"), ErrorCode::None);
    EXPECT_EQ(check("gemm m=64 n=16 k=16 dtype=int8 transpose=1 a_stride=16 b_stride=16 c_stride=16"), ErrorCode::BadField);
    // Zero points on float operands; a transposing DMA with a partial element.
    EXPECT_EQ(check("gemm m=4 n=16 k=16 dtype=fp32 a_stride=16 b_stride=16 c_stride=16 a_zp=3"), ErrorCode::BadField);
    EXPECT_EQ(check("dma.load rows=2 row_bytes=6 dram_stride=6 stride=8 transpose=1 elem=4"), ErrorCode::BadField);
    EXPECT_EQ(check("dma.load rows=0 row_bytes=64 dram_stride=64 stride=64"), ErrorCode::BadField);
    // Strided rows: whole elements of 1, 2, 4 or 8 bytes, at least an element apart, not transposed.
    EXPECT_EQ(check("dma.load rows=2 row_bytes=64 dram_stride=256 stride=64 elem=4 elem_stride=8"), ErrorCode::None);
    EXPECT_EQ(check("dma.load rows=2 row_bytes=64 dram_stride=256 stride=64 elem=8 elem_stride=16"), ErrorCode::None);
    EXPECT_EQ(check("dma.load rows=2 row_bytes=64 dram_stride=256 stride=64 elem=3 elem_stride=6"), ErrorCode::BadField);
    EXPECT_EQ(check("dma.load rows=2 row_bytes=64 dram_stride=256 stride=64 elem_stride=8"), ErrorCode::BadField);
    EXPECT_EQ(check("dma.load rows=2 row_bytes=62 dram_stride=256 stride=64 elem=4 elem_stride=8"), ErrorCode::BadField);
    EXPECT_EQ(check("dma.load rows=2 row_bytes=64 dram_stride=256 stride=64 elem=4 elem_stride=2"), ErrorCode::BadField);
    EXPECT_EQ(check("dma.load rows=2 row_bytes=64 dram_stride=256 stride=64 elem=4 elem_stride=8 transpose=1"),
              ErrorCode::BadField);
    EXPECT_EQ(check("dma.load rows=2 row_bytes=64 dram_stride=64 stride=64 elem=4"), ErrorCode::BadField);
    EXPECT_EQ(check("vec func=add mode=full dtype=fp32 out=fp32 rows=2 cols=8 dst_stride=8 src0_stride=8 src1_stride=4"),
              ErrorCode::BadField);
}

TEST_F(Validator, UnsupportedDTypesAndSemaphores) {
    EXPECT_EQ(check("gemm m=4 n=16 k=16 dtype=int32 a_stride=16 b_stride=16 c_stride=16"),
              ErrorCode::UnsupportedDType);
    EXPECT_EQ(check("vec func=relu dtype=int8 out=int8 rows=1 cols=8 dst_stride=8 src0_stride=8"), ErrorCode::UnsupportedDType);
    EXPECT_EQ(check("sem.signal queue=load sem=32"), ErrorCode::BadSemaphore);
}

TEST_F(Validator, IndexedLoadsReachTheirWholeTableAndList) {
    // A table of 1000 rows of 64 B at 0x1000 picked by 16 int64 indices at 0x0.
    const std::string indexed = "dma.load space=sram addr=0x0 rows=16 row_bytes=64 dram_stride=64 stride=64 index=0x0 index_elem=8";
    EXPECT_EQ(check(indexed + " dram=0x1000 index_limit=1000"), ErrorCode::None);
    // The table (1000 x 64 B = 0xfa00) ends one byte past the 1 MiB window, whatever rows are picked.
    EXPECT_EQ(check(indexed + " dram=0xf0601 index_limit=1000"), ErrorCode::DramOutOfWindow);
    EXPECT_EQ(check(indexed + " dram=0xf0600 index_limit=1000"), ErrorCode::None);
    // The list's 16 x 8 bytes end one byte past it.
    EXPECT_EQ(check("dma.load space=sram addr=0x0 rows=16 row_bytes=64 dram_stride=64 stride=64 index=0xfff81 index_elem=8 "
                    "index_limit=4"),
              ErrorCode::DramOutOfWindow);
    // Index sizes other than 4 and 8, an empty table, a store, a transposing or strided row,
    // and index fields on a load that is not indexed.
    EXPECT_EQ(check(indexed + " index_limit=0"), ErrorCode::BadField);
    EXPECT_EQ(check("dma.load rows=4 row_bytes=64 dram_stride=64 stride=64 index_elem=2 index_limit=4"), ErrorCode::BadField);
    EXPECT_EQ(check("dma.store rows=4 row_bytes=64 dram_stride=64 stride=64 index_elem=4 index_limit=4"), ErrorCode::BadField);
    EXPECT_EQ(check("dma.load rows=4 row_bytes=16 dram_stride=16 stride=16 transpose=1 elem=4 index_elem=4 index_limit=4"),
              ErrorCode::BadField);
    EXPECT_EQ(check("dma.load rows=4 row_bytes=16 stride=16 elem=4 elem_stride=8 index_elem=4 index_limit=4"), ErrorCode::BadField);
    EXPECT_EQ(check("dma.load rows=4 row_bytes=64 dram_stride=64 stride=64 index_limit=4"), ErrorCode::BadField);
}

TEST_F(Validator, TransposingDmaNeedsTheFeature) {
    const std::string transposed = "dma.load rows=4 row_bytes=16 dram_stride=16 stride=16 transpose=1 elem=4";
    EXPECT_EQ(check(transposed), ErrorCode::None);
    const ArchConfig noTranspose = loadArchConfig("edge", std::vector<std::string>{"dma.transpose=false"});
    EXPECT_EQ(validateCommand(isa::assemble(transposed), noTranspose, kWindow), ErrorCode::BadField);
}

}  // namespace
}  // namespace npusim::firmware
