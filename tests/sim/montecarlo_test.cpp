// Monte Carlo runs of code-built scenarios: thread-count independence of the output bytes,
// closed-form checks (availability (1-f)^T, checkpoint-restart loss C/tau + (tau/2 + R)/M) with
// stated tolerances, a pinned trajectory fingerprint, and the adaptive stopping rule.
#include "sim/montecarlo/montecarlo.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/cluster/topology.h"
#include "sim/engine/checkpoint_interval.h"
#include "sim/engine/engine.h"
#include "sim/engine/schedule.h"
#include "sim/failures/failure_source.h"
#include "sim/io/results_json.h"
#include "sim/io/results_table.h"
#include "sim/metrics/aggregate.h"
#include "sim/scenario/loader.h"
#include "sim/simulation/shortage.h"
#include "sim/strategies/strategy.h"
#include "tests/sim/sim_fixture.h"

namespace ntpsim::sim {
namespace {

// A job of `domains` x 8 GPUs, TP 8, PP 1, DP = domains, proportional model with a ~1 ms
// iteration, GPU failures at `rate_per_h` with fixed repair `repair_s`.
Scenario mc_scenario(int domains, int spare_domains, double rate_per_h, double repair_s) {
  Scenario s = testing::tiny_job(domains, 8, 8, spare_domains, rate_per_h, repair_s);
  s.name = "mc";
  for (const char* name : {"checkpoint_restart", "dp_drop", "spare_substitution", "ntp",
                           "ntp_power_boost"}) {
    s.strategies.push_back(StrategyConfig{name, name, {}, {}});
  }
  s.replications.fixed = 8;
  s.seed = 11;
  return s;
}

TEST(MonteCarlo, OutputBytesDoNotDependOnThreadCount) {
  const Scenario s = mc_scenario(8, 1, 2e-4, 86400);
  std::string docs[3];
  const int threads[3] = {1, 2, 4};
  for (int i = 0; i < 3; ++i) {
    RunOptions o;
    o.threads = threads[i];
    auto r = run_monte_carlo(s, o);
    ASSERT_TRUE(r.ok()) << r.error().message;
    docs[i] = run_document(s, *r).dump();
  }
  EXPECT_EQ(docs[0], docs[1]);
  EXPECT_EQ(docs[0], docs[2]);
  EXPECT_NE(docs[0].find("\"timeline\""), std::string::npos);
}

// `run --out` streams the document; its bytes equal the tree's pretty dump, and the tree the
// reports read equals the ordered tree's copy.
TEST(MonteCarlo, StreamedDocumentEqualsTheTree) {
  Scenario s = mc_scenario(8, 1, 2e-4, 86400);
  s.strategies.push_back(StrategyConfig{"ntp", "ntp_again", {}, {}});
  RunOptions o;
  o.threads = 1;
  auto r = run_monte_carlo(s, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto tree = run_document(s, *r);
  // One timeline per strategy run, keyed by label: the repeated name keeps both runs.
  ASSERT_EQ(tree["timeline"]["strategies"].size(), s.strategies.size());
  EXPECT_TRUE(tree["timeline"]["strategies"].contains("ntp"));
  EXPECT_TRUE(tree["timeline"]["strategies"].contains("ntp_again"));
  ASSERT_FALSE(tree["timeline"]["failures"].empty());
  EXPECT_EQ(run_document_text(s, *r), tree.dump(1) + "\n");
  EXPECT_EQ(report_document(s, *r), nlohmann::json(tree));
  EXPECT_FALSE(run_document(s, *r, false).contains("timeline"));
}

// The results document's answer-first fields: every pair of strategies, a verdict whose winner
// has the highest mean goodput and whose margin is the paired difference with the runner-up,
// and the absolute throughput per GPU.
TEST(MonteCarlo, DocumentHasEveryPairAndTheVerdict) {
  const Scenario s = mc_scenario(8, 1, 2e-4, 86400);
  RunOptions o;
  o.threads = 1;
  auto r = run_monte_carlo(s, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto doc = run_document(s, *r);
  const size_t n = r->strategies.size();
  EXPECT_EQ(doc["paired"].size(), n * (n - 1) / 2 * 2);  // goodput and per_gpu_goodput
  const size_t g = static_cast<size_t>(Metric::kGoodput);
  auto column = [&](size_t i) {
    std::vector<double> v;
    for (const auto& rep : r->strategies[i].replications) v.push_back(rep[g]);
    return v;
  };
  size_t best = 0;
  for (size_t i = 1; i < n; ++i) {
    if (summarize(column(i)).mean > summarize(column(best)).mean) best = i;
  }
  const auto& v = doc["verdict"];
  EXPECT_EQ(v["winner"], r->strategies[best].name);
  size_t runner = n;
  for (size_t i = 0; i < n; ++i) {
    if (r->strategies[i].name == v["runner_up"].get<std::string>()) runner = i;
  }
  ASSERT_LT(runner, n);
  const PairedDiff d = paired_difference(column(best), column(runner));
  EXPECT_DOUBLE_EQ(v["margin"]["mean"].get<double>(), d.mean);
  EXPECT_EQ(v["tied"].get<bool>(), !(d.ci95_lo > 0.0 || d.ci95_hi < 0.0));
  EXPECT_GE(d.mean, 0.0);
  // tokens/s/GPU = per-GPU goodput x the ideal rate / job GPUs, per replication.
  const auto& rep0 = doc["strategies"][0]["replications"][0];
  EXPECT_NEAR(rep0["tokens_per_s_per_gpu"].get<double>(),
              rep0["per_gpu_goodput"].get<double>() * r->ideal_tokens_per_s /
                  static_cast<double>(r->layout.job_gpus),
              1e-9 * rep0["tokens_per_s_per_gpu"].get<double>());
  EXPECT_NE(run_table(s, *r).find("\nverdict: "), std::string::npos);
}

// A timeline list that hits its cap stops all recording there: the last segment ends at the cap
// and nothing later is recorded or stretched.
TEST(Timeline, CapStopsRecordingAtOneTime) {
  StrategyTimeline tl;
  tl.limit = 3;
  tl.add(tl.segments, TimelineSegment{0, 0, "running", 1.0, 8, 0});
  tl.segments.back().end_s = 10;
  tl.add(tl.segments, TimelineSegment{10, 10, "recovering", 0.0, 0, 1});
  tl.add(tl.marks, TimelineMark{10, "failure", 0});
  tl.add(tl.marks, TimelineMark{12, "restart", 0});
  tl.add(tl.marks, TimelineMark{15, "repair", 0});
  EXPECT_FALSE(tl.truncated);
  tl.add(tl.marks, TimelineMark{20, "failure", 0});  // the fourth mark: over the cap
  EXPECT_TRUE(tl.truncated);
  EXPECT_DOUBLE_EQ(tl.recorded_until_s, 20.0);
  EXPECT_DOUBLE_EQ(tl.segments.back().end_s, 20.0);
  tl.add(tl.segments, TimelineSegment{25, 25, "running", 1.0, 8, 0});  // after: ignored
  tl.add_checkpoint_mark(30, 5);
  EXPECT_EQ(tl.segments.size(), 2u);
  EXPECT_EQ(tl.marks.size(), 3u);
  EXPECT_DOUBLE_EQ(tl.segments.back().end_s, 20.0);
}

TEST(MonteCarlo, DpDropThroughputMatchesGroupAvailability) {
  // Each GPU alternates up (rate lambda) and down (fixed 1 day): unavailability
  // f = lambda R / (1 + lambda R) = 0.02. With free, instant reconfiguration and no checkpoints,
  // dp_drop runs every healthy TP group of 8, so goodput = E[healthy groups]/R = (1-f)^8.
  const double f = 0.02, repair_s = 86400;
  const double lambda_per_h = f / (1 - f) / 24.0;
  Scenario s = mc_scenario(64, 0, lambda_per_h, repair_s);
  s.strategies = {StrategyConfig{"dp_drop", "dp_drop", {}, {}}};
  s.recovery.detection_s = 0;
  s.recovery.reconfigure_s = 0;
  s.checkpoint.write_s = 0;
  s.horizon_s = 400 * 86400.0;
  s.replications.fixed = 6;
  RunOptions o;
  o.threads = 2;
  o.timeline = false;
  auto r = run_monte_carlo(s, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::vector<double> g, a;
  for (const auto& rep : r->strategies[0].replications) {
    g.push_back(at(rep, Metric::kGoodput));
    a.push_back(at(rep, Metric::kAvailability));
  }
  // Tolerances: about 4 standard errors of 6 x 400-day means (SE ~ 0.001 for goodput).
  EXPECT_NEAR(summarize(a).mean, 1 - f, 0.002);
  EXPECT_NEAR(summarize(g).mean, std::pow(1 - f, 8), 0.004);
}

TEST(MonteCarlo, CheckpointRestartMatchesClosedFormLoss) {
  // 64 job GPUs, MTTI M = 20 h; tau = 1 h, blocking write C = 60 s, R = 120 + 400 + 80 s.
  // First order (tau << M): lost fraction = C/tau + (tau/2 + R)/M = 0.01667 + 0.03333.
  const double M_s = 20 * 3600.0, tau_s = 3600, C_s = 60, R_s = 600;
  Scenario s = mc_scenario(8, 2, 3600.0 / M_s / 64, 60);
  s.strategies = {StrategyConfig{"checkpoint_restart", "checkpoint_restart", {}, {}}};
  s.checkpoint.auto_interval = false;
  s.checkpoint.interval_s = tau_s;
  s.checkpoint.write_s = C_s;
  s.checkpoint.restore_s = 80;
  s.recovery.detection_s = 120;
  s.recovery.restart_s = 400;
  s.horizon_s = 365 * 86400.0;
  s.replications.fixed = 12;
  RunOptions o;
  o.threads = 2;
  o.timeline = false;
  auto r = run_monte_carlo(s, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::vector<double> g;
  for (const auto& rep : r->strategies[0].replications) g.push_back(at(rep, Metric::kGoodput));
  const double expected = C_s / tau_s + (tau_s / 2 + R_s) / M_s;
  // Tolerance 6% of the loss: second-order terms (tau/M)^2 and the checkpoint pause inside
  // the cycle are a few percent; the statistical SE over 12 years is ~1%.
  EXPECT_NEAR(1 - summarize(g).mean, expected, 0.06 * expected);
}

TEST(MonteCarlo, TrajectoryFingerprintIsPinned) {
  const Scenario s = mc_scenario(8, 1, 5e-3, 6 * 3600);
  auto layout = JobLayout::make(s);
  auto topo = Topology::build(s.cluster);
  ASSERT_TRUE(layout.ok() && topo.ok());
  auto model = models::make_proportional_model(s.workload, s.layout, s.hardware);
  auto cfg = EngineConfig::make(s, *layout, 1e-4, 1.0);
  ASSERT_TRUE(cfg.ok());
  auto src = FailureSource::make(s, *topo, nullptr, s.seed, 3);
  ASSERT_TRUE(src.ok());
  std::vector<FailureEvent> failures;
  FailureEvent e;
  while (src->next(e) && e.time < cfg->end) failures.push_back(e);
  ASSERT_GT(failures.size(), 100u);
  Engine engine(*cfg);
  engine.keep_fingerprint(true);
  EventSchedule schedule;
  schedule.build(failures, cfg->end);
  const Shortage shortage = expected_shortage(s, *layout);
  uint64_t h = 0, events = 0;
  double goodput = 0;
  for (const auto& sc : s.strategies) {
    auto st = make_strategy(sc, *model, *layout, s.hardware);
    ASSERT_TRUE(st.ok());
    // Each strategy at the interval `checkpoint.interval: auto` gives it (Simulation::prepare).
    const double interval_s =
        cfg->interval_s_for(rollback_rate_per_s(**st, 1e-4, shortage.short_probability,
                                                shortage.in_domain_cover));
    const auto m = engine.run(**st, Duration::from_seconds(interval_s), schedule);
    h = h * 31 + engine.trajectory_hash();
    events += engine.events_processed();
    goodput += at(m, Metric::kGoodput);
  }
  // Pinned: any change of event order, strategy decision or failure sampling changes it. The
  // trajectory hash does not see checkpoints (they are not events), so the goodput sum pins the
  // checkpoint intervals and the checkpoint cycle too.
  EXPECT_EQ(events, 2620u);
  EXPECT_EQ(h, 1597627757777615428ull);
  EXPECT_NEAR(goodput, 3.096519925195226, 1e-12);
}

TEST(MonteCarlo, AdaptiveStopsInThreadIndependentBatches) {
  Scenario s = mc_scenario(8, 1, 2e-4, 86400);
  s.strategies.resize(2);
  s.replications.fixed = 0;
  s.replications.min = 4;
  s.replications.max = 64;
  s.replications.target_ci_halfwidth = 1e-9;  // unreachable: runs to max
  RunOptions o;
  o.timeline = false;
  o.threads = 3;
  auto r = run_monte_carlo(s, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->replications, 64);
  EXPECT_FALSE(r->warnings.empty());
  s.replications.target_ci_halfwidth = 1.0;  // met at once
  auto r2 = run_monte_carlo(s, o);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->replications, 4);
}

TEST(MonteCarlo, InfiniteHbdTraceReplaysThroughTheEngine) {
  // The example scenario replays the published StepFun trace (584 faults over about 348 days).
  auto s = load_scenario(std::string(NTPSIM_SOURCE_DIR) + "/scenarios/stepfun-trace-h100.yaml",
                         {"replications=2"});
  if (!s.ok() && s.error().message.find("no such file") != std::string::npos) {
    GTEST_SKIP() << s.error().message;
  }
  ASSERT_TRUE(s.ok()) << s.error().message;
  RunOptions o;
  o.threads = 2;
  auto r = run_monte_carlo(*s, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_GT(r->failures.size(), 500u);  // replication 0's failures, all inside the horizon
  for (const auto& st : r->strategies) {
    const double g = at(st.replications[0], Metric::kGoodput);
    EXPECT_GT(g, 0.0);
    EXPECT_LE(g, 1.0);
    EXPECT_GT(at(st.replications[0], Metric::kInterruptions), 0.0);
  }
}

TEST(MonteCarlo, BadLayoutIsBadInput) {
  Scenario s = mc_scenario(8, 0, 1e-4, 3600);
  s.layout.dp = 9;  // 9 groups do not fit in 8 domains
  auto r = run_monte_carlo(s, RunOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);
}

}  // namespace
}  // namespace ntpsim::sim
