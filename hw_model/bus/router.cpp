// Address decoding and forwarding.
#include "hw_model/bus/router.h"

#include "hw_model/common/access_extension.h"

namespace npusim::hw {

Router::Router(sc_core::sc_module_name name, std::vector<AddressRange> ranges)
    : sc_module(name), tSocket("tSocket"), iSocket("iSocket"), ranges_(std::move(ranges)) {
    tSocket.bind(*this);
}

int Router::decode(tlm::tlm_generic_payload& payload) const {
    const uint64_t extent = blockShapeOf(payload).extent();
    for (size_t target = 0; target < ranges_.size(); ++target) {
        if (ranges_[target].contains(payload.get_address(), extent)) return static_cast<int>(target);
    }
    return -1;
}

void Router::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const int target = decode(payload);
    if (target < 0) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    const uint64_t address = payload.get_address();
    payload.set_address(address - ranges_[static_cast<size_t>(target)].base);
    iSocket[target]->b_transport(payload, delay);
    payload.set_address(address);
}

unsigned int Router::transport_dbg(tlm::tlm_generic_payload& payload) {
    const int target = decode(payload);
    if (target < 0) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return 0;
    }
    const uint64_t address = payload.get_address();
    payload.set_address(address - ranges_[static_cast<size_t>(target)].base);
    const unsigned bytes = iSocket[target]->transport_dbg(payload);
    payload.set_address(address);
    return bytes;
}

}  // namespace npusim::hw
