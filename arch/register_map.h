// The NPU's MMIO register map and the system memory map, shared by the hardware model, the
// firmware and the driver. Offsets are bytes from kMmioBase; every register is 32 bits.
#pragma once

#include <cstdint>

namespace npusim::regs {

/// System physical address map seen by the host CPU and the NPU's bus masters.
inline constexpr uint64_t kMmioBase = 0x1000'0000;
inline constexpr uint64_t kMmioSize = 0x1000;
inline constexpr uint64_t kDramBase = 0x8000'0000;

/// Identification: reads kDeviceIdValue.
inline constexpr uint32_t kDeviceId = 0x000;
inline constexpr uint32_t kDeviceIdValue = 0x4e505531;  // "NPU1"

/// Writing 1 starts the job described by the JOB_* and CTX_* registers.
inline constexpr uint32_t kDoorbell = 0x004;

/// Physical address of the job's command buffer and its length in commands.
inline constexpr uint32_t kJobAddrLo = 0x010;
inline constexpr uint32_t kJobAddrHi = 0x014;
inline constexpr uint32_t kJobCommandCount = 0x018;

/// The job's context: its id and the DRAM window every DMA address is relative to.
inline constexpr uint32_t kContextId = 0x020;
inline constexpr uint32_t kContextBaseLo = 0x024;
inline constexpr uint32_t kContextBaseHi = 0x028;
inline constexpr uint32_t kContextSizeLo = 0x02c;
inline constexpr uint32_t kContextSizeHi = 0x030;

/// The job's cycle budget (low and high word; 0: none): the firmware's watchdog stops a job
/// still running that many cycles after the doorbell.
inline constexpr uint32_t kWatchdogLo = 0x034;
inline constexpr uint32_t kWatchdogHi = 0x038;

/// Job state, see Status.
inline constexpr uint32_t kStatus = 0x040;
/// Firmware error code of the last failed job, see ErrorCode.
inline constexpr uint32_t kErrorCode = 0x044;
/// Index of the command that caused the error.
inline constexpr uint32_t kErrorCommand = 0x048;

/// Interrupt status (write 1 to clear) and mask (1 = enabled); bits are IrqBit.
inline constexpr uint32_t kIrqStatus = 0x050;
inline constexpr uint32_t kIrqMask = 0x054;

/// Cycles the last job took from doorbell to completion (low and high word).
inline constexpr uint32_t kJobCyclesLo = 0x060;
inline constexpr uint32_t kJobCyclesHi = 0x064;

enum class Status : uint32_t { Idle = 0, Running = 1, Done = 2, Error = 3 };

enum IrqBit : uint32_t {
    kIrqJobDone = 1u << 0,
    kIrqJobError = 1u << 1,
};

/// Error codes written by the firmware to kErrorCode (documented in docs/ISA.md).
enum class ErrorCode : uint32_t {
    None = 0,
    IllegalOpcode = 1,      ///< the descriptor does not decode
    BadField = 2,           ///< a field value the hardware cannot execute
    DramOutOfWindow = 3,    ///< a DMA touches bytes outside the context's DRAM window
    OnchipOutOfRange = 4,   ///< an access beyond SRAM or accumulator capacity
    UnsupportedDType = 5,   ///< a dtype the unit does not support
    BadSemaphore = 6,       ///< a semaphore index beyond the semaphore file
    MissingEnd = 7,         ///< the command buffer does not end with END
    CommandFetch = 8,       ///< the command buffer is not inside DRAM
    Deadlock = 9,           ///< every waiting queue waits on a semaphore nobody will signal
    Watchdog = 10,          ///< the job ran past its cycle budget
    BusError = 11,          ///< a memory access got an error response
    MemoryError = 12,       ///< a memory found an uncorrectable error in what it read (SRAM parity)
    BadLoop = 13,           ///< a loop descriptor the command processor cannot run (isa::checkLoop)
    IndexOutOfRange = 14,   ///< an indexed load read a row index outside its table
};

/// snake_case name of an error code, for messages and reports.
inline const char* errorCodeName(ErrorCode code) {
    switch (code) {
        case ErrorCode::None: return "none";
        case ErrorCode::IllegalOpcode: return "illegal_opcode";
        case ErrorCode::BadField: return "bad_field";
        case ErrorCode::DramOutOfWindow: return "dram_out_of_window";
        case ErrorCode::OnchipOutOfRange: return "onchip_out_of_range";
        case ErrorCode::UnsupportedDType: return "unsupported_dtype";
        case ErrorCode::BadSemaphore: return "bad_semaphore";
        case ErrorCode::MissingEnd: return "missing_end";
        case ErrorCode::CommandFetch: return "command_fetch";
        case ErrorCode::Deadlock: return "deadlock";
        case ErrorCode::Watchdog: return "watchdog";
        case ErrorCode::BusError: return "bus_error";
        case ErrorCode::MemoryError: return "memory_error";
        case ErrorCode::BadLoop: return "bad_loop";
        case ErrorCode::IndexOutOfRange: return "index_out_of_range";
    }
    return "unknown";
}

}  // namespace npusim::regs
