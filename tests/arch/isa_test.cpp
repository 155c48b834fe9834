// ISA tests: every opcode round-trips through encode/decode and disassemble/assemble; field
// layouts never overlap; malformed descriptors and text are rejected.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "arch/error.h"
#include "arch/isa.h"
#include "arch/isa_table.h"

namespace npusim::isa {
namespace {

Command randomCommand(const OpcodeInfo& info, std::mt19937_64& rng) {
    Command command;
    command.opcode = info.opcode;
    command.kind = static_cast<CommandKind>(rng() % kCommandKindCount);
    command.opId = static_cast<uint32_t>(rng());
    command.tileId = static_cast<uint32_t>(rng());
    for (const FieldLayout& field : info.fields) {
        uint64_t value = rng();
        if (field.format == ValueFormat::Enum) {
            value %= field.enumNames.size();
        } else if (field.width < 64) {
            value &= (1ull << field.width) - 1;
        }
        if (field.format == ValueFormat::Signed && (value >> (field.width - 1)) & 1u) {
            value |= ~((1ull << field.width) - 1);  // a negative value
        }
        command.set(field.field, value);
    }
    return command;
}

TEST(Isa, EveryOpcodeRoundTripsThroughBinaryAndText) {
    std::mt19937_64 rng(7);
    std::set<Opcode> covered;
    for (const OpcodeInfo& info : opcodeTable()) {
        for (int i = 0; i < 200; ++i) {
            const Command command = randomCommand(info, rng);
            const EncodedCommand bytes = encode(command);
            EXPECT_EQ(decode(bytes), command) << disassemble(command);
            EXPECT_EQ(assemble(disassemble(command)), command) << disassemble(command);
        }
        covered.insert(info.opcode);
    }
    for (Opcode opcode : allOpcodes()) EXPECT_TRUE(covered.contains(opcode)) << opcodeName(opcode);
    EXPECT_EQ(covered.size(), 9u);
}

TEST(Isa, FieldLayoutsDoNotOverlapAndStayInsideTheDescriptor) {
    for (const OpcodeInfo& info : opcodeTable()) {
        std::vector<bool> used(kCommandBits, false);
        auto claim = [&](unsigned bit, unsigned width, std::string_view name) {
            for (unsigned b = bit; b < bit + width; ++b) {
                ASSERT_LT(b, kCommandBits) << info.mnemonic << "." << name;
                EXPECT_FALSE(used[b]) << info.mnemonic << "." << name << " overlaps at bit " << b;
                used[b] = true;
            }
        };
        claim(kOpcodeBit, kOpcodeWidth, "opcode");
        claim(kKindBit, kKindWidth, "kind");
        claim(kOpIdBit, kOpIdWidth, "op");
        claim(kTileIdBit, kTileIdWidth, "tile");
        for (const FieldLayout& field : info.fields) {
            EXPECT_GE(field.bit, kPayloadBit) << info.mnemonic << "." << field.name;
            claim(field.bit, field.width, field.name);
        }
    }
}

TEST(Isa, DisassemblyIsReadable) {
    Command gemm;
    gemm.opcode = Opcode::Gemm;
    gemm.kind = CommandKind::Compute;
    gemm.opId = 3;
    gemm.tileId = 12;
    gemm.set(Field::AAddr, 0x400).set(Field::M, 64).set(Field::N, 16).set(Field::K, 16);
    gemm.set(Field::DType, 0).set(Field::Accumulate, 1).setSigned(Field::AZeroPoint, -3);
    EXPECT_EQ(disassemble(gemm),
              "gemm kind=compute op=3 tile=12 a=0x400 b=0x0 c=0x0 m=64 n=16 k=16 dtype=int8 "
              "accumulate=1 transpose=0 a_stride=0 b_stride=0 c_stride=0 a_zp=-3 b_zp=0");
    EXPECT_EQ(gemm.getSigned(Field::AZeroPoint), -3);
}

TEST(Isa, EncodeRejectsValuesThatDoNotFit) {
    Command dma;
    dma.opcode = Opcode::DmaLoad;
    dma.set(Field::Rows, 1u << 16);
    EXPECT_THROW(encode(dma), InputError);
    Command gemm;
    gemm.opcode = Opcode::Gemm;
    gemm.setSigned(Field::AZeroPoint, 40000);
    EXPECT_THROW(encode(gemm), InputError);
    Command end;
    end.opcode = Opcode::End;
    EXPECT_THROW(end.set(Field::Rows, 1), InputError);  // END has no rows field
    end.set(Field::Rows, 0);  // zero is what a missing field reads as
    EXPECT_EQ(end.get(Field::Rows), 0u);
    EXPECT_EQ(end, Command{});
}

TEST(Isa, DecodeRejectsUnknownOpcodeKindAndReservedBits) {
    EncodedCommand bytes{};
    bytes[0] = std::byte{0x7f};
    EXPECT_THROW(decode(bytes), InputError);
    bytes = encode(Command{});  // END
    bytes[1] = std::byte{0x0f};  // kind 15
    EXPECT_THROW(decode(bytes), InputError);
    bytes = encode(Command{});
    bytes[40] = std::byte{1};  // END owns no payload bits
    EXPECT_THROW(decode(bytes), InputError);
}

TEST(Isa, AssemblerNamesTheBadToken) {
    EXPECT_THROW(assemble("frobnicate op=1"), InputError);
    try {
        assemble("gemm m=12 bogus=3");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("bogus"), std::string::npos);
    }
    EXPECT_THROW(assemble("gemm m=0x1ffff"), InputError);
    EXPECT_THROW(assemble("sem.wait queue=nowhere"), InputError);
}

TEST(Isa, StreamsRejectPartialDescriptors) {
    std::vector<Command> commands(3);
    std::vector<std::byte> bytes = encodeStream(commands);
    EXPECT_EQ(decodeStream(bytes).size(), 3u);
    bytes.pop_back();
    EXPECT_THROW(decodeStream(bytes), InputError);
}

TEST(Isa, QueueOfFollowsOpcodeOrField) {
    Command signal;
    signal.opcode = Opcode::SemSignal;
    signal.set(Field::Queue, static_cast<uint64_t>(Queue::Vector));
    EXPECT_EQ(queueOf(signal), Queue::Vector);
    Command gemm;
    gemm.opcode = Opcode::Gemm;
    EXPECT_EQ(queueOf(gemm), Queue::Tensor);
}

}  // namespace
}  // namespace npusim::isa
