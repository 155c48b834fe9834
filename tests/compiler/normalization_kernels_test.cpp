// The LRN CPU kernel against the reference, for odd and even window sizes.
#include <gtest/gtest.h>

#include "graph_test_support.h"
#include "host_kernel_test_support.h"

namespace npusim::compiler {
namespace {

using namespace testing;

TEST(NormalizationKernels, LrnMatchesTheReference) {
    const Tensor x = randomFp32({2, 6, 3, 2}, 61, -3.0f, 3.0f);
    for (int64_t size : {1, 3, 4, 7}) {
        SCOPED_TRACE("size " + std::to_string(size));
        expectKernelMatchesReference(
            singleOpGraph(OpKind::LRN, {x}, {{"size", size}, {"alpha", 0.02}, {"beta", 0.6}, {"bias", 1.5}}), {{"in0", x}});
    }
}

}  // namespace
}  // namespace npusim::compiler
