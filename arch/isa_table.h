// The ISA table: for each opcode its mnemonic, default kind and payload field layout.
// Internal to arch/: the encoder, decoder, assembler and disassembler all read it.
#pragma once

#include <span>
#include <string_view>

#include "arch/isa.h"

namespace npusim::isa {

/// How a field's value is written in assembler text.
enum class ValueFormat : uint8_t { Unsigned, Hex, Signed, Enum };

struct FieldLayout {
    Field field;
    std::string_view name;  ///< assembler key
    uint16_t bit;           ///< first bit inside the 512-bit descriptor
    uint8_t width;          ///< 1..64 bits
    ValueFormat format;
    std::span<const std::string_view> enumNames = {};  ///< for ValueFormat::Enum
};

struct OpcodeInfo {
    Opcode opcode;
    std::string_view mnemonic;
    CommandKind defaultKind;
    std::span<const FieldLayout> fields;
};

/// Header layout, common to every opcode.
inline constexpr uint16_t kOpcodeBit = 0, kOpcodeWidth = 8;
inline constexpr uint16_t kKindBit = 8, kKindWidth = 4;
inline constexpr uint16_t kOpIdBit = 32, kOpIdWidth = 32;
inline constexpr uint16_t kTileIdBit = 64, kTileIdWidth = 32;
inline constexpr uint16_t kPayloadBit = 96;

std::span<const OpcodeInfo> opcodeTable();
/// nullptr when the opcode is not in the table.
const OpcodeInfo* findOpcode(Opcode opcode);
const OpcodeInfo* findMnemonic(std::string_view mnemonic);

std::span<const std::string_view> commandKindNames();
std::span<const std::string_view> queueNames();
std::span<const std::string_view> memorySpaceNames();
std::span<const std::string_view> vectorOpNames();
std::span<const std::string_view> stepFieldNames();

}  // namespace npusim::isa
