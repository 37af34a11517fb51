// The resume mechanisms (sim/strategies/strategy.h, Resume) on hand-built failure sequences,
// against goodput and badput computed by hand (the arithmetic is in the comments). Tolerance
// 1e-9 (exact integer-µs times) unless a share bisection is involved (1e-6).
#include <gtest/gtest.h>

#include <string>

#include "sim/engine/engine.h"
#include "tests/sim/sim_fixture.h"

namespace ntpsim::sim {
namespace {

using testing::Bench;
using testing::expect_sums_to_one;
using testing::gpu_failure;
using testing::kTol;
using testing::small_scenario;

ParamValue text(const char* s) {
  return ParamValue(std::string(s));
}

// One run at the snapshot interval `interval_s` (what Simulation gives a restart_from_memory
// strategy).
ReplicationMetrics run_every(Engine& engine, const Strategy& s, double interval_s,
                             const std::vector<FailureEvent>& failures, Time end) {
  EventSchedule schedule;
  schedule.build(failures, end);
  return engine.run(s, Duration::from_seconds(interval_s), schedule);
}

// NTP that restarts from the persistent checkpoint: the failure at 2500 rolls back to the
// snapshot of 2010 (committed at 2020): 480 s of work; it pays detection + restart + restore
// (100 + 200 + 50) and restarts at TP 3 with share 3/4 from 2850. The repair at 3500 does not
// trigger a planned reconfiguration: the repaired GPU joins at the next restart, so the job runs
// degraded to the end: 7150 s less 7 checkpoint pauses (3850, 4860, ..., 9910) = 7080 s.
TEST(Resume, NtpRestartingFromTheCheckpointRollsBackAndKeepsItsDegreeUntilTheNextRestart) {
  Bench b(small_scenario());
  Engine engine(b.config);
  auto s = b.strategy("ntp", {{"resume", text("restart_from_checkpoint")}});
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->resume().mechanism, Resume::kRestartFromCheckpoint);
  EXPECT_EQ(s->rollback_exposure(), RollbackExposure::kEveryInterruption);
  const auto m = engine.run(*s, {gpu_failure(2500, 0, 1, 1000)});
  const double rnr = 3.75 / 4, rate = rnr * 10 / 10.1;
  EXPECT_NEAR(at(m, Metric::kBadputRollback), 480.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputRecovery), 350.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputDegraded), 7080 * (1 - rnr) / 10000, 1e-6);
  EXPECT_NEAR(at(m, Metric::kBadputReshard), 7080 * (rnr - rate) / 10000, 1e-6);
  EXPECT_EQ(at(m, Metric::kInterruptions), 1);
  // Effective training time: running at the reduced degree counts; lost are the 480 s of running
  // rolled back, the recovery and the 9 pauses of 10 s (1000, 2010, then 7 after the restart).
  EXPECT_NEAR(at(m, Metric::kEffectiveTrainingTime), (10000.0 - 480 - 350 - 90) / 10000, kTol);
  expect_sums_to_one(m);
}

// In place, the same failure costs detection + reconfigure + the state transfer (100 + 60 + 30)
// and the repair's planned reconfiguration (60): 250 s of recovery; one iteration (10 s) lost.
TEST(Resume, InPlacePaysTheStateTransferOnTopOfTheReconfiguration) {
  Scenario sc = small_scenario();
  sc.recovery.state_transfer_s = 30.0;
  sc.checkpoint.interval_s = 1e6;  // no checkpoint inside the run
  Bench b(sc);
  Engine engine(b.config);
  auto s = b.strategy("dp_drop");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->resume().mechanism, Resume::kInPlace);
  const auto m = engine.run(*s, {gpu_failure(2500, 0, 1, 1000)});
  EXPECT_NEAR(at(m, Metric::kBadputRollback), 10.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputRecovery), 250.0 / 10000, kTol);
  EXPECT_EQ(at(m, Metric::kInterruptions), 2);
  // The in-flight iteration's 10 s of running and the 250 s of recovery; the 1000 s at one replica
  // fewer still count as training time.
  EXPECT_NEAR(at(m, Metric::kEffectiveTrainingTime), (10000.0 - 10 - 250) / 10000, kTol);
  expect_sums_to_one(m);
}

// In-memory snapshots every 200 s of running, a 1 s pause each, committed 21 s after the pause
// starts (pause + the 20 s copy to the peer); every 5th (1000 s / 200 s) is also persistent.
// Snapshot k starts at 200 + 201 (k - 1): the 12th at 2411 (committed 2432), so a GPU failure at
// 2500 loses 88 s and pays detection + restart + memory restore (100 + 200 + 20); the job takes
// the spare domain's group.
Scenario memory_scenario() {
  Scenario sc = small_scenario(/*spare_domains=*/2);
  sc.checkpoint.memory.auto_interval = false;
  sc.checkpoint.memory.interval_s = 200;
  sc.checkpoint.memory.exposed_s = 1;
  sc.checkpoint.memory.restore_s = 20;
  return sc;
}

TEST(Resume, RestartFromMemoryRollsBackToTheLastSnapshot) {
  Bench b(memory_scenario());
  Engine engine(b.config);
  auto s = b.strategy("checkpoint_restart", {{"resume", text("restart_from_memory")}});
  ASSERT_NE(s, nullptr);
  const double interval_s = b.config.interval_s_for(0.0, Resume::kRestartFromMemory);
  EXPECT_EQ(interval_s, 200.0);
  const auto m = run_every(engine, *s, interval_s, {gpu_failure(2500, 0, 1, 1e6)}, b.config.end);
  EXPECT_NEAR(at(m, Metric::kBadputRollback), 88.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputRecovery), 320.0 / 10000, kTol);
  expect_sums_to_one(m);
}

// A domain failure takes its hosts' memory. Spare domain 3 (not in the job: no interruption)
// fails at 2450, after the 2432 commit; job domain 0 fails at 2500. Domain 3 holds domain 0's
// peer copy (the host of the same position in the previous domain, cyclically), so both copies
// of domain 0's snapshot are gone: the job rolls back to the last persistent snapshot, the 10th
// (started 2009): 491 s less the pauses at 2009, 2210 and 2411 = 488 s, and restores from
// persistent storage (100 + 200 + 50).
TEST(Resume, LosingAHostAndItsPeerFallsBackToThePersistentCheckpoint) {
  Bench b(memory_scenario());
  Engine engine(b.config);
  auto s = b.strategy("checkpoint_restart", {{"resume", text("restart_from_memory")}});
  ASSERT_NE(s, nullptr);
  const std::vector<FailureEvent> failures = {gpu_failure(2450, 24, 8, 1e6),
                                              gpu_failure(2500, 0, 8, 1e6)};
  const auto m = run_every(engine, *s, 200, failures, b.config.end);
  EXPECT_NEAR(at(m, Metric::kBadputRollback), 488.0 / 10000, kTol);
  EXPECT_NEAR(at(m, Metric::kBadputRecovery), 350.0 / 10000, kTol);
  expect_sums_to_one(m);

  // Without the first failure the snapshot survives: 88 s lost, the memory restore paid.
  const std::vector<FailureEvent> one = {gpu_failure(2500, 0, 8, 1e6)};
  const auto k = run_every(engine, *s, 200, one, b.config.end);
  EXPECT_NEAR(at(k, Metric::kBadputRollback), 88.0 / 10000, kTol);
  EXPECT_NEAR(at(k, Metric::kBadputRecovery), 320.0 / 10000, kTol);
}

// A GPU failure leaves its host's memory alone: two GPU failures in the host and its peer do not
// lose the snapshot.
TEST(Resume, GpuFailuresKeepTheInMemorySnapshot) {
  Bench b(memory_scenario());
  Engine engine(b.config);
  auto s = b.strategy("checkpoint_restart", {{"resume", text("restart_from_memory")}});
  const std::vector<FailureEvent> failures = {gpu_failure(2450, 24, 1, 1e6),
                                              gpu_failure(2500, 0, 1, 1e6)};
  const auto m = run_every(engine, *s, 200, failures, b.config.end);
  EXPECT_NEAR(at(m, Metric::kBadputRollback), 88.0 / 10000, kTol);
}

// Fast-forwarding whole snapshot periods keeps the persistent bookkeeping: a run whose only
// failure comes late gives the same rollback as the period arithmetic. Snapshot k starts at
// 200 + 201 (k - 1); at 9000 the last started is the 44th (8843, committed 8864): 156 s lost
// from memory. With the snapshot lost the persistent one is the 40th (8039): 961 s less the
// pauses at 8039, 8240, 8441, 8642, 8843 = 956 s.
TEST(Resume, FastForwardedSnapshotsKeepThePersistentOneInStep) {
  Bench b(memory_scenario());
  Engine engine(b.config);
  auto s = b.strategy("checkpoint_restart", {{"resume", text("restart_from_memory")}});
  const std::vector<FailureEvent> one = {gpu_failure(9000, 0, 1, 1e6)};
  const auto m = run_every(engine, *s, 200, one, b.config.end);
  EXPECT_NEAR(at(m, Metric::kBadputRollback), 156.0 / 10000, kTol);
  const std::vector<FailureEvent> lost = {gpu_failure(8950, 24, 8, 1e6),
                                          gpu_failure(9000, 0, 8, 1e6)};
  const auto l = run_every(engine, *s, 200, lost, b.config.end);
  EXPECT_NEAR(at(l, Metric::kBadputRollback), 956.0 / 10000, kTol);
  // A healthy job at the ideal pace with no background slowdown: wall time and work coincide, so
  // the effective training time equals goodput, fallback to the persistent snapshot included.
  EXPECT_NEAR(at(l, Metric::kEffectiveTrainingTime), at(l, Metric::kGoodput), kTol);
  EXPECT_NEAR(at(m, Metric::kEffectiveTrainingTime), at(m, Metric::kGoodput), kTol);
}

// The mechanisms a strategy may name, and the consistency rule for in place.
TEST(Resume, ParametersAreCheckedAgainstTheStrategy) {
  Bench b(small_scenario());
  // checkpoint_restart has no action that can run in place.
  EXPECT_EQ(b.strategy("checkpoint_restart", {{"resume", text("in_place")}}), nullptr);
  // The distributed optimizer's single copy: refused, unless the user accepts the assumption.
  EXPECT_EQ(b.strategy("ntp", {{"resume", text("in_place")}, {"state_copy", text("none")}}),
            nullptr);
  auto allowed = b.strategy("ntp", {{"resume", text("in_place")},
                                    {"state_copy", text("none")},
                                    {"allow_lost_state", ParamValue(true)}});
  ASSERT_NE(allowed, nullptr);
  EXPECT_EQ(allowed->resume().state_copy, StateCopy::kNone);
  auto err = resume_spec(StrategyConfig{
      "ntp", "ntp", {{"state_copy", text("none")}, {"resume", text("in_place")}}, {}});
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.error().message.find("exists nowhere else"), std::string::npos);
}

}  // namespace
}  // namespace ntpsim::sim
