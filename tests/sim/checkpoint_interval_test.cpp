// Checkpoint intervals and failures during recovery: the renewal-model closed forms
// (sim/engine/checkpoint_interval.h) against the engine, each strategy's own interval under
// `checkpoint.interval: auto_per_strategy`, and recovery.failures_during_pause.
#include "sim/engine/checkpoint_interval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "sim/engine/engine.h"
#include "sim/metrics/aggregate.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/scenario/loader.h"
#include "sim/simulation/shortage.h"
#include "sim/simulation/simulation.h"
#include "tests/sim/sim_fixture.h"

namespace ntpsim::sim {
namespace {

// A job of `domains` x 8 GPUs (TP 8, PP 1, DP = domains) with `spares` spare domains, a
// proportional step model, GPU failures at `rate_per_h` per GPU repaired in `repair_s`, and
// the given strategies.
Scenario job(int domains, int spares, double rate_per_h, double repair_s,
             const std::vector<std::string>& strategies) {
  Scenario s = testing::tiny_job(domains, 8, 8, spares, rate_per_h, repair_s);
  s.name = "interval";
  // ntp as the reconfiguring strategy it is in place (its default restarts from the checkpoint).
  for (const auto& name : strategies) {
    std::map<std::string, ParamValue> params;
    if (name == "ntp") params.emplace("resume", std::string("in_place"));
    s.strategies.push_back(StrategyConfig{name, name, params, {}});
  }
  s.replications.fixed = 4;
  return s;
}

double mean_goodput(const RunResult& r, size_t k) {
  std::vector<double> g;
  for (const auto& rep : r.strategies[k].replications) g.push_back(at(rep, Metric::kGoodput));
  return summarize(g).mean;
}

// ---- closed forms ---------------------------------------------------------------------------

TEST(RenewalModel, OptimumMinimisesTheExpectedSegmentTime) {
  // Golden-section search on E[S]/tau (R only scales it) at C/M from 1e-4 to 0.5.
  for (const double c_over_m : {1e-4, 1e-2, 0.1, 0.5}) {
    const double m = 3600, c = c_over_m * m;
    const auto waste = [&](double tau) {
      return renewal_segment_s(tau, c, m, 600, PauseFailures::kRestart) / tau;
    };
    double lo = 1e-3 * m, hi = 2 * m;
    const double phi = (std::sqrt(5.0) - 1) / 2;
    for (int i = 0; i < 200; ++i) {
      const double a = hi - phi * (hi - lo), b = lo + phi * (hi - lo);
      if (waste(a) < waste(b))
        hi = b;
      else
        lo = a;
    }
    EXPECT_NEAR(optimal_interval_s(c, m), 0.5 * (lo + hi), 1e-6 * m) << c_over_m;
  }
}

TEST(RenewalModel, OptimumAgreesWithDalysSeriesAndYoungWhenCheckpointsAreCheap) {
  const double m = 86400;
  for (const double c : {1.0, 10.0, 60.0, 600.0}) {
    const double x = c / (2 * m);
    const double daly = std::sqrt(2 * c * m) * (1 + std::sqrt(x) / 3 + x / 9) - c;
    // Daly's higher-order estimate is the series of the exact optimum: agreement to O(x^{3/2}).
    EXPECT_NEAR(optimal_interval_s(c, m), daly, 1e-3 * daly) << c;
    EXPECT_NEAR(optimal_interval_s(c, m), std::sqrt(2 * c * m), 0.2 * std::sqrt(2 * c * m));
  }
  // Where C is not << M, first-order Young overshoots M; the exact optimum stays below it.
  EXPECT_GT(std::sqrt(2 * 2400.0 * 3600.0), 3600.0);
  EXPECT_LT(optimal_interval_s(2400, 3600), 3600.0);
  EXPECT_EQ(optimal_interval_s(0, 3600), 0.0);
}

TEST(RenewalModel, ModesDifferOnlyInTheRecoveryFactor) {
  const double tau = 1200, c = 60, m = 3600, r = 1200;
  const double restart = renewal_segment_s(tau, c, m, r, PauseFailures::kRestart);
  const double ignore = renewal_segment_s(tau, c, m, r, PauseFailures::kIgnore);
  EXPECT_NEAR(restart / ignore, std::exp(r / m) / (1 + r / m), 1e-12);
  // No failures: a segment takes tau + C.
  EXPECT_NEAR(renewal_segment_s(tau, c, 1e12, r, PauseFailures::kRestart), tau + c, 1e-3);
  EXPECT_NEAR(renewal_goodput(tau, c, m, r, PauseFailures::kIgnore), tau / ignore, 1e-15);
}

// ---- the engine against the renewal model --------------------------------------------------

// checkpoint_restart alone on exponential job interruptions (M = 1 h), a fixed interval of
// 20 min, a 60 s blocking write and R = 1200 s: Daly's renewal goodput in both modes. Spare
// domains and one-minute repairs keep the job from ever stalling, so every interruption is one
// Poisson arrival of the model.
TEST(RenewalModel, EngineMatchesDalyInBothPauseModes) {
  const double m_s = 3600, tau_s = 1200, c_s = 60, r_s = 1200;
  Scenario s = job(8, 2, 3600.0 / m_s / 64, 60, {"checkpoint_restart"});
  s.checkpoint.auto_interval = false;
  s.checkpoint.interval_s = tau_s;
  s.checkpoint.write_s = c_s;
  s.checkpoint.restore_s = 200;
  s.recovery.detection_s = 100;
  s.recovery.restart_s = 900;
  s.horizon_s = 365 * 86400.0;
  s.replications.fixed = 8;
  RunOptions o;
  o.threads = 2;
  o.timeline = false;
  std::vector<double> sim_goodput;
  for (const PauseFailures mode : {PauseFailures::kRestart, PauseFailures::kIgnore}) {
    s.recovery.failures_during_pause = mode;
    auto r = run_monte_carlo(s, o);
    ASSERT_TRUE(r.ok()) << r.error().message;
    const double expected = renewal_goodput(tau_s, c_s, m_s, r_s, mode);
    // Tolerance 0.003: the engine agrees to about 0.0006 at this seed; the modes differ by
    // 0.027 here, so the check tells them apart.
    EXPECT_NEAR(mean_goodput(*r, 0), expected, 0.003) << to_string(mode);
    sim_goodput.push_back(mean_goodput(*r, 0));
  }
  EXPECT_NEAR(sim_goodput[1] - sim_goodput[0],
              renewal_goodput(tau_s, c_s, m_s, r_s, PauseFailures::kIgnore) -
                  renewal_goodput(tau_s, c_s, m_s, r_s, PauseFailures::kRestart),
              0.003);
}

// ---- failures during a recovery pause (engine unit checks) ---------------------------------

TEST(PauseFailures, IgnoredFailureLeavesThePauseAndTheWorkAlone) {
  using testing::Bench;
  using testing::gpu_failure;
  for (const PauseFailures mode : {PauseFailures::kRestart, PauseFailures::kIgnore}) {
    Scenario sc = testing::small_scenario(/*spare_domains=*/1);
    sc.recovery.failures_during_pause = mode;
    Bench b(sc);
    auto st = b.strategy("checkpoint_restart");
    ASSERT_NE(st, nullptr);
    Engine engine(b.config);
    // A failure at 2500 s (pause 100 + 200 + 50 = 350 s), a second one at 2600 s inside it.
    const auto m = engine.run(*st, {gpu_failure(2500, 0, 1, 1e6), gpu_failure(2600, 8, 1, 1e6)});
    const double recovery_s = at(m, Metric::kBadputRecovery) * 10000;
    if (mode == PauseFailures::kRestart) {
      EXPECT_NEAR(recovery_s, 100 + 350, 1e-6);  // the pause starts over at 2600 s
      EXPECT_EQ(at(m, Metric::kInterruptions), 2);
    } else {
      EXPECT_NEAR(recovery_s, 350, 1e-6);  // the pause ends at 2850 s as planned
      EXPECT_EQ(at(m, Metric::kInterruptions), 1);
    }
    // The spare domain's two groups stand in for the damaged groups of domains 0 and 1, so
    // the job never stalls in either mode (in ignore mode, re-picked at no extra cost).
    EXPECT_NEAR(at(m, Metric::kBadputStall), 0.0, 1e-12) << to_string(mode);
  }
}

TEST(PauseFailures, RestartModeIsTheDefaultAndLeavesRunsUnchanged) {
  Scenario s = job(4, 1, 0.05, 600, {"checkpoint_restart", "ntp", "spare_substitution"});
  RunOptions o;
  o.threads = 1;
  o.timeline = false;
  EXPECT_EQ(s.recovery.failures_during_pause, PauseFailures::kRestart);
  auto a = run_monte_carlo(s, o);
  s.recovery.failures_during_pause = PauseFailures::kRestart;
  auto b = run_monte_carlo(s, o);
  s.recovery.failures_during_pause = PauseFailures::kIgnore;
  auto c = run_monte_carlo(s, o);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  for (size_t k = 0; k < a->strategies.size(); ++k) {
    for (size_t i = 0; i < a->strategies[k].replications.size(); ++i) {
      const auto& x = a->strategies[k].replications[i];
      const auto& y = b->strategies[k].replications[i];
      EXPECT_EQ(std::memcmp(x.data(), y.data(), sizeof(x)), 0);  // bytes: NaN metrics too
    }
  }
  EXPECT_EQ(a->events, b->events);
  // Ignoring failures during pauses can only remove recovery time for checkpoint_restart.
  EXPECT_GE(mean_goodput(*c, 0), mean_goodput(*a, 0));
}

// ---- one interval per strategy --------------------------------------------------------------

TEST(PerStrategyInterval, EachStrategyGetsTheIntervalOfWhatRollsItBack) {
  // 8 job domains, 1 spare domain, failures often enough that spares sometimes run short.
  Scenario s =
      job(8, 1, 0.002, 4 * 3600.0, {"checkpoint_restart", "ntp", "dp_drop", "spare_substitution"});
  s.strategies.push_back(StrategyConfig{"spare_substitution",
                                        "spares_then_dp_drop",
                                        {{"fallback", ParamValue{std::string("dp_drop")}}},
                                        {}});
  s.checkpoint.write_s = 120;
  s.checkpoint.shared_auto_interval = false;
  auto sim = Simulation::prepare(s);
  ASSERT_TRUE(sim.ok()) << sim.error().message;
  const Simulation& p = **sim;
  const double lambda = p.interruption_rate_per_s();
  const double horizon_s = s.horizon_s;
  const double p_short = expected_shortage(s, p.layout()).short_probability;
  ASSERT_GT(p_short, 1e-4);
  ASSERT_LT(p_short, 0.5);
  // checkpoint_restart: every interruption rolls it back.
  EXPECT_DOUBLE_EQ(p.rollback_rate_per_s(0), lambda);
  EXPECT_NEAR(p.checkpoint_interval_s(0), optimal_interval_s(120, 1 / lambda), 1e-9);
  // ntp, dp_drop and spares falling back on dp_drop never roll back: the horizon, so no
  // checkpoint is written inside the run.
  for (size_t k : {1u, 2u, 4u}) {
    EXPECT_EQ(p.rollback_rate_per_s(k), 0.0) << k;
    EXPECT_DOUBLE_EQ(p.checkpoint_interval_s(k), horizon_s) << k;
  }
  // spare_substitution falling back on a restart: only when spares run short.
  EXPECT_DOUBLE_EQ(p.rollback_rate_per_s(3), lambda * p_short);
  EXPECT_NEAR(p.checkpoint_interval_s(3), optimal_interval_s(120, 1 / (lambda * p_short)), 1e-6);
  EXPECT_GT(p.checkpoint_interval_s(3), 2 * p.checkpoint_interval_s(0));

  // The run reports them and a strategy that never rolls back writes no checkpoint.
  RunOptions o;
  o.threads = 2;
  o.timeline = false;
  auto r = run_monte_carlo(p, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (size_t k = 0; k < r->strategies.size(); ++k) {
    EXPECT_DOUBLE_EQ(r->strategies[k].checkpoint_interval_s, p.checkpoint_interval_s(k));
  }
  for (const auto& rep : r->strategies[1].replications) {
    EXPECT_EQ(at(rep, Metric::kBadputCheckpoint), 0.0);
  }
  for (const auto& rep : r->strategies[0].replications) {
    EXPECT_GT(at(rep, Metric::kBadputCheckpoint), 0.0);
  }
}

TEST(PerStrategyInterval, SharedAndFixedIntervalsApplyToAll) {
  Scenario s = job(8, 1, 0.02, 4 * 3600.0, {"checkpoint_restart", "ntp", "spare_substitution"});
  s.checkpoint.write_s = 120;
  s.checkpoint.shared_auto_interval = true;
  auto shared = Simulation::prepare(s);
  ASSERT_TRUE(shared.ok());
  const double m = 1 / (*shared)->interruption_rate_per_s();
  const double r = s.recovery.detection_s + s.recovery.restart_s + s.checkpoint.restore_s;
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_DOUBLE_EQ((*shared)->checkpoint_interval_s(k), young_daly_interval_s(120, m, r));
    EXPECT_EQ((*shared)->checkpoint_interval(k), (*shared)->engine_config().checkpoint_interval);
  }
  s.checkpoint.auto_interval = false;
  s.checkpoint.interval_s = 1800;
  s.checkpoint.shared_auto_interval = false;  // has no effect on a fixed interval
  auto fixed = Simulation::prepare(s);
  ASSERT_TRUE(fixed.ok());
  for (size_t k = 0; k < 3; ++k) EXPECT_DOUBLE_EQ((*fixed)->checkpoint_interval_s(k), 1800.0);
}

TEST(PerStrategyInterval, MaxIntervalBoundsWhatAutoMayChoose) {
  Scenario s = job(8, 1, 0.002, 4 * 3600.0, {"checkpoint_restart", "ntp"});
  s.checkpoint.write_s = 120;
  s.checkpoint.shared_auto_interval = false;
  s.checkpoint.max_interval_s = 6 * 3600.0;
  auto sim = Simulation::prepare(s);
  ASSERT_TRUE(sim.ok()) << sim.error().message;
  const double lambda = (*sim)->interruption_rate_per_s();
  ASSERT_LT(optimal_interval_s(120, 1 / lambda), 6 * 3600.0);
  EXPECT_NEAR((*sim)->checkpoint_interval_s(0), optimal_interval_s(120, 1 / lambda), 1e-9);
  EXPECT_DOUBLE_EQ((*sim)->checkpoint_interval_s(1), 6 * 3600.0);  // ntp: as long as allowed
  // A run of ntp then writes one checkpoint per 6 h of running: 120 s each.
  RunOptions o;
  o.threads = 1;
  o.timeline = false;
  auto r = run_monte_carlo(**sim, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::vector<double> ck;
  for (const auto& rep : r->strategies[1].replications)
    ck.push_back(at(rep, Metric::kBadputCheckpoint));
  EXPECT_NEAR(summarize(ck).mean, 120.0 / (6 * 3600.0 + 120.0), 0.002);
  // It bounds the shared interval too, and a fixed one not at all.
  s.checkpoint.shared_auto_interval = true;
  s.checkpoint.max_interval_s = 60;
  auto shared = Simulation::prepare(s);
  ASSERT_TRUE(shared.ok());
  EXPECT_DOUBLE_EQ((*shared)->checkpoint_interval_s(0), 60.0);
  s.checkpoint.auto_interval = false;
  s.checkpoint.interval_s = 3600;
  auto fixed = Simulation::prepare(s);
  ASSERT_TRUE(fixed.ok());
  EXPECT_DOUBLE_EQ((*fixed)->checkpoint_interval_s(1), 3600.0);
}

TEST(PerStrategyInterval, ScenarioSpellsTheModes) {
  const std::string file = ::testing::TempDir() + "ntpsim_interval_modes.yaml";
  const std::string base =
      "name: m\ncluster: {domains: 2, gpus_per_domain: 8}\nworkload: {name: tiny, layers: 2, "
      "hidden: 256, heads: 8, kv_heads: 8, ffn: 1024, vocab: 1000, seq_len: 128, global_batch: 2}\n"
      "layout: {tp: 8, pp: 1, dp: 2}\nhardware: h100-sxm\nstrategies: [ntp]\nhorizon: 1d\n";
  const auto load = [&](const std::string& extra) {
    std::ofstream(file) << base << extra;
    return load_scenario(file, std::vector<std::string>{});
  };
  auto a = load(
      "checkpoint: {interval: auto_per_strategy, max_interval: 2h}\n"
      "recovery: {failures_during_pause: ignore}\n");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_TRUE(a->checkpoint.auto_interval);
  EXPECT_FALSE(a->checkpoint.shared_auto_interval);
  EXPECT_DOUBLE_EQ(a->checkpoint.max_interval_s, 7200.0);
  EXPECT_EQ(a->recovery.failures_during_pause, PauseFailures::kIgnore);
  auto b = load("checkpoint: {interval: auto_shared}\n");
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_TRUE(b->checkpoint.shared_auto_interval);
  EXPECT_EQ(b->recovery.failures_during_pause, PauseFailures::kRestart);
  auto c = load("checkpoint: {interval: auto}\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->checkpoint.shared_auto_interval, kAutoIntervalShared);
  auto bad = load("recovery:\n  failures_during_pause: sometimes\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find(":9:"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("failures_during_pause"), std::string::npos);
  auto bad_max = load("checkpoint: {max_interval: 0s}\n");
  ASSERT_FALSE(bad_max.ok());
  EXPECT_NE(bad_max.error().message.find("max_interval"), std::string::npos);
  std::remove(file.c_str());
}

TEST(PerStrategyInterval, NoFailuresGiveTheHorizonToEveryStrategy) {
  Scenario s = job(4, 0, 0.0, 60, {"checkpoint_restart", "ntp"});
  s.failures.processes.clear();
  s.checkpoint.shared_auto_interval = false;
  auto sim = Simulation::prepare(s);
  ASSERT_TRUE(sim.ok()) << sim.error().message;
  for (size_t k = 0; k < 2; ++k) EXPECT_DOUBLE_EQ((*sim)->checkpoint_interval_s(k), s.horizon_s);
}

}  // namespace
}  // namespace ntpsim::sim
