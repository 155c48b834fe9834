// numpy's legacy sampling on MT19937.
#include "compiler/graph/random_draws.h"

#include <cmath>

namespace npusim::compiler {

RandomDraws RandomDraws::forNode(const Node& node) {
    return RandomDraws(static_cast<uint32_t>(static_cast<int64_t>(node.floatAttr("seed", 0.0))));
}

double RandomDraws::uniform() {
    const uint32_t high = engine_() >> 5, low = engine_() >> 6;
    return (high * 67108864.0 + low) / 9007199254740992.0;
}

double RandomDraws::gauss() {
    if (pendingGauss_) {
        const double value = *pendingGauss_;
        pendingGauss_.reset();
        return value;
    }
    double x1 = 0, x2 = 0, r2 = 0;
    do {
        x1 = 2.0 * uniform() - 1.0;
        x2 = 2.0 * uniform() - 1.0;
        r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    const double f = std::sqrt(-2.0 * std::log(r2) / r2);
    pendingGauss_ = f * x1;
    return f * x2;
}

}  // namespace npusim::compiler
