// Builds the payload and extensions for one access and checks the response.
#include "hw_model/common/memory_access.h"

#include <sstream>

#include "hw_model/common/unit_fault.h"

namespace npusim::hw {

MemoryResponse MemoryAccessor::access(tlm::tlm_fw_transport_if<>& target, const MemoryRequest& request,
                                      const AccessTag& tag, const sc_core::sc_time& issue,
                                      const std::string& who, regs::ErrorCode onError) {
    tlm::tlm_generic_payload& payload = payload_;
    AccessTag tagExtension = tag;
    Block2d block;
    block.rows = request.rows;
    block.rowBytes = request.rowBytes;
    block.stride = request.stride;
    payload.set_command(request.command);
    payload.set_address(request.address);
    payload.set_data_ptr(reinterpret_cast<unsigned char*>(request.data));
    payload.set_data_length(static_cast<unsigned>(request.rows * request.rowBytes));
    payload.set_streaming_width(static_cast<unsigned>(request.rows * request.rowBytes));
    payload.set_byte_enable_ptr(nullptr);
    payload.set_dmi_allowed(false);
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    // The extensions live on this stack frame: detach them when the access ends, even if the
    // target throws, or the payload would later free them.
    struct Detach {
        tlm::tlm_generic_payload& payload;
        ~Detach() {
            payload.clear_extension<AccessTag>();
            payload.clear_extension<Block2d>();
        }
    } detach{payload};
    payload.set_extension(&tagExtension);
    if (request.rows > 1) payload.set_extension(&block);

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
    return {delay, tagExtension.contentionCycles};
}

}  // namespace npusim::hw
