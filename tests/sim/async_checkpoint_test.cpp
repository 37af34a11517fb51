// Asynchronous checkpoints (engine.h, "Checkpoint cycle"): a short pause, then a background
// write that slows the job until it commits, lost if an interruption comes first. Expected
// goodput and badput are computed by hand (arithmetic in the comments); the bench's healthy rate
// is 1 ideal second per second. Tolerance 1e-9 (exact integer-µs times).
#include <gtest/gtest.h>

#include "sim/engine/checkpoint_interval.h"
#include "sim/engine/engine.h"
#include "tests/sim/sim_fixture.h"

namespace ntpsim::sim {
namespace {

using testing::Bench;
using testing::expect_sums_to_one;
using testing::gpu_failure;
using testing::kTol;
using testing::small_scenario;

// A 10 s write of which 20% (2 s) pauses the job; the other 8 s run at half speed.
Scenario async_scenario(int spare_domains = 0) {
  Scenario s = small_scenario(spare_domains);
  s.checkpoint.async_exposed_fraction = 0.2;
  s.checkpoint.async_slowdown = 0.5;
  return s;
}

TEST(AsyncCheckpoint, OverheadIsThePausePlusTheSlowedBackgroundWrite) {
  EXPECT_DOUBLE_EQ(checkpoint_overhead_s(10, 2, 0.5), 6.0);
  EXPECT_DOUBLE_EQ(checkpoint_overhead_s(10, 10, 0.5), 10.0);  // blocking: nothing in background
  EXPECT_DOUBLE_EQ(checkpoint_overhead_s(10, 2, 0.0), 2.0);
  Bench b(async_scenario());
  EXPECT_NEAR(b.config.checkpoint_cost_s, 6.0, kTol);
}

// Pauses at 1000 + 1002 k, k = 0..8 (period: 2 s pause + 1000 s running); each is followed by
// 8 s at half speed (4 s of work lost), all inside the horizon: 9 x (2 + 4) = 54 s.
TEST(AsyncCheckpoint, BackgroundWriteSlowsTheJobUntilItCommits) {
  Bench b(async_scenario());
  Engine engine(b.config);
  auto s = b.strategy("checkpoint_restart");
  const auto m = engine.run(*s, std::vector<FailureEvent>{});
  EXPECT_NEAR(at(m, Metric::kBadputCheckpoint), 54.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kGoodput), (10000.0 - 54) / 10000, kTol);
  // Effective training time counts the slowed running as training: only the 9 pauses are lost.
  EXPECT_NEAR(at(m, Metric::kEffectiveTrainingTime), (10000.0 - 18) / 10000, kTol);
  expect_sums_to_one(m);
}

// A failure at 2005, during the second write's background part (pause 2002-2004, commit due at
// 2012): that snapshot is lost, the job rolls back to the one taken at 1000. Work since then:
// 1002-1010 at half speed (4) + 1010-2002 (992) + 2004-2005 at half speed (0.5) = 996.5 s.
// Recovery 100 + 200 + 50 ends at 2355 (a spare domain replaces the damaged one); pauses follow
// at 3355 + 1002 j, j = 0..6 (7 x 6 s). Checkpoint time: 2 + 4 + 2 + 0.5 + 42 = 50.5 s.
TEST(AsyncCheckpoint, AnInterruptionDuringTheBackgroundWriteLosesIt) {
  Bench b(async_scenario(/*spare_domains=*/1));
  Engine engine(b.config);
  auto s = b.strategy("checkpoint_restart");
  const auto m = engine.run(*s, {gpu_failure(2005, 0, 1, 1e6)});
  EXPECT_NEAR(at(m, Metric::kBadputRollback), 996.5 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputRecovery), 350.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputCheckpoint), 50.5 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kGoodput), (10000.0 - 996.5 - 350 - 50.5) / 10000, kTol);
  // Wall time: the running since the snapshot at 1000 is discarded (1002-2002 and 2004-2005:
  // 1001 s, more than its 996.5 s of work, half of 1002-1010 having run slowed); recovery 350 s;
  // pauses 1000, 2002 and 7 after the restart: 9 x 2 s.
  EXPECT_NEAR(at(m, Metric::kEffectiveTrainingTime), (10000.0 - 1001 - 350 - 18) / 10000, kTol);
  expect_sums_to_one(m);
}

// The same failure after the commit (2012) loses only the work since the snapshot at 2002:
// 2004-2012 at half speed (4) + 2012-2020 (8) = 12 s.
TEST(AsyncCheckpoint, AnInterruptionAfterTheCommitKeepsTheSnapshot) {
  Bench b(async_scenario(1));
  Engine engine(b.config);
  auto s = b.strategy("checkpoint_restart");
  const auto m = engine.run(*s, {gpu_failure(2020, 0, 1, 1e6)});
  EXPECT_NEAR(at(m, Metric::kBadputRollback), 12.0 / 10000, kTol);
  expect_sums_to_one(m);
}

// A token budget of 5000 ideal seconds: pauses at 1000, 2002, 3004, 4006 cost 6 s each (2 s
// paused, 4 s of the 8 s background write), so the work is 4984 s at 5008, when the fifth pause
// starts; pause to 5010, half speed to 5018 (4988 s), then 12 s more: 5030 s.
TEST(AsyncCheckpoint, TokenBudgetCountsTheSlowedWork) {
  Scenario sc = async_scenario();
  sc.horizon_s = 0;
  sc.train_tokens = 5000;
  Bench b(sc);
  Engine engine(b.config);
  auto s = b.strategy("checkpoint_restart");
  const auto m = engine.run(*s, std::vector<FailureEvent>{});
  EXPECT_NEAR(at(m, Metric::kTimeToTrainDays), 5030.0 / 86400, kTol);
  // Stopping inside a background write: budget 1003 ideal s; pause 1000-1002, then half speed
  // from 1002: the last 3 s of work take 6 s, to 1008.
  sc.train_tokens = 1003;
  Bench c(sc);
  Engine e2(c.config);
  const auto m2 = e2.run(*c.strategy("checkpoint_restart"), std::vector<FailureEvent>{});
  EXPECT_NEAR(at(m2, Metric::kTimeToTrainDays), 1008.0 / 86400, kTol);
}

// An interval shorter than the background write (a caller's rounding at the bound, or any
// caller) is raised to it, so each write commits before the next starts: 8 s running first, then
// periods of 2 s paused + 8 s at half speed (4 s of work) from 8 s; the last pause (9998 s) ends
// at the horizon. Work 8 + 999 x 4 = 4004 s.
TEST(AsyncCheckpoint, AnIntervalBelowTheBackgroundWriteIsRaisedToIt) {
  Bench b(async_scenario());
  Engine engine(b.config);
  auto s = b.strategy("checkpoint_restart");
  EventSchedule schedule;
  schedule.build({}, b.config.end);
  const auto m = engine.run(*s, Duration::from_seconds(1), schedule);
  EXPECT_NEAR(at(m, Metric::kGoodput), 4004.0 / 10000, kTol);
  expect_sums_to_one(m);
}

// With auto intervals the renewal optimum uses the overhead (6 s), not the pause (2 s).
TEST(AsyncCheckpoint, AutoIntervalUsesTheOverhead) {
  Scenario sc = async_scenario();
  sc.checkpoint.auto_interval = true;
  sc.checkpoint.shared_auto_interval = false;
  const JobLayout layout = *JobLayout::make(sc);
  const auto cfg = EngineConfig::make(sc, layout, 1e-4, 1.0);
  ASSERT_TRUE(cfg.ok());
  EXPECT_NEAR(cfg->interval_s_for(1e-4), optimal_interval_s(6.0, 1e4), 1e-6);
}

}  // namespace
}  // namespace ntpsim::sim
