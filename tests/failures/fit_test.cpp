// Failure models fitted from fault logs (sim/failures/fit.h): parameters of known laws recovered
// within their intervals, bursts and lemons recognised when present and not invented when absent,
// bad logs refused with file:line, too little data said so, and the engine sampling a fitted
// model (loaded through `include:`) reproducing the log's fault count.
#include "sim/failures/fit.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "failure_test_util.h"
#include "models/base/random.h"
#include "sim/scenario/loader.h"

namespace ntpsim::sim {
namespace {

using testing::kDay;

// n lifetimes from `draw`, each censored at `limit_s`.
template <typename Draw>
std::vector<Interval> sample(int n, double limit_s, uint64_t seed, Draw draw) {
  Stream s(seed, 0, "fit_test");
  std::vector<Interval> out;
  for (int i = 0; i < n; ++i) {
    const double x = std::max(1.0, draw(s));
    out.push_back({std::min(x, limit_s), x < limit_s, limit_s});
  }
  return out;
}

TEST(FitLaws, ExponentialMeanWithinItsInterval) {
  const double mean = 40 * kDay;
  const auto data = sample(2000, 100 * kDay, 7, [&](Stream& s) { return s.exponential(mean); });
  const LawFit f = fit_exponential(data);
  ASSERT_TRUE(f.converged);
  EXPECT_LE(f.a_lo, mean);
  EXPECT_GE(f.a_hi, mean);
  EXPECT_LT((f.a_hi - f.a_lo) / mean, 0.2);  // 2000 draws: an interval of about +-5%
}

TEST(FitLaws, WeibullShapeAndScaleWithinTheirIntervals) {
  const double k = 0.7, scale = 20 * kDay;
  const auto data = sample(3000, 60 * kDay, 11, [&](Stream& s) { return s.weibull(k, scale); });
  const LawFit f = fit_weibull(data);
  ASSERT_TRUE(f.converged);
  EXPECT_LE(f.a_lo, k);
  EXPECT_GE(f.a_hi, k);
  EXPECT_LE(f.b_lo, scale);
  EXPECT_GE(f.b_hi, scale);
  EXPECT_LT(f.a_hi - f.a_lo, 0.1);
  // The right law wins on AIC against the exponential.
  EXPECT_LT(f.aic, fit_exponential(data).aic);
}

TEST(FitLaws, LognormalParametersWithinTheirIntervals) {
  const double mu = std::log(2 * kDay), sigma = 1.5;
  const auto data = sample(3000, 30 * kDay, 13, [&](Stream& s) { return s.lognormal(mu, sigma); });
  const LawFit f = fit_lognormal(data);
  ASSERT_TRUE(f.converged);
  EXPECT_LE(f.a_lo, sigma);
  EXPECT_GE(f.a_hi, sigma);
  EXPECT_LE(f.b_lo, mu);
  EXPECT_GE(f.b_hi, mu);
  EXPECT_LT(f.aic, fit_weibull(data).aic);
}

TEST(FitLaws, PoissonIntervalIsExact) {
  // Garwood interval for 10 events in 1 unit of exposure (published table: 4.795 - 18.39).
  const RateEstimate r = poisson_rate(10, 1.0);
  EXPECT_NEAR(r.lo_per_s, 4.7954, 1e-3);
  EXPECT_NEAR(r.hi_per_s, 18.390, 1e-3);
}

// A CSV log of `nodes` nodes over `days`: independent faults at `per_node_day`, each repaired in
// `repair_h` hours; `burst` > 1 makes each fault take that many consecutive nodes within minutes;
// `lemons` nodes (the first ones) fail `lemon_x` times as often.
std::string synthetic_log(int nodes, double days, double per_node_day, double repair_h,
                          uint64_t seed, int burst = 1, int lemons = 0, double lemon_x = 1.0) {
  struct Row {
    double start_h;
    int node;
  };
  std::vector<Row> rows;
  Stream s(seed, 0, "synthetic_log");
  for (int n = 0; n < nodes; ++n) {
    const double rate_h = per_node_day / 24.0 * (n < lemons ? lemon_x : 1.0) / burst;
    double t = 0;
    for (;;) {
      t += s.exponential(1.0 / rate_h);
      if (t >= days * 24) break;
      for (int b = 0; b < burst; ++b) rows.push_back({t + 0.05 * b, (n + b) % nodes});
      t += repair_h + 0.05 * burst;  // a node in repair does not fail again
    }
  }
  std::sort(rows.begin(), rows.end(),
            [](const Row& a, const Row& b) { return a.start_h < b.start_h; });
  // Drop a partner that would start inside its node's own earlier repair (the burst crossed it).
  std::vector<double> up(static_cast<size_t>(nodes), 0.0);
  std::string csv = "#! time_unit: h\n#! span: " + std::to_string(days * 24 + repair_h + 1) +
                    "\nstart,end,unit,kind\n";
  for (const Row& r : rows) {
    if (r.start_h < up[static_cast<size_t>(r.node)]) continue;
    up[static_cast<size_t>(r.node)] = r.start_h + repair_h;
    csv += std::to_string(r.start_h) + "," + std::to_string(r.start_h + repair_h) + ",n" +
           std::to_string(r.node) + ",hard\n";
  }
  return csv;
}

TraceFit fit_csv(const std::string& csv, int64_t nodes, int bootstrap = 19) {
  auto t = parse_csv_trace(csv, "log.csv");
  EXPECT_TRUE(t.ok()) << t.error().message;
  FitOptions o;
  o.nodes = nodes;
  o.bootstrap = bootstrap;
  auto f = fit_trace(*t, o);
  EXPECT_TRUE(f.ok()) << f.error().message;
  return *f;
}

TEST(FitTrace, IndependentFaultsAreNotBurstyAndHaveNoLemons) {
  const TraceFit f = fit_csv(synthetic_log(200, 365, 0.01, 24, 3), 200);
  ASSERT_EQ(f.kinds.size(), 1u);
  const KindFit& k = f.kinds[0];
  EXPECT_FALSE(k.bursts.bursty) << "p " << k.bursts.p_value;
  EXPECT_FALSE(k.lemons.supported) << "p " << k.lemons.p_value;
  ASSERT_GE(k.lifetime_choice, 0);
  EXPECT_EQ(k.repair_law, "fixed");
  // The true rate (per node while up) lies in the process rate's interval.
  EXPECT_LE(k.process_rate.lo_per_s, 0.01 / kDay);
  EXPECT_GE(k.process_rate.hi_per_s, 0.01 / kDay);
}

TEST(FitTrace, BurstyLogIsRecognisedWithItsSize) {
  const TraceFit f = fit_csv(synthetic_log(200, 365, 0.01, 24, 5, /*burst=*/3), 200);
  const KindFit& k = f.kinds[0];
  EXPECT_TRUE(k.bursts.bursty) << "p " << k.bursts.p_value;
  EXPECT_EQ(k.bursts.size, 3);
  EXPECT_GT(k.bursts.probability, 0.8);  // nearly every event is a burst (a few overlap repairs)
}

TEST(FitTrace, LemonNodesAreRecognised) {
  const TraceFit f =
      fit_csv(synthetic_log(300, 365, 0.004, 12, 9, 1, /*lemons=*/30, /*lemon_x=*/15), 300);
  const KindFit& k = f.kinds[0];
  EXPECT_TRUE(k.lemons.supported) << "p " << k.lemons.p_value << " aic " << k.lemons.aic;
  EXPECT_NEAR(k.lemons.fraction, 0.1, 0.04);
  EXPECT_NEAR(k.lemons.multiplier, 15, 6);
}

TEST(FitTrace, TooFewFaultsSaySoInsteadOfALaw) {
  const TraceFit f = fit_csv("start,end,unit,kind\n1,2,n0,hard\n5,9,n1,hard\n20,30,n2,hard\n", 10);
  const KindFit& k = f.kinds[0];
  EXPECT_EQ(k.lifetime_choice, -1);
  EXPECT_TRUE(k.lifetime.empty());
  ASSERT_FALSE(k.notes.empty());
  EXPECT_NE(k.notes[0].find("fewer than the 10 needed to fit a law"), std::string::npos)
      << k.notes[0];
  EXPECT_EQ(k.repair_law, "empirical");
  EXPECT_NE(fitted_failures_yaml(f).find("too few faults to fit a law"), std::string::npos);
}

TEST(FitTrace, OverlappingFaultsOfOneNodeNameTheLine) {
  auto t =
      parse_csv_trace("start,end,unit,kind\n0,10,n0,hard\n5,12,n1,hard\n8,9,n0,hard\n", "bad.csv");
  ASSERT_TRUE(t.ok());
  auto f = fit_trace(*t, FitOptions{});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(f.error().message.find("bad.csv:4: node n0"), std::string::npos) << f.error().message;
  EXPECT_NE(f.error().message.find("(line 2, until"), std::string::npos) << f.error().message;
}

TEST(FitTrace, FewerNodesThanTheLogNamesIsBadInput) {
  auto t = parse_csv_trace("start,end,unit,kind\n0,1,n0,hard\n5,6,n1,hard\n", "n.csv");
  ASSERT_TRUE(t.ok());
  FitOptions o;
  o.nodes = 1;
  auto f = fit_trace(*t, o);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("--nodes 1 is fewer than the 2 nodes"), std::string::npos);
}

// The fitted YAML, included by a scenario of the log's size, drives the engine: its fault count
// over the log's span matches the log's within 5 standard deviations.
TEST(FitTrace, EngineSamplingTheFittedModelMatchesTheLog) {
  const int nodes = 200;
  const std::string log = synthetic_log(nodes, 365, 0.01, 24, 17);
  const TraceFit f = fit_csv(log, nodes);
  const std::string dir = ::testing::TempDir() + "fit_test_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/fitted.yaml") << fitted_failures_yaml(f);
  std::ofstream(dir + "/s.yaml")
      << "include: fitted.yaml\n"
         "name: fitted\n"
         "cluster: {domains: 200, gpus_per_domain: 8, gpus_per_node: 8}\n"
         "workload: llama3-70b\n"
         "layout: {tp: 8, pp: 4, dp: 50}\n"
         "hardware: h100-sxm\n"
         "strategies: [dp_drop]\n"
         "horizon: 365d\n"
         "replications: 1\n";
  auto s = load_scenario(dir + "/s.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->failures.processes.size(), 1u);
  EXPECT_EQ(s->failures.processes[0].kinds[0].repair.distribution, "fixed");
  auto topo = Topology::build(s->cluster);
  ASSERT_TRUE(topo.ok());
  double events = 0;
  const int reps = 4;
  for (int r = 0; r < reps; ++r)
    events += static_cast<double>(testing::collect(*s, *topo, 99, r, 365 * kDay).size());
  const double per_rep = events / reps;
  const double observed = static_cast<double>(f.faults);
  testing::expect_within_5_sigma(per_rep, observed, std::sqrt(observed / reps + observed),
                                 "faults per 365 d");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ntpsim::sim
