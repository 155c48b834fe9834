// Gap filling over the sorted list of uses.
#include "hw_model/common/resource_timeline.h"

#include <algorithm>

namespace npusim::hw {

void ResourceTimeline::insertAt(size_t at, uint64_t start, uint64_t end, int owner) {
    const auto next = uses_.begin() + static_cast<std::ptrdiff_t>(at);
    // Merge with adjacent uses of the same owner to keep the list short.
    const bool joinsPrevious = at > head_ && std::prev(next)->end == start && std::prev(next)->owner == owner;
    const bool joinsNext = next != uses_.end() && next->start == end && next->owner == owner;
    if (joinsPrevious && joinsNext) {
        std::prev(next)->end = next->end;
        uses_.erase(next);
    } else if (joinsPrevious) {
        std::prev(next)->end = end;
    } else if (joinsNext) {
        next->start = start;
    } else {
        uses_.insert(next, Use{start, end, owner});
    }
}

void ResourceTimeline::drop(uint64_t time) {
    while (head_ < uses_.size() && uses_[head_].end <= time) ++head_;
    if (head_ > 64 && head_ * 2 > uses_.size()) {
        uses_.erase(uses_.begin(), uses_.begin() + static_cast<std::ptrdiff_t>(head_));
        head_ = 0;
    }
}

ResourceTimeline::Grant ResourceTimeline::fillGaps(uint64_t earliest, uint64_t duration, int owner) {
    Grant grant{earliest, 0};
    uint64_t t = earliest, remaining = duration;
    // The first use that ends after t (ends are sorted too, uses never overlap). Requests land
    // near the end mostly: a few steps back from it, else a binary search.
    size_t i = uses_.size();
    for (int step = 0; step < 4 && i > head_ && uses_[i - 1].end > t; ++step) --i;
    if (i > head_ && uses_[i - 1].end > t) {
        i = static_cast<size_t>(std::upper_bound(uses_.begin() + static_cast<std::ptrdiff_t>(head_),
                                                 uses_.begin() + static_cast<std::ptrdiff_t>(i), t,
                                                 [](uint64_t value, const Use& use) { return value < use.end; }) -
                                uses_.begin());
    }
    pieces_.clear();
    while (remaining > 0) {
        if (i < uses_.size() && uses_[i].start <= t) {  // busy: skip to the end of this use
            if (uses_[i].owner != owner) grant.waitedForOthers += uses_[i].end - t;
            t = uses_[i].end;
            ++i;
            continue;
        }
        const uint64_t gapEnd = i < uses_.size() ? uses_[i].start : UINT64_MAX;
        const uint64_t take = std::min(remaining, gapEnd - t);
        pieces_.push_back({t, t + take, i});
        t += take;
        remaining -= take;
    }
    // Last first: a piece's insertion leaves the places of the pieces before it as they were.
    for (auto piece = pieces_.rbegin(); piece != pieces_.rend(); ++piece) insertAt(piece->at, piece->start, piece->end, owner);
    grant.end = t;
    return grant;
}

}  // namespace npusim::hw
