// Issuing one tagged, optionally strided, blocking memory access from a unit: the one place
// where units build TLM payloads and turn error responses into run errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>

#include "arch/register_map.h"
#include "hw_model/common/access_extension.h"

namespace npusim::hw {

/// A memory access a unit wants to make.
struct MemoryRequest {
    tlm::tlm_command command = tlm::TLM_READ_COMMAND;
    uint64_t address = 0;
    std::byte* data = nullptr;  ///< rows * rowBytes bytes, packed
    uint64_t rows = 1, rowBytes = 0, stride = 0;
};

/// When the access completed (relative to now) and how long it waited for other initiators.
struct MemoryResponse {
    sc_core::sc_time done;
    uint64_t contentionCycles = 0;
};

/// The forward interface an initiator socket is bound to.
template <class InitiatorSocket>
tlm::tlm_fw_transport_if<>& forwardPath(InitiatorSocket& socket) {
    return *socket.operator->();
}

/// Makes a unit's memory accesses, one at a time, through one reused payload with its
/// extensions attached for good (building a payload, or attaching extensions, per access
/// would cost on every burst).
class MemoryAccessor {
public:
    MemoryAccessor();
    /// The extensions are this object's: detached before the payload would free them.
    ~MemoryAccessor();
    MemoryAccessor(const MemoryAccessor&) = delete;
    MemoryAccessor& operator=(const MemoryAccessor&) = delete;

    /// Performs the access at `issue` (an offset from the current time) through `target`.
    /// Throws UnitFault with `onError`, naming `who` and the address, when the target answers
    /// with an error.
    MemoryResponse access(tlm::tlm_fw_transport_if<>& target, const MemoryRequest& request,
                          const AccessTag& tag, const sc_core::sc_time& issue,
                          const std::string& who, regs::ErrorCode onError);

private:
    tlm::tlm_generic_payload payload_;
    AccessTag tag_;
    Block2d block_;  ///< one row for a linear access
};

}  // namespace npusim::hw
