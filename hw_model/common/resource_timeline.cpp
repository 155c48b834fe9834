// Gap filling over the sorted list of uses.
#include "hw_model/common/resource_timeline.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace npusim::hw {

void ResourceTimeline::insert(uint64_t start, uint64_t end, int owner) {
    // Merge with adjacent uses of the same owner to keep the map small.
    auto next = uses_.find(end);
    if (next != uses_.end() && next->second.owner == owner) {
        end = next->second.end;
        uses_.erase(next);
    }
    auto it = uses_.lower_bound(start);
    if (it != uses_.begin()) {
        auto previous = std::prev(it);
        if (previous->second.end == start && previous->second.owner == owner) {
            previous->second.end = end;
            return;
        }
    }
    uses_.emplace(start, Use{end, owner});
}

void ResourceTimeline::forgetBefore(uint64_t time) {
    while (!uses_.empty() && uses_.begin()->second.end <= time) uses_.erase(uses_.begin());
}

ResourceTimeline::Grant ResourceTimeline::use(uint64_t earliest, uint64_t duration, int owner) {
    Grant grant{earliest, 0};
    uint64_t t = earliest, remaining = duration;
    auto it = uses_.upper_bound(t);
    if (it != uses_.begin() && std::prev(it)->second.end > t) --it;
    std::vector<std::pair<uint64_t, uint64_t>> pieces;
    while (remaining > 0) {
        if (it != uses_.end() && it->first <= t) {  // busy: skip to the end of this use
            if (it->second.owner != owner) grant.waitedForOthers += it->second.end - t;
            t = it->second.end;
            ++it;
            continue;
        }
        const uint64_t gapEnd = it == uses_.end() ? UINT64_MAX : it->first;
        const uint64_t take = std::min(remaining, gapEnd - t);
        pieces.emplace_back(t, t + take);
        t += take;
        remaining -= take;
    }
    for (const auto& [start, end] : pieces) insert(start, end, owner);
    grant.end = t;
    return grant;
}

}  // namespace npusim::hw
