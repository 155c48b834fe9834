// Builds the payload and extensions for one access and checks the response.
#include "hw_model/common/memory_access.h"

#include <sstream>

#include "hw_model/common/unit_fault.h"

namespace npusim::hw {

MemoryAccessor::MemoryAccessor() {
    payload_.set_extension(&tag_);
    payload_.set_extension(&block_);
}

MemoryAccessor::~MemoryAccessor() {
    payload_.clear_extension<AccessTag>();
    payload_.clear_extension<Block2d>();
}

MemoryResponse MemoryAccessor::access(tlm::tlm_fw_transport_if<>& target, const MemoryRequest& request,
                                      const AccessTag& tag, const sc_core::sc_time& issue,
                                      const std::string& who, regs::ErrorCode onError) {
    tlm::tlm_generic_payload& payload = payload_;
    tag_ = tag;
    // A linear access is one row: the same block a target assumes without the extension.
    const uint64_t bytes = request.rows * request.rowBytes;
    block_.rows = request.rows;
    block_.rowBytes = request.rowBytes;
    block_.stride = request.rows > 1 ? request.stride : request.rowBytes;
    payload.set_command(request.command);
    payload.set_address(request.address);
    payload.set_data_ptr(reinterpret_cast<unsigned char*>(request.data));
    payload.set_data_length(static_cast<unsigned>(bytes));
    payload.set_streaming_width(static_cast<unsigned>(bytes));
    payload.set_byte_enable_ptr(nullptr);
    payload.set_dmi_allowed(false);
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);

    sc_core::sc_time delay = issue;
    target.b_transport(payload, delay);
    if (payload.get_response_status() != tlm::TLM_OK_RESPONSE) {
        // A generic error is the memory's own check failing (parity), not a bad address.
        const bool checkFailed = payload.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE;
        std::ostringstream message;
        message << who << ": " << (request.command == tlm::TLM_READ_COMMAND ? "read" : "write")
                << " of " << request.rows << "x" << request.rowBytes << " bytes at 0x" << std::hex
                << request.address << " failed: "
                << (checkFailed ? "the memory's parity check found an error" : payload.get_response_string());
        throw UnitFault{checkFailed ? regs::ErrorCode::MemoryError : onError, message.str()};
    }
    return {delay, tag_.contentionCycles};
}

}  // namespace npusim::hw
