// Address decoding and forwarding.
#include "hw_model/bus/router.h"

#include "hw_model/common/access_extension.h"

namespace npusim::hw {

Router::Router(sc_core::sc_module_name name, std::vector<AddressRange> ranges)
    : sc_module(name), tSocket("tSocket"), iSocket("iSocket"), ranges_(std::move(ranges)) {
    tSocket.register_b_transport(this, &Router::b_transport);
}

void Router::b_transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const uint64_t address = payload.get_address();
    const Block2d* block = Block2d::of(payload);
    const uint64_t extent = block ? (block->rows - 1) * block->stride + block->rowBytes
                                  : payload.get_data_length();
    for (size_t target = 0; target < ranges_.size(); ++target) {
        if (!ranges_[target].contains(address, extent)) continue;
        payload.set_address(address - ranges_[target].base);
        iSocket[static_cast<int>(target)]->b_transport(payload, delay);
        payload.set_address(address);
        return;
    }
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

}  // namespace npusim::hw
