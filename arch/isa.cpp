// Encoder, decoder, assembler and disassembler, all driven by the ISA table.
#include "arch/isa.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <sstream>

#include "arch/error.h"
#include "arch/isa_table.h"

namespace npusim::isa {
namespace {

uint64_t widthMask(unsigned width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }

/// The descriptor as eight little-endian 64-bit words.
using Words = std::array<uint64_t, kCommandBytes / 8>;

Words toWords(const EncodedCommand& bytes) {
    Words words{};
    for (size_t i = 0; i < kCommandBytes; ++i) {
        words[i / 8] |= static_cast<uint64_t>(bytes[i]) << (8 * (i % 8));
    }
    return words;
}

EncodedCommand toBytes(const Words& words) {
    EncodedCommand bytes;
    for (size_t i = 0; i < kCommandBytes; ++i) {
        bytes[i] = static_cast<std::byte>((words[i / 8] >> (8 * (i % 8))) & 0xffu);
    }
    return bytes;
}

uint64_t readBits(const Words& words, unsigned bit, unsigned width) {
    const unsigned word = bit / 64, shift = bit % 64;
    uint64_t value = words[word] >> shift;
    if (shift + width > 64) value |= words[word + 1] << (64 - shift);
    return value & widthMask(width);
}

void writeBits(Words& words, unsigned bit, unsigned width, uint64_t value) {
    const unsigned word = bit / 64, shift = bit % 64;
    value &= widthMask(width);
    words[word] |= value << shift;
    if (shift + width > 64) words[word + 1] |= value >> (64 - shift);
}

/// Bits of the descriptor that some field of this opcode owns.
Words ownedBits(const OpcodeInfo& info) {
    Words owned{};
    auto own = [&](unsigned bit, unsigned width) { writeBits(owned, bit, width, ~0ull); };
    own(kOpcodeBit, kOpcodeWidth);
    own(kKindBit, kKindWidth);
    own(kOpIdBit, kOpIdWidth);
    own(kTileIdBit, kTileIdWidth);
    for (const FieldLayout& field : info.fields) own(field.bit, field.width);
    return owned;
}

const OpcodeInfo& requireOpcode(Opcode opcode) {
    const OpcodeInfo* info = findOpcode(opcode);
    if (!info) {
        throw InputError("unknown opcode " + std::to_string(static_cast<unsigned>(opcode)));
    }
    return *info;
}

std::string formatValue(const FieldLayout& layout, uint64_t value) {
    switch (layout.format) {
        case ValueFormat::Unsigned: return std::to_string(value);
        case ValueFormat::Signed: {
            const int64_t signedValue =
                (layout.width < 64 && (value >> (layout.width - 1)) & 1u)
                    ? static_cast<int64_t>(value | ~widthMask(layout.width))
                    : static_cast<int64_t>(value);
            return std::to_string(signedValue);
        }
        case ValueFormat::Hex: {
            std::ostringstream out;
            out << "0x" << std::hex << value;
            return out.str();
        }
        case ValueFormat::Enum:
            if (value < layout.enumNames.size()) return std::string(layout.enumNames[value]);
            return std::to_string(value);
    }
    return std::to_string(value);
}

uint64_t parseNumber(std::string_view text, std::string_view key) {
    bool negative = false;
    if (!text.empty() && text.front() == '-') {
        negative = true;
        text.remove_prefix(1);
    }
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text.remove_prefix(2);
    }
    uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (error != std::errc{} || end != text.data() + text.size() || text.empty()) {
        throw InputError("bad number '" + std::string(text) + "' for '" + std::string(key) + "'");
    }
    return negative ? static_cast<uint64_t>(-static_cast<int64_t>(value)) : value;
}

uint64_t parseFieldValue(const FieldLayout& layout, std::string_view text) {
    if (layout.format == ValueFormat::Enum) {
        const auto it = std::find(layout.enumNames.begin(), layout.enumNames.end(), text);
        if (it != layout.enumNames.end()) return static_cast<uint64_t>(it - layout.enumNames.begin());
    }
    return parseNumber(text, layout.name);
}

template <class Enum>
Enum enumFromName(std::span<const std::string_view> names, std::string_view text,
                  std::string_view what) {
    const auto it = std::find(names.begin(), names.end(), text);
    if (it == names.end()) {
        throw InputError("unknown " + std::string(what) + " '" + std::string(text) + "'");
    }
    return static_cast<Enum>(it - names.begin());
}

}  // namespace

void Command::missingField(Field field) const {
    throw InputError(std::string(opcodeName(opcode)) + " has no field #" + std::to_string(static_cast<int>(field)) +
                     " to set");
}

int64_t Command::getSigned(Field field) const {
    return static_cast<int64_t>(get(field));
}

Command& Command::setSigned(Field field, int64_t value) {
    return set(field, static_cast<uint64_t>(value));
}

EncodedCommand encode(const Command& command) {
    const OpcodeInfo& info = requireOpcode(command.opcode);
    Words bytes{};
    writeBits(bytes, kOpcodeBit, kOpcodeWidth, static_cast<uint64_t>(command.opcode));
    writeBits(bytes, kKindBit, kKindWidth, static_cast<uint64_t>(command.kind));
    writeBits(bytes, kOpIdBit, kOpIdWidth, command.opId);
    writeBits(bytes, kTileIdBit, kTileIdWidth, command.tileId);
    for (const FieldLayout* layout = info.fields.data(); layout != info.fields.data() + info.fields.size(); ++layout) {
        const uint64_t value = command.get(layout->field);
        uint64_t stored = value;
        if (layout->format == ValueFormat::Signed) {
            const int64_t v = static_cast<int64_t>(value);
            const int64_t limit = int64_t{1} << (layout->width - 1);
            if (v < -limit || v >= limit) {
                throw InputError(std::string(info.mnemonic) + " field '" +
                                 std::string(layout->name) + "' value " + std::to_string(v) +
                                 " does not fit in " + std::to_string(layout->width) + " bits");
            }
            stored = value & widthMask(layout->width);
        } else if (value > widthMask(layout->width)) {
            throw InputError(std::string(info.mnemonic) + " field '" + std::string(layout->name) +
                             "' value " + std::to_string(value) + " does not fit in " +
                             std::to_string(layout->width) + " bits");
        }
        writeBits(bytes, layout->bit, layout->width, stored);
    }
    return toBytes(bytes);
}

Command decode(std::span<const std::byte, kCommandBytes> input) {
    EncodedCommand encoded;
    std::copy(input.begin(), input.end(), encoded.begin());
    const Words bytes = toWords(encoded);
    Command command;
    command.opcode = static_cast<Opcode>(readBits(bytes, kOpcodeBit, kOpcodeWidth));
    const OpcodeInfo& info = requireOpcode(command.opcode);
    const uint64_t kind = readBits(bytes, kKindBit, kKindWidth);
    if (kind >= kCommandKindCount) throw InputError("unknown command kind " + std::to_string(kind));
    command.kind = static_cast<CommandKind>(kind);
    command.opId = static_cast<uint32_t>(readBits(bytes, kOpIdBit, kOpIdWidth));
    command.tileId = static_cast<uint32_t>(readBits(bytes, kTileIdBit, kTileIdWidth));
    for (const FieldLayout& layout : info.fields) {
        uint64_t value = readBits(bytes, layout.bit, layout.width);
        if (layout.format == ValueFormat::Signed && (value >> (layout.width - 1)) & 1u) {
            value |= ~widthMask(layout.width);  // sign-extend
        }
        command.set(layout.field, value);
    }
    const Words owned = ownedBits(info);
    for (size_t word = 0; word < owned.size(); ++word) {
        if (const uint64_t stray = bytes[word] & ~owned[word]) {
            throw InputError(std::string(info.mnemonic) + " has reserved bit " +
                             std::to_string(word * 64 + static_cast<unsigned>(std::countr_zero(stray))) + " set");
        }
    }
    return command;
}

std::vector<std::byte> encodeStream(std::span<const Command> commands) {
    std::vector<std::byte> bytes;
    bytes.reserve(commands.size() * kCommandBytes);
    for (const Command& command : commands) {
        const EncodedCommand encoded = encode(command);
        bytes.insert(bytes.end(), encoded.begin(), encoded.end());
    }
    return bytes;
}

std::vector<Command> decodeStream(std::span<const std::byte> bytes) {
    if (bytes.size() % kCommandBytes != 0) {
        throw InputError("command stream of " + std::to_string(bytes.size()) +
                         " bytes is not a multiple of " + std::to_string(kCommandBytes));
    }
    std::vector<Command> commands;
    commands.reserve(bytes.size() / kCommandBytes);
    for (size_t offset = 0; offset < bytes.size(); offset += kCommandBytes) {
        commands.push_back(decode(bytes.subspan(offset).first<kCommandBytes>()));
    }
    return commands;
}

std::string disassemble(const Command& command) {
    const OpcodeInfo& info = requireOpcode(command.opcode);
    std::string text(info.mnemonic);
    text += " kind=" + std::string(commandKindName(command.kind));
    text += " op=" + std::to_string(command.opId);
    text += " tile=" + std::to_string(command.tileId);
    for (const FieldLayout& layout : info.fields) {
        uint64_t value = command.get(layout.field);
        if (layout.format == ValueFormat::Signed) value &= widthMask(layout.width);
        text += ' ';
        text += layout.name;
        text += '=';
        text += formatValue(layout, value);
    }
    return text;
}

Command assemble(std::string_view line) {
    std::istringstream tokens{std::string(line)};
    std::string mnemonic;
    tokens >> mnemonic;
    const OpcodeInfo* info = findMnemonic(mnemonic);
    if (!info) throw InputError("unknown mnemonic '" + mnemonic + "'");
    Command command;
    command.opcode = info->opcode;
    command.kind = info->defaultKind;
    std::string token;
    while (tokens >> token) {
        const size_t eq = token.find('=');
        if (eq == std::string::npos) throw InputError("expected key=value, got '" + token + "'");
        const std::string key = token.substr(0, eq);
        const std::string_view value = std::string_view(token).substr(eq + 1);
        if (key == "kind") {
            command.kind = enumFromName<CommandKind>(commandKindNames(), value, "kind");
        } else if (key == "op") {
            command.opId = static_cast<uint32_t>(parseNumber(value, key));
        } else if (key == "tile") {
            command.tileId = static_cast<uint32_t>(parseNumber(value, key));
        } else {
            const auto layout = std::find_if(info->fields.begin(), info->fields.end(),
                                             [&](const FieldLayout& l) { return l.name == key; });
            if (layout == info->fields.end()) {
                throw InputError(mnemonic + " has no field '" + key + "'");
            }
            uint64_t parsed = parseFieldValue(*layout, value);
            if (layout->format == ValueFormat::Signed && layout->width < 64 &&
                (parsed >> (layout->width - 1)) & 1u) {
                parsed |= ~widthMask(layout->width);
            }
            command.set(layout->field, parsed);
        }
    }
    encode(command);  // rejects values that do not fit their fields
    return command;
}

bool isReduction(VectorOp op) { return op == VectorOp::ReduceSum || op == VectorOp::ReduceMax; }

bool vectorSupports(VectorOp op, DType dtype, DType out) {
    const bool quantised = out == DType::Int8 || out == DType::UInt8 || out == DType::Bool;
    const bool integerIn = dtype == DType::Int8 || dtype == DType::UInt8 || dtype == DType::Int32 || dtype == DType::Bool;
    switch (op) {
        case VectorOp::Cast: {
            const bool floatIn = dtype == DType::Fp32 || dtype == DType::Fp16 || dtype == DType::Bf16;
            if (out == DType::Fp32 || out == DType::Int32) return floatIn || integerIn;
            return (out == DType::Fp16 || out == DType::Bf16) && dtype == DType::Fp32;  // rounding from fp32
        }
        case VectorOp::Quantize: return dtype == DType::Fp32 && quantised;
        case VectorOp::Requantize: return dtype == DType::Int32 && quantised;
        case VectorOp::Dequantize: return integerIn && out == DType::Fp32;
        case VectorOp::Fill: return out == dtype && dtypeSize(dtype) <= 4;
        // Order alone: int8 and uint8 values compare as they are, nothing to widen.
        case VectorOp::Copy:
        case VectorOp::Max:
        case VectorOp::Min: return out == dtype && (dtype == DType::Fp32 || dtype == DType::Int32 || dtype == DType::Int8 || dtype == DType::UInt8);
        case VectorOp::Add:
        case VectorOp::Sub:
        case VectorOp::Mul:
        case VectorOp::Relu:
        case VectorOp::Clip:
        case VectorOp::ReduceSum:
        case VectorOp::ReduceMax:
        case VectorOp::Less:
        case VectorOp::Equal: return out == dtype && (dtype == DType::Fp32 || dtype == DType::Int32);
        default: return out == dtype && dtype == DType::Fp32;  // division and transcendentals
    }
}

std::ostream& operator<<(std::ostream& out, const Command& command) {
    return out << disassemble(command);
}

Queue queueOf(const Command& command) {
    switch (command.opcode) {
        case Opcode::DmaLoad: return Queue::Load;
        case Opcode::DmaStore: return Queue::Store;
        case Opcode::Gemm: return Queue::Tensor;
        case Opcode::Vector: return Queue::Vector;
        case Opcode::SemSignal:
        case Opcode::SemWait: return static_cast<Queue>(command.get(Field::Queue));
        case Opcode::End:
        case Opcode::Loop:
        case Opcode::Step: return Queue::Load;
    }
    return Queue::Load;
}

std::string_view opcodeName(Opcode opcode) {
    const OpcodeInfo* info = findOpcode(opcode);
    return info ? info->mnemonic : "?";
}
std::string_view queueName(Queue queue) { return queueNames()[static_cast<size_t>(queue)]; }
std::string_view commandKindName(CommandKind kind) {
    return commandKindNames()[static_cast<size_t>(kind)];
}
std::string_view memorySpaceName(MemorySpace space) {
    return memorySpaceNames()[static_cast<size_t>(space)];
}
std::string_view vectorOpName(VectorOp op) { return vectorOpNames()[static_cast<size_t>(op)]; }
std::string_view stepFieldName(StepField field) { return stepFieldNames()[static_cast<size_t>(field)]; }

std::vector<Opcode> allOpcodes() {
    std::vector<Opcode> opcodes;
    for (const OpcodeInfo& info : opcodeTable()) opcodes.push_back(info.opcode);
    return opcodes;
}

}  // namespace npusim::isa
