// Resource timelines against a reference that walks time one unit at a time: every grant (its
// end and the time lost to other owners) is the same, whatever order the requests come in.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "hw_model/common/resource_timeline.h"

namespace npusim::hw {
namespace {

/// The timeline as a map from time unit to owner: a use takes the free units from `earliest`
/// on, one by one, waiting a unit for each one another owner holds.
class ReferenceTimeline {
public:
    ResourceTimeline::Grant use(uint64_t earliest, uint64_t duration, int owner) {
        ResourceTimeline::Grant grant{earliest, 0};
        uint64_t t = earliest;
        for (uint64_t remaining = duration; remaining > 0; ++t) {
            const auto held = owners_.find(t);
            if (held == owners_.end()) {
                owners_[t] = owner;
                --remaining;
            } else if (held->second != owner) {
                ++grant.waitedForOthers;
            }
        }
        if (duration > 0) grant.end = t;
        return grant;
    }

private:
    std::map<uint64_t, int> owners_;
};

TEST(ResourceTimeline, FillsGapsLeftBetweenLaterUsesAndCountsTheWaitForOthers) {
    ResourceTimeline timeline;
    EXPECT_EQ(timeline.use(10, 5, 0).end, 15u);   // [10, 15)
    EXPECT_EQ(timeline.use(20, 5, 1).end, 25u);   // [20, 25)
    const ResourceTimeline::Grant gap = timeline.use(12, 8, 1);  // [15, 20) then [25, 28)
    EXPECT_EQ(gap.end, 28u);
    EXPECT_EQ(gap.waitedForOthers, 3u);  // owner 0's [12, 15); its own [20, 25) costs nothing
    EXPECT_EQ(timeline.use(0, 4, 2).end, 4u);   // before everything
    EXPECT_EQ(timeline.use(7, 0, 2).end, 7u);   // nothing needed
}

TEST(ResourceTimeline, MatchesTheUnitByUnitReferenceOnRandomRequests) {
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 50; ++trial) {
        ResourceTimeline timeline;
        ReferenceTimeline reference;
        uint64_t now = 0;
        for (int request = 0; request < 400; ++request) {
            // Requests run ahead of now by up to 200 units, out of order, as units within a
            // command do; now advances and the timeline forgets what ended before it.
            if (rng() % 8 == 0) {
                now += rng() % 20;
                timeline.forgetBefore(now);
            }
            const uint64_t earliest = now + rng() % 200, duration = rng() % 12;
            const int owner = static_cast<int>(rng() % 3);
            const ResourceTimeline::Grant got = timeline.use(earliest, duration, owner);
            const ResourceTimeline::Grant want = reference.use(earliest, duration, owner);
            ASSERT_EQ(got.end, want.end) << "trial " << trial << ", request " << request;
            ASSERT_EQ(got.waitedForOthers, want.waitedForOthers) << "trial " << trial << ", request " << request;
        }
    }
}

}  // namespace
}  // namespace npusim::hw
