// An address router: any number of initiators bind to tSocket; each target bound to iSocket
// owns one address range and sees addresses relative to that range's base.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>

#include "hw_model/common/blocking_target.h"

namespace npusim::hw {

struct AddressRange {
    uint64_t base = 0, size = 0;
    bool contains(uint64_t address, uint64_t bytes) const {
        return address >= base && bytes <= size && address - base <= size - bytes;
    }
};

class Router : public sc_core::sc_module, public BlockingTarget {
public:
    Socket tSocket;
    /// Bind the targets in the order of `ranges`.
    tlm_utils::multi_passthrough_initiator_socket<Router> iSocket;

    Router(sc_core::sc_module_name name, std::vector<AddressRange> ranges);

private:
    void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override;
    unsigned int transport_dbg(tlm::tlm_generic_payload& payload) override;
    /// The target whose range holds the payload's bytes, or -1.
    int decode(tlm::tlm_generic_payload& payload) const;

    std::vector<AddressRange> ranges_;
};

}  // namespace npusim::hw
