// Repairs shared by the faults of one incident: fit_shared_repairs recovers the engine's known
// probability within its 95% interval, flags only faults that end with the previous one, finds
// none where each repair is drawn on its own, and does not take short repairs that end close
// together by chance for shared ones. Fixed seeds.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "failure_test_util.h"
#include "fit_test_util.h"
#include "sim/failures/fit.h"

namespace ntpsim::sim {
namespace {

using testing::kDay;

constexpr double kWindow = 3600.0;

// Node faults on 400 nodes every `per_node_days` per node, bursts of 3 nodes in 30% of the
// events, repairs lognormal (mean `repair_s`, sigma 1.5), shared with chance `shared` within
// an hour of the previous fault.
Scenario incidents(double per_node_days, double repair_s, double shared) {
  Scenario s = testing::scenario_with(400, 8, 8);
  FailureProcess p = testing::process(Component::kNode, 1.0 / (per_node_days * kDay));
  FailureKind k = testing::kind("hard", 1.0, "lognormal", repair_s);
  k.repair.sigma = 1.5;
  p.kinds = {k};
  p.burst_probability = 0.3;
  p.burst_size = 3;
  p.shared_repair_probability = shared;
  p.shared_repair_window_s = kWindow;
  s.failures.processes = {p};
  return s;
}

SharedRepairFit fit_events(const std::vector<FailureEvent>& ev, double days) {
  return fit_shared_repairs(testing::times_of(ev), testing::repairs_of(ev, days * kDay), kWindow);
}

TEST(SharedRepairFit, RecoversTheProbabilityOfTheEngine) {
  constexpr double kDays = 1000, kShared = 0.5;
  const auto ev = testing::events(incidents(100, 2 * kDay, kShared), 5, 0, kDays);
  ASSERT_GT(ev.size(), 3000u);
  const SharedRepairFit f = fit_events(ev, kDays);
  ASSERT_TRUE(f.supported) << "shared " << f.shared << " of " << f.candidates;
  EXPECT_GT(f.candidates, 500);
  EXPECT_LE(f.probability_lo, kShared);
  EXPECT_GE(f.probability_hi, kShared);
  EXPECT_LT(f.p_value, 1e-10);
  EXPECT_LT(f.expected, 0.05 * static_cast<double>(f.shared));
  EXPECT_GT(f.down_share, 0.0);
  // A fault flagged shared ends with the fault before it.
  const auto repairs = testing::repairs_of(ev, kDays * kDay);
  int64_t flagged = 0;
  for (size_t i = 1; i < f.is_shared.size(); ++i) {
    if (f.is_shared[i] == 0) continue;
    ++flagged;
    EXPECT_NEAR(ev[i].time.seconds() + repairs[i].t_s,
                ev[i - 1].time.seconds() + repairs[i - 1].t_s, f.resolution_s)
        << "fault " << i;
  }
  EXPECT_EQ(flagged, f.shared);
}

TEST(SharedRepairFit, RepairsDrawnOneByOneAreNotShared) {
  constexpr double kDays = 1000;
  const auto ev = testing::events(incidents(100, 2 * kDay, 0.0), 5, 0, kDays);
  const SharedRepairFit f = fit_events(ev, kDays);
  EXPECT_GT(f.candidates, 500);
  EXPECT_FALSE(f.supported) << "shared " << f.shared << ", expected " << f.expected;
  EXPECT_LE(f.shared, 2);
  for (const char s : f.is_shared) EXPECT_EQ(s, 0);
}

// Repairs of about a minute: partners of one burst end within a minute of each other whether or
// not they share a repair, and the chance test says so.
TEST(SharedRepairFit, ShortRepairsThatEndTogetherByChanceAreNotShared) {
  constexpr double kDays = 1000;
  const auto ev = testing::events(incidents(100, 40.0, 0.0), 5, 0, kDays);
  const SharedRepairFit f = fit_events(ev, kDays);
  ASSERT_GT(f.candidates, 100);
  EXPECT_GT(f.shared, 0.3 * static_cast<double>(f.candidates));  // they do end close together
  EXPECT_GT(f.expected, 0.5 * static_cast<double>(f.shared));
  EXPECT_FALSE(f.supported) << "shared " << f.shared << ", expected " << f.expected << ", p "
                            << f.p_value;
}

}  // namespace
}  // namespace ntpsim::sim
