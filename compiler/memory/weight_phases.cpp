// Cutting the ops into weight phases.
#include "compiler/memory/weight_phases.h"

#include <algorithm>

namespace npusim::compiler {

std::vector<int> cutWeightPhases(std::span<const WeightUse> weights, int opCount, uint64_t budget) {
    std::vector<const WeightUse*> byFirst;
    for (const WeightUse& weight : weights) byFirst.push_back(&weight);
    std::stable_sort(byFirst.begin(), byFirst.end(), [](const WeightUse* a, const WeightUse* b) { return a->first < b->first; });

    std::vector<int> starts{0};
    std::vector<const WeightUse*> held;  // weights of the current phase
    uint64_t heldBytes = 0;
    size_t next = 0;
    for (int position = 0; position < opCount; ++position) {
        uint64_t arriving = 0;
        size_t end = next;
        for (; end < byFirst.size() && byFirst[end]->first == position; ++end) arriving += byFirst[end]->bytes;
        if (arriving > 0 && position > starts.back() && heldBytes + arriving > budget) {
            // A new phase: only the weights still to be read from here on stay.
            starts.push_back(position);
            std::erase_if(held, [&](const WeightUse* w) { return w->last < position; });
            heldBytes = 0;
            for (const WeightUse* w : held) heldBytes += w->bytes;
        }
        for (; next < end; ++next) held.push_back(byFirst[next]);
        heldBytes += arriving;
    }
    return starts;
}

size_t phaseOf(std::span<const int> phaseStarts, int position) {
    return static_cast<size_t>(std::upper_bound(phaseStarts.begin(), phaseStarts.end(), position) - phaseStarts.begin()) - 1;
}

}  // namespace npusim::compiler
