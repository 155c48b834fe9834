// A target that any number of initiators bind to and that serves blocking and debug
// transport only. Its socket is bound to the target itself, so an access reaches the target
// with one virtual call: the tlm_utils sockets' callback layers would add two per hop, on
// every burst of a run.
#pragma once

#include <systemc>
#include <tlm>

namespace npusim::hw {

class BlockingTarget : public tlm::tlm_fw_transport_if<> {
public:
    /// Initiators bind here; bind the socket to the target itself.
    using Socket = tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 0>;

    /// The non-blocking protocol is not served: answered as an unsupported command.
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& payload, tlm::tlm_phase&, sc_core::sc_time&) override {
        payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return tlm::TLM_COMPLETED;
    }
    /// No direct memory interface: every access must take its time.
    bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
};

}  // namespace npusim::hw
