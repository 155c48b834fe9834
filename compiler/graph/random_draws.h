// The random numbers of ONNX's random ops (RandomUniform, RandomNormal, their -Like forms,
// Bernoulli, Dropout in training mode): MT19937 seeded with the op's seed attribute (0 without
// one), doubles drawn as numpy's legacy generator draws them (random_sample: 53 bits from two
// words; gauss: the polar method, keeping the second value). npusim draws them when it compiles
// the model, so a run is deterministic and a seeded op gives numpy's numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <random>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

class RandomDraws {
public:
    explicit RandomDraws(uint32_t seed) : engine_(seed) {}
    /// The generator of a node: seeded with its `seed` attribute (a float in ONNX), or 0.
    static RandomDraws forNode(const Node& node);

    /// Uniform in [0, 1) (numpy's random_sample).
    double uniform();
    /// Standard normal (numpy's legacy gauss).
    double gauss();

private:
    std::mt19937 engine_;
    std::optional<double> pendingGauss_;
};

}  // namespace npusim::compiler
