// Each strategy's transitions on small hand-built failure sequences, against goodput and badput
// computed by hand (the arithmetic is in the comments). Tolerance 1e-9 (exact integer-µs times).
#include <gtest/gtest.h>

#include "sim/engine/engine.h"
#include "tests/sim/sim_fixture.h"

namespace ntpsim::sim {
namespace {

using testing::Bench;
using testing::expect_sums_to_one;
using testing::gpu_failure;
using testing::kTol;
using testing::small_scenario;

TEST(Transitions, NoFailuresOnlyCheckpointCost) {
  Bench b(small_scenario());
  Engine engine(b.config);
  auto s = b.strategy("checkpoint_restart");
  const auto m = engine.run(*s, std::vector<FailureEvent>{});
  // Pauses start at 1000, 2010, ..., 9090 (period 1010): 9 pauses of 10 s.
  EXPECT_NEAR(at(m, Metric::kBadputCheckpoint), 90.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kGoodput), 9910.0 / 10000, kTol);
  EXPECT_EQ(at(m, Metric::kInterruptions), 0);
  EXPECT_NEAR(at(m, Metric::kAvailability), 1.0, kTol);
  // 16 GPUs at 1 kW for 10,000 s.
  EXPECT_NEAR(at(m, Metric::kEnergyMwh), 16 * 1000.0 * 10000 / 3.6e9, 1e-12);
}

TEST(Transitions, CheckpointRestartUsesSpareDomain) {
  Bench b(small_scenario(/*spare_domains=*/1));
  Engine engine(b.config);
  auto s = b.strategy("checkpoint_restart");
  // Commits at 1010 and 2020; failure at 2500 loses 480 s; recovery 100+200+50 ends at 2850; a
  // spare group replaces the damaged one. Pauses after: 3850, 4860, ..., 9910 (7). Before: 2.
  const auto m = engine.run(*s, {gpu_failure(2500, 0, 1, 1e6)});
  EXPECT_NEAR(at(m, Metric::kBadputRollback), 480.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputRecovery), 350.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputCheckpoint), 90.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kGoodput), (10000.0 - 480 - 350 - 90) / 10000, kTol);
  EXPECT_EQ(at(m, Metric::kInterruptions), 1);
  EXPECT_EQ(at(m, Metric::kFailedGpusPeak), 1);
  // One of 24 GPUs down for 7500 s.
  EXPECT_NEAR(at(m, Metric::kAvailability), 1.0 - 7500.0 / 10000 / 24, kTol);
  expect_sums_to_one(m);
}

TEST(Transitions, CheckpointRestartStallsWithoutSpares) {
  Bench b(small_scenario());
  Engine engine(b.config);
  auto s = b.strategy("checkpoint_restart");
  // Failure at 2500 (loses 480), stall until the repair at 3500, restart+restore 250 -> 3750.
  // Pauses after: 4750, 5760, ..., 9800 (6); before: 2.
  const auto m = engine.run(*s, {gpu_failure(2500, 0, 1, 1000)});
  EXPECT_NEAR(at(m, Metric::kBadputStall), 1000.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputRecovery), 250.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputCheckpoint), 80.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kGoodput), (10000.0 - 480 - 1000 - 250 - 80) / 10000, kTol);
  expect_sums_to_one(m);
}

TEST(Transitions, AFailureIgnoredDuringARestartThatLeavesTheJobShortStallsIt) {
  Scenario sc = small_scenario(/*spare_domains=*/1);
  sc.recovery.failures_during_pause = PauseFailures::kIgnore;
  Bench b(sc);
  auto s = b.strategy("checkpoint_restart");
  // Failure at 2500 (loses 480): restart pause 100 + 250 until 2850, a spare group joins.
  // Failures at 2600 and 2700 during the pause, ignored: the second spare group joins, then no
  // group is left and the job stalls at 2700 until the repair at 3200, when the restart starts
  // over (restart + restore 250, detection inside the stall) and ends at 3450. Recovery 200 +
  // 250, stall 500. Pauses after: 4450, 5460, ..., 9500 (6); before: 2.
  const std::vector<FailureEvent> failures = {gpu_failure(2500, 0, 1, 1e6),
                                              gpu_failure(2600, 4, 1, 1e6),
                                              gpu_failure(2700, 8, 1, 500)};
  Engine engine(b.config);
  const auto m = engine.run(*s, failures);
  EXPECT_NEAR(at(m, Metric::kBadputRollback), 480.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputRecovery), 450.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputStall), 500.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputCheckpoint), 80.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kGoodput), (10000.0 - 480 - 450 - 500 - 80) / 10000, kTol);
  EXPECT_EQ(at(m, Metric::kInterruptions), 1);
  expect_sums_to_one(m);
  // The same on an engine whose last run stalled with another pending cost (a restart from
  // memory, 200 + 20, that found the job short at 3500 and was never repaired): nothing of a
  // run carries into the next.
  Engine reused(b.config);
  auto memory =
      b.strategy("checkpoint_restart", {{"resume", ParamValue(std::string("restart_from_memory"))}});
  ASSERT_TRUE(memory);
  reused.run(*memory, {gpu_failure(2500, 0, 1, 1e6), gpu_failure(3000, 4, 1, 1e6),
                       gpu_failure(3500, 8, 1, 1e6)});
  EXPECT_EQ(at(reused.run(*s, failures), Metric::kGoodput), at(m, Metric::kGoodput));
}

TEST(Transitions, FailureAtCommitInstantLosesTheCheckpoint) {
  Bench b(small_scenario(1));
  Engine engine(b.config);
  auto s = b.strategy("checkpoint_restart");
  // The second checkpoint would commit at 2020; a failure at exactly 2020 comes first, so the
  // rollback goes to the first commit (snapshot at 1000): 1000 s of work lost.
  const auto m = engine.run(*s, {gpu_failure(2020, 0, 1, 1e6)});
  EXPECT_NEAR(at(m, Metric::kBadputRollback), 1000.0 / 10000, kTol);
}

TEST(Transitions, NonInterruptingFailureLeavesTheJobAlone) {
  Bench b(small_scenario());
  Engine engine(b.config);
  auto s = b.strategy("checkpoint_restart");
  const auto m = engine.run(*s, {gpu_failure(2500, 0, 1, 1000, /*interrupts=*/false)});
  EXPECT_NEAR(at(m, Metric::kGoodput), 9910.0 / 10000, kTol);
  EXPECT_EQ(at(m, Metric::kInterruptions), 0);
  EXPECT_NEAR(at(m, Metric::kFailedGpusMean), 1000.0 / 10000, kTol);
}

Scenario no_checkpoints() {
  Scenario sc = small_scenario();
  sc.checkpoint.write_s = 0;
  sc.checkpoint.interval_s = 1e9;  // clamped to the horizon: no checkpoint inside it
  return sc;
}

TEST(Transitions, DpDropDropsAndRejoins) {
  Bench b(no_checkpoints());
  Engine engine(b.config);
  auto s = b.strategy("dp_drop");
  // 2500: lose one iteration (10 s), detection+reconfigure 160 -> run 3 of 4 replicas from 2660;
  // repair at 3500 -> planned reconfigure 60 -> full from 3560.
  const auto m = engine.run(*s, {gpu_failure(2500, 0, 1, 1000)});
  EXPECT_NEAR(at(m, Metric::kBadputRollback), 10.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputRecovery), 220.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputDegraded), 840.0 * 0.25 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kGoodput), (10000.0 - 10 - 220 - 210) / 10000, kTol);
  EXPECT_EQ(at(m, Metric::kInterruptions), 2);
  expect_sums_to_one(m);
}

TEST(Transitions, DpDropShrinkingBatchLosesASmallerIteration) {
  Bench b(no_checkpoints());
  Engine engine(b.config);
  auto s = b.strategy("dp_drop", {{"keep_global_batch", false}});
  // Second failure at 3000 while at 3 replicas: the in-flight iteration is 10 s at rate 3/4.
  const auto m = engine.run(*s, {gpu_failure(2500, 0, 1, 1e6), gpu_failure(3000, 4, 1, 1e6)});
  EXPECT_NEAR(at(m, Metric::kBadputRollback), (10.0 + 7.5) / 10000, kTol);
  auto keep = b.strategy("dp_drop", {{"keep_global_batch", true}});
  const auto k = engine.run(*keep, {gpu_failure(2500, 0, 1, 1e6), gpu_failure(3000, 4, 1, 1e6)});
  EXPECT_NEAR(at(k, Metric::kBadputRollback), 20.0 / 10000, kTol);
}

TEST(Transitions, NtpRunsTheDamagedGroupAtReducedDegree) {
  Bench b(no_checkpoints());
  Engine engine(b.config);
  auto s = b.strategy("ntp", testing::in_place());
  // Group 0 at TP 3 carries share 3/4; healthy replicas pay 0.1 s reshard per 10 s iteration:
  // rate = 3.75/4 * 10/10.1, without reshard 3.75/4. Degraded from 2660 to the repair at 3500.
  const auto m = engine.run(*s, {gpu_failure(2500, 0, 1, 1000)});
  const double rnr = 3.75 / 4, rate = rnr * 10 / 10.1;  // share bisection: 1e-6 tolerance
  EXPECT_NEAR(at(m, Metric::kBadputDegraded), 840 * (1 - rnr) / 10000, 1e-6);
  EXPECT_NEAR(at(m, Metric::kBadputReshard), 840 * (rnr - rate) / 10000, 1e-6);
  EXPECT_NEAR(at(m, Metric::kBadputRecovery), 220.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputRollback), 10.0 / 10000, kTol);
  EXPECT_EQ(at(m, Metric::kInterruptions), 2);
  expect_sums_to_one(m);
}

TEST(Transitions, NtpBelowMinTpDropsTheReplica) {
  Bench b(no_checkpoints());
  Engine engine(b.config);
  auto s = b.strategy("ntp", testing::in_place({{"min_tp", int64_t{4}}}));
  const auto m = engine.run(*s, {gpu_failure(2500, 0, 1, 1000)});
  EXPECT_NEAR(at(m, Metric::kBadputDegraded), 840 * 0.25 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputReshard), 0.0, kTol);
}

TEST(Transitions, NtpPackingPutsDamagedGroupsInOneReplica) {
  Scenario sc = no_checkpoints();
  sc.layout.pp = 2;
  sc.layout.dp = 2;
  Bench b(sc);
  Engine engine(b.config);
  // Groups 0 and 2 (domains 0 and 1) each lose a GPU. Packed: one replica at TP 3 (share 3/4),
  // one healthy: 1.75/2. Spread: both replicas at TP 3: 1.5/2.
  const std::vector<FailureEvent> f = {gpu_failure(2500, 0, 1, 1e6), gpu_failure(2500, 8, 1, 1e6)};
  auto packed = b.strategy("ntp", testing::in_place());
  auto spread = b.strategy("ntp", testing::in_place({{"pack", false}}));
  const auto mp = engine.run(*packed, f);
  const auto ms = engine.run(*spread, f);
  // Both failures at 2500 interrupt; the second restarts the recovery: running from 2660.
  EXPECT_NEAR(at(mp, Metric::kBadputDegraded), 7340 * (1 - 1.75 / 2) / 10000, 1e-6);
  EXPECT_NEAR(at(ms, Metric::kBadputDegraded), 7340 * (1 - 1.5 / 2) / 10000, 1e-6);
}

TEST(Transitions, NtpParityRuleAndTpStep) {
  Scenario sc = no_checkpoints();
  sc.layout.pp = 2;
  sc.layout.dp = 2;
  Bench b(sc);
  Engine engine(b.config);
  // Group 0 (replica 0) loses 1 GPU -> TP 3; group 2 (replica 1) loses 2 -> TP 2. Spread over
  // both replicas: per_group gives shares 3/4 and 1/2; parity runs both at TP 2 (1/2 each).
  const std::vector<FailureEvent> f = {gpu_failure(2500, 0, 1, 1e6), gpu_failure(2500, 8, 2, 1e6)};
  auto per_group = b.strategy("ntp", testing::in_place({{"pack", false}}));
  auto parity =
      b.strategy("ntp", testing::in_place({{"pack", false}, {"rule", std::string("parity")}}));
  EXPECT_NEAR(at(engine.run(*per_group, f), Metric::kBadputDegraded), 7340 * (1 - 1.25 / 2) / 10000,
              1e-6);
  EXPECT_NEAR(at(engine.run(*parity, f), Metric::kBadputDegraded), 7340 * (1 - 1.0 / 2) / 10000,
              1e-6);
  // tp_step 2: one failed GPU of 4 leaves TP 3, rounded down to 2: share 1/2 of one replica.
  Bench b4(no_checkpoints());
  Engine e4(b4.config);
  auto step = b4.strategy("ntp", testing::in_place({{"tp_step", int64_t{2}}}));
  EXPECT_NEAR(at(e4.run(*step, {gpu_failure(2500, 0, 1, 1e6)}), Metric::kBadputDegraded),
              7340 * (1 - 3.5 / 4) / 10000, 1e-6);
}

TEST(Transitions, NtpWithoutKeepPaceSlowsTheJob) {
  Bench b(no_checkpoints());
  Engine engine(b.config);
  auto s = b.strategy("ntp", testing::in_place({{"keep_pace", false}}));
  // Full share at TP 3 takes 10*4/3 s: the job runs at 10/(13.333) of ideal (+ reshard).
  const auto m = engine.run(*s, {gpu_failure(2500, 0, 1, 1e6)});
  const double rnr = 10.0 / (10.0 * 4 / 3);
  EXPECT_NEAR(at(m, Metric::kBadputDegraded), 7340 * (1 - rnr) / 10000, kTol);
}

TEST(Transitions, PowerBoostKeepsFullShare) {
  Bench b(no_checkpoints());
  Engine engine(b.config);
  // TP 3 needs power ratio 4/3 for full share; the cap 1.5 allows it, the domain budget too
  // ((4 GPUs x 1 kW - 1 idle GPU x 100 W) / 3 = 1.3 kW per GPU < 4/3 kW!) -> without budget.
  auto s = b.strategy("ntp_power_boost",
                      testing::in_place({{"max_power", 0.5}, {"domain_budget", false}}));
  const auto m = engine.run(*s, {gpu_failure(2500, 0, 1, 1e6)});
  EXPECT_NEAR(at(m, Metric::kBadputDegraded), 0.0, 1e-9);
  EXPECT_NEAR(at(m, Metric::kBadputReshard), 7340 * (1 - 10 / 10.1) / 10000, 1e-9);
  // Boost: 3 GPUs x 1 kW x 1/3 for 7340 s.
  EXPECT_NEAR(at(m, Metric::kBoostEnergyMwh), 1000.0 * 7340 / 3.6e9, 1e-9);
  // With the domain budget the ratio is capped at 1.3: share 0.975.
  auto budget = b.strategy("ntp_power_boost", testing::in_place({{"max_power", 0.5}}));
  const auto mb = engine.run(*budget, {gpu_failure(2500, 0, 1, 1e6)});
  EXPECT_NEAR(at(mb, Metric::kBadputDegraded), 7340 * (1 - 3.975 / 4) / 10000, 1e-6);
}

TEST(Transitions, SpareSubstitutionUsesInDomainSpareGpu) {
  // 8 GPUs per domain at TP 3: 2 groups + 2 idle GPUs per domain.
  Scenario sc = no_checkpoints();
  sc.cluster.domains = 2;
  sc.cluster.gpus_per_domain = 8;
  sc.layout.tp = 3;
  Bench b(sc);
  Engine engine(b.config);
  auto s = b.strategy("spare_substitution");
  // Swap: lose 10 s, detection + swap 400 s, then whole again; the repair changes nothing.
  const auto m = engine.run(*s, {gpu_failure(2500, 0, 1, 1000)});
  EXPECT_NEAR(at(m, Metric::kBadputRecovery), 400.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputRollback), 10.0 / 10000, kTol);
  EXPECT_EQ(at(m, Metric::kInterruptions), 1);
  // Failure of an idle GPU (GPU 6 of domain 0) does not interrupt at all.
  const auto idle = engine.run(*s, {gpu_failure(2500, 6, 1, 1000)});
  EXPECT_EQ(at(idle, Metric::kInterruptions), 0);
}

TEST(Transitions, SpareSubstitutionFallsBackToRestart) {
  Bench b(small_scenario());  // no idle GPUs (8 = 2 x 4), no spare domain
  Engine engine(b.config);
  auto s = b.strategy("spare_substitution");
  // Same as CheckpointRestartStallsWithoutSpares.
  const auto m = engine.run(*s, {gpu_failure(2500, 0, 1, 1000)});
  EXPECT_NEAR(at(m, Metric::kGoodput), (10000.0 - 480 - 1000 - 250 - 80) / 10000, kTol);
  // With a spare domain: a whole-domain failure is covered by swapping in two spare groups.
  Bench b2(small_scenario(1));
  Engine e2(b2.config);
  auto s2 = b2.strategy("spare_substitution");
  const auto m2 = e2.run(*s2, {gpu_failure(2500, 0, 8, 1e6)});
  // Loses the in-flight iteration of the blocking-checkpoint cycle (480 s since the pause at
  // 2020 -> min(480, 10) = 10), detection + swap 400 s.
  EXPECT_NEAR(at(m2, Metric::kBadputRollback), 10.0 / 10000, kTol);
  EXPECT_NEAR(at(m2, Metric::kBadputRecovery), 400.0 / 10000, kTol);
}

TEST(Transitions, TokenBudgetStopsAtTheTarget) {
  Scenario sc = small_scenario();
  sc.horizon_s = 0;
  sc.train_tokens = 5000;  // the bench's ideal rate is 1 token/s: 5000 ideal seconds
  Bench b(sc);
  Engine engine(b.config);
  auto s = b.strategy("checkpoint_restart");
  // Pauses at 1000, 2010, 3020, 4030: the work reaches 5000 s at 5040 s.
  const auto m = engine.run(*s, std::vector<FailureEvent>{});
  EXPECT_NEAR(at(m, Metric::kTimeToTrainDays), 5040.0 / 86400, kTol);
  EXPECT_NEAR(at(m, Metric::kGoodput), 5000.0 / 5040, kTol);
  // A failure at 2500 with a 1000 s repair (no spares): +480 rollback, +1000 stall, +250.
  const auto f = engine.run(*s, {gpu_failure(2500, 0, 1, 1000)});
  EXPECT_NEAR(at(f, Metric::kTimeToTrainDays), (5040.0 + 480 + 1000 + 250) / 86400, kTol);
}

TEST(Transitions, FingerprintIsStableAcrossReruns) {
  Bench b(small_scenario(1));
  Engine engine(b.config);
  engine.keep_fingerprint(true);
  auto s = b.strategy("ntp", testing::in_place());
  const std::vector<FailureEvent> f = {gpu_failure(100, 0, 1, 500), gpu_failure(300, 9, 1, 50),
                                       gpu_failure(301, 16, 8, 1000)};
  (void)engine.run(*s, f);
  const uint64_t h1 = engine.trajectory_hash();
  EXPECT_EQ(engine.events_processed(), 6u);
  (void)engine.run(*b.strategy("dp_drop"), f);
  (void)engine.run(*s, f);
  EXPECT_EQ(engine.trajectory_hash(), h1);
  // Without the fingerprint the run is the same; asking for its hash is a programming error.
  engine.keep_fingerprint(false);
  (void)engine.run(*s, f);
  EXPECT_EQ(engine.events_processed(), 6u);
  EXPECT_DEATH((void)engine.trajectory_hash(), "did not keep a fingerprint");
}

}  // namespace
}  // namespace ntpsim::sim
