// The model core.
#include "hw_model/vector/vector_core.h"

namespace npusim::hw {
namespace {

class ModelVectorCore : public VectorCore {
public:
    uint64_t computeCycles(const VectorBlock&, uint64_t model, uint32_t, uint32_t) override { return model; }
    void compute(const VectorBlock& block) override { computeVectorBlock(block); }
};

}  // namespace

std::unique_ptr<VectorCore> makeModelVectorCore() { return std::make_unique<ModelVectorCore>(); }

}  // namespace npusim::hw
