// The model core.
#include "hw_model/tensor/tensor_core.h"

#include "hw_model/tensor/gemm_engine.h"

namespace npusim::hw {
namespace {

class ModelTensorCore : public TensorCore {
public:
    TilePhases phases(const TileShape&, const TilePhases& model, uint32_t, uint32_t) override { return model; }
    void compute(const GemmTile& tile) override { engine_.compute(tile); }

private:
    GemmEngine engine_;
};

}  // namespace

std::unique_ptr<TensorCore> makeModelTensorCore() { return std::make_unique<ModelTensorCore>(); }

}  // namespace npusim::hw
