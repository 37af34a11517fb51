// Stochastic failure processes: counts and inter-arrival laws against their expectations (fixed
// seeds, 5-sigma tolerances), kinds and repair laws, lemons, bursts, repair thinning, determinism
// and stream independence, the expected interruption rate, and parameter validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "failure_test_util.h"
#include "models/base/check.h"
#include "models/base/random.h"
#include "sim/scenario/process_means.h"

namespace ntpsim::sim {
namespace {

using testing::collect;
using testing::expect_within_5_sigma;
using testing::topo;

TEST(ProcessTest, ExponentialCountAndUniformUnits) {
  Scenario s = testing::scenario_with(10, 100, 0);  // 1000 GPUs
  s.failures.processes = {testing::process(Component::kGpu, 1e-6)};
  const Topology t = topo(s);
  const double horizon = 2e7;
  const auto events = collect(s, t, 42, 0, horizon);
  const double expected = 1000 * 1e-6 * horizon;  // 20000, Poisson
  expect_within_5_sigma(static_cast<double>(events.size()), expected, std::sqrt(expected), "events");
  std::vector<int> per_domain(10, 0);
  for (const FailureEvent& e : events) {
    EXPECT_EQ(e.component, Component::kGpu);
    EXPECT_EQ(e.gpus, (GpuRange{e.unit, 1}));
    ++per_domain[static_cast<size_t>(t.domain_of(e.unit))];
  }
  const double n = static_cast<double>(events.size());
  for (int d = 0; d < 10; ++d) {
    expect_within_5_sigma(per_domain[static_cast<size_t>(d)], n / 10, std::sqrt(n * 0.1 * 0.9), "per domain");
  }
  for (size_t i = 1; i < events.size(); ++i) EXPECT_LE(events[i - 1].time, events[i].time);
}

// First `m` lifetimes of every unit from a renewal process with zero repair: i.i.d. samples.
std::vector<double> lifetimes(const Scenario& s, const Topology& t, double horizon, int m) {
  const auto events = collect(s, t, 7, 0, horizon);
  std::vector<std::vector<double>> times(static_cast<size_t>(t.gpus()));
  for (const FailureEvent& e : events) times[static_cast<size_t>(e.unit)].push_back(e.time.seconds());
  std::vector<double> out;
  for (const auto& ts : times) {
    EXPECT_GE(static_cast<int>(ts.size()), m);
    double prev = 0.0;
    for (int i = 0; i < m && i < static_cast<int>(ts.size()); ++i) {
      out.push_back(ts[static_cast<size_t>(i)] - prev);
      prev = ts[static_cast<size_t>(i)];
    }
  }
  return out;
}

TEST(ProcessTest, WeibullRenewalLifetimes) {
  const double k = 0.7, mean = 1e5;
  Scenario s = testing::scenario_with(2, 100, 0);
  s.failures.processes = {testing::process(Component::kGpu, 1.0 / mean, "weibull", k)};
  const Topology t = topo(s);
  const auto life = lifetimes(s, t, 100 * mean, 20);  // 200 units x 20 = 4000 lifetimes
  const double n = static_cast<double>(life.size());
  double sum = 0.0;
  for (const double x : life) sum += x;
  const double cv = std::sqrt(std::tgamma(1 + 2 / k) / std::pow(std::tgamma(1 + 1 / k), 2) - 1);
  expect_within_5_sigma(sum / n, mean, mean * cv / std::sqrt(n), "weibull mean lifetime");
  // Shape: the share below the Weibull median is 1/2 (an exponential of this mean gives 0.64).
  const double median = weibull_scale_for_mean(mean, k) * std::pow(std::log(2.0), 1 / k);
  const auto below = static_cast<double>(std::count_if(life.begin(), life.end(), [&](double x) { return x < median; }));
  expect_within_5_sigma(below / n, 0.5, std::sqrt(0.25 / n), "weibull share below median");
}

TEST(ProcessTest, LognormalRenewalLifetimes) {
  const double sigma = 1.0, mean = 1e5;
  Scenario s = testing::scenario_with(2, 100, 0);
  s.failures.processes = {testing::process(Component::kGpu, 1.0 / mean, "lognormal", sigma)};
  const Topology t = topo(s);
  const auto life = lifetimes(s, t, 100 * mean, 20);
  const double n = static_cast<double>(life.size());
  double sum = 0.0;
  for (const double x : life) sum += x;
  const double cv = std::sqrt(std::exp(sigma * sigma) - 1);
  expect_within_5_sigma(sum / n, mean, mean * cv / std::sqrt(n), "lognormal mean lifetime");
  const double median = std::exp(lognormal_mu_for_mean(mean, sigma));
  const auto below = static_cast<double>(std::count_if(life.begin(), life.end(), [&](double x) { return x < median; }));
  expect_within_5_sigma(below / n, 0.5, std::sqrt(0.25 / n), "lognormal share below median");
}

TEST(ProcessTest, KindSharesAndRepairLaws) {
  Scenario s = testing::scenario_with(10, 100, 0);
  FailureProcess p = testing::process(Component::kGpu, 1e-6);
  p.kinds = {testing::kind("fixed", 0.3, "fixed", 100), testing::kind("exp", 0.25, "exponential", 200),
             testing::kind("logn", 0.2, "lognormal", 300), testing::kind("weib", 0.15, "weibull", 400),
             testing::kind("emp", 0.1, "empirical", 0, false)};
  p.kinds[2].repair.sigma = 0.5;
  p.kinds[3].repair.shape = 2.0;
  p.kinds[4].repair.values_s = {10, 20, 60};
  s.failures.processes = {p};
  const Topology t = topo(s);
  auto src = FailureSource::make(s, t, nullptr, 3, 0);
  ASSERT_TRUE(src.ok());
  EXPECT_EQ(src->kind_names(), (std::vector<std::string>{"fixed", "exp", "logn", "weib", "emp"}));
  const auto events = collect(s, t, 3, 0, 2e7);
  std::vector<std::vector<double>> repairs(5);
  for (const FailureEvent& e : events) {
    ASSERT_LT(e.kind, 5);
    repairs[e.kind].push_back(e.repair.seconds());
    EXPECT_EQ(e.interrupts, e.kind != 4);
  }
  const double n = static_cast<double>(events.size());
  const double means[] = {100, 200, 300, 400, 30};
  const double cvs[] = {0, 1, std::sqrt(std::exp(0.25) - 1), std::sqrt(1 / std::pow(std::tgamma(1.5), 2) - 1),
                        std::sqrt((400 + 100 + 900) / 3.0) / 30};
  for (size_t k = 0; k < 5; ++k) {
    const double share = p.kinds[k].share;
    const double count = static_cast<double>(repairs[k].size());
    expect_within_5_sigma(count / n, share, std::sqrt(share * (1 - share) / n), "kind share");
    double sum = 0.0;
    for (const double r : repairs[k]) sum += r;
    // Repairs are rounded to whole microseconds: allow 1 us besides 5 sigma.
    EXPECT_LE(std::fabs(sum / count - means[k]), 5 * means[k] * cvs[k] / std::sqrt(count) + 1e-6)
        << "repair mean of kind " << k;
  }
  for (const double r : repairs[4]) EXPECT_TRUE(r == 10 || r == 20 || r == 60) << r;
}

TEST(ProcessTest, LemonsFailMoreOftenAndAreDrawnPerReplication) {
  Scenario s = testing::scenario_with(10, 100, 0);
  FailureProcess p = testing::process(Component::kGpu, 1e-6);
  p.lemon_fraction = 0.1;
  p.lemon_multiplier = 10;
  s.failures.processes = {p};
  const Topology t = topo(s);
  auto top_units = [&](uint64_t replication, double& top_share, size_t& count) {
    const auto events = collect(s, t, 5, replication, 2e7);
    count = events.size();
    std::vector<int> per_unit(1000, 0);
    for (const FailureEvent& e : events) ++per_unit[static_cast<size_t>(e.unit)];
    std::vector<int> order(1000);
    for (int i = 0; i < 1000; ++i) order[static_cast<size_t>(i)] = i;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return per_unit[size_t(a)] > per_unit[size_t(b)]; });
    std::set<int> top(order.begin(), order.begin() + 100);
    double in_top = 0;
    for (const int u : top) in_top += per_unit[static_cast<size_t>(u)];
    top_share = in_top / static_cast<double>(events.size());
    return top;
  };
  double share0 = 0, share1 = 0;
  size_t n0 = 0, n1 = 0;
  const auto top0 = top_units(0, share0, n0);
  const auto top1 = top_units(1, share1, n1);
  const double expected = 1e-6 * 2e7 * (900 + 100 * 10);  // 38000
  expect_within_5_sigma(static_cast<double>(n0), expected, std::sqrt(expected), "events with lemons");
  // Lemons (100 units at 10x) take 1000/1900 of the events; the 100 busiest units are the lemons.
  const double lemon_share = 1000.0 / 1900.0;
  expect_within_5_sigma(share0, lemon_share, std::sqrt(lemon_share * (1 - lemon_share) / double(n0)), "lemon share");
  expect_within_5_sigma(share1, lemon_share, std::sqrt(lemon_share * (1 - lemon_share) / double(n1)), "lemon share");
  EXPECT_NE(top0, top1);  // a different replication draws a different lemon set
}

TEST(ProcessTest, BurstsTakeConsecutiveUnitsAtOnce) {
  Scenario s = testing::scenario_with(10, 40, 4);  // 100 nodes of 4 GPUs
  FailureProcess p = testing::process(Component::kNode, 1e-5);
  p.kinds = {testing::kind("a", 0.5, "fixed", 0), testing::kind("b", 0.5, "fixed", 0)};
  p.burst_probability = 0.25;
  p.burst_size = 3;
  s.failures.processes = {p};
  const Topology t = topo(s);
  const auto events = collect(s, t, 11, 0, 1e7);
  std::map<int64_t, std::vector<FailureEvent>> batches;
  for (const FailureEvent& e : events) batches[e.time.us()].push_back(e);
  double bursts = 0;
  for (const auto& [time, batch] : batches) {
    ASSERT_TRUE(batch.size() == 1 || batch.size() == 3) << batch.size();
    for (size_t i = 0; i < batch.size(); ++i) {
      EXPECT_EQ(batch[i].unit, (batch[0].unit + static_cast<int64_t>(i)) % 100);
      EXPECT_EQ(batch[i].kind, batch[0].kind);
      EXPECT_EQ(batch[i].gpus, t.blast_radius(Component::kNode, batch[i].unit));
    }
    bursts += batch.size() == 3 ? 1 : 0;
  }
  const double n = static_cast<double>(batches.size());
  expect_within_5_sigma(n, 1e4, std::sqrt(1e4), "batches");
  expect_within_5_sigma(bursts / n, 0.25, std::sqrt(0.25 * 0.75 / n), "burst share");
}

// With a size law each burst's size is drawn uniformly from the list: bursts of 2 and of 5
// units in the list's proportions (1 to 2), the burst share unchanged, and a Hawkes process
// excited once per burst (its rate of batches is the process's rate, whatever the sizes).
TEST(ProcessTest, BurstSizesComeFromTheLaw) {
  for (const char* dist : {"exponential", "hawkes"}) {
    SCOPED_TRACE(dist);
    Scenario s = testing::scenario_with(10, 40, 4);  // 100 nodes of 4 GPUs
    FailureProcess p = testing::process(Component::kNode, 1e-5);
    p.distribution = dist;
    if (p.distribution == "hawkes") {
      p.branching = 0.3;
      p.excitation_mean_s = 600.0;
    }
    p.kinds = {testing::kind("a", 1.0, "fixed", 0)};
    p.burst_probability = 0.25;
    p.burst_sizes = {2, 5, 5};
    EXPECT_DOUBLE_EQ(p.mean_units_per_event(), 1.0 + 0.25 * 3.0);
    EXPECT_EQ(p.largest_burst_size(), 5);
    s.failures.processes = {p};
    const Topology t = topo(s);
    const auto events = collect(s, t, 12, 0, 1e7);
    std::map<int64_t, std::vector<FailureEvent>> batches;
    for (const FailureEvent& e : events) batches[e.time.us()].push_back(e);
    double bursts = 0, fives = 0;
    for (const auto& [time, batch] : batches) {
      ASSERT_TRUE(batch.size() == 1 || batch.size() == 2 || batch.size() == 5) << batch.size();
      for (size_t i = 0; i < batch.size(); ++i) {
        EXPECT_EQ(batch[i].unit, (batch[0].unit + static_cast<int64_t>(i)) % 100);
      }
      bursts += batch.size() > 1 ? 1 : 0;
      fives += batch.size() == 5 ? 1 : 0;
    }
    const double n = static_cast<double>(batches.size());
    // A Hawkes count's standard deviation is the Poisson one over (1 - branching).
    const double spread = p.distribution == "hawkes" ? 1.0 / (1.0 - p.branching) : 1.0;
    expect_within_5_sigma(n, 1e4, spread * std::sqrt(1e4), "batches");
    expect_within_5_sigma(bursts / n, 0.25, std::sqrt(0.25 * 0.75 / n), "burst share");
    expect_within_5_sigma(fives / bursts, 2.0 / 3.0, std::sqrt(2.0 / 9.0 / bursts), "size law");
  }
}

// No unit fails again while in repair, for the superposed exponential and the renewal processes,
// with bursts; the exponential count matches the alternating renewal process up/down.
TEST(ProcessTest, UnitsInRepairDoNotFail) {
  for (const char* dist : {"exponential", "weibull", "lognormal"}) {
    Scenario s = testing::scenario_with(1, 10, 0);
    FailureProcess p = testing::process(Component::kGpu, 1e-3, dist, 1.5);
    p.kinds = {testing::kind("hard", 1.0, "fixed", 5000)};
    p.burst_probability = 0.3;
    p.burst_size = 4;
    s.failures.processes = {p};
    const Topology t = topo(s);
    const auto events = collect(s, t, 13, 0, 6e6);
    std::vector<double> up_at(10, 0.0);
    for (const FailureEvent& e : events) {
      EXPECT_GE(e.time.seconds(), up_at[static_cast<size_t>(e.unit)] - 1e-6) << dist;
      up_at[static_cast<size_t>(e.unit)] = e.time.seconds() + e.repair.seconds();
    }
    EXPECT_GT(events.size(), 5000u) << dist;
  }
  Scenario s = testing::scenario_with(1, 10, 0);
  FailureProcess p = testing::process(Component::kGpu, 1e-3);
  p.kinds = {testing::kind("hard", 1.0, "fixed", 5000)};
  s.failures.processes = {p};
  const Topology t = topo(s);
  const auto events = collect(s, t, 13, 0, 6e6);
  // Cycle = 5000 s down + Exp(1000 s) up: 10 units x 6e6 / 6000 = 10000 events, sd about 17.
  expect_within_5_sigma(static_cast<double>(events.size()), 10000 - 5, 17, "events with thinning");
}

// Laws the scenario accepts but that put nearly all lifetimes at ~0: time still moves forward for
// every unit (lifetimes are floored at one microsecond), so the engine never spins at one instant.
TEST(ProcessTest, DegenerateLawsStillAdvanceTime) {
  for (const auto& [dist, shape] : {std::pair<const char*, double>{"weibull", 0.05}, {"lognormal", 100.0}}) {
    Scenario s = testing::scenario_with(1, 10, 0);
    s.failures.processes = {testing::process(Component::kGpu, 1e-3, dist, shape)};
    const Topology t = topo(s);
    const auto events = collect(s, t, 1, 0, 1e12, nullptr, 20000);
    ASSERT_EQ(events.size(), 20000u) << dist;
    std::vector<int64_t> last(10, -1);
    for (const FailureEvent& e : events) {
      EXPECT_GT(e.time.us(), last[static_cast<size_t>(e.unit)]) << dist;
      last[static_cast<size_t>(e.unit)] = e.time.us();
    }
  }
}

bool same(const FailureEvent& a, const FailureEvent& b) {
  return a.time == b.time && a.component == b.component && a.unit == b.unit && a.gpus == b.gpus &&
         a.kind == b.kind && a.repair == b.repair && a.interrupts == b.interrupts;
}

TEST(ProcessTest, DeterministicPerReplicationAndStreamsIndependent) {
  Scenario s = testing::scenario_with(8, 72, 4);
  FailureProcess gpu = testing::process(Component::kGpu, 2e-7);
  gpu.kinds = {testing::kind("hard", 0.7, "lognormal", 3600), testing::kind("soft", 0.3, "exponential", 600)};
  gpu.lemon_fraction = 0.05;
  gpu.lemon_multiplier = 5;
  gpu.burst_probability = 0.1;
  gpu.burst_size = 2;
  s.failures.processes = {gpu};
  const Topology t = topo(s);
  const auto a = collect(s, t, 99, 4, 1e9, nullptr, 2000);
  const auto b = collect(s, t, 99, 4, 1e9, nullptr, 2000);
  const auto c = collect(s, t, 99, 5, 1e9, nullptr, 2000);
  ASSERT_EQ(a.size(), 2000u);
  ASSERT_EQ(b.size(), 2000u);
  ASSERT_EQ(c.size(), 2000u);
  size_t differing = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(same(a[i], b[i])) << i;
    differing += same(a[i], c[i]) ? 0 : 1;
  }
  EXPECT_GT(differing, 1900u);

  // Adding a node process (its own streams) leaves the GPU process's events unchanged.
  s.failures.processes.push_back(testing::process(Component::kNode, 1e-6, "weibull", 0.8));
  const auto mixed = collect(s, t, 99, 4, 1e9, nullptr, 3000);
  std::vector<FailureEvent> gpu_only;
  for (const FailureEvent& e : mixed) {
    if (e.component == Component::kGpu) gpu_only.push_back(e);
  }
  ASSERT_GT(gpu_only.size(), 1000u);
  ASSERT_LT(gpu_only.size(), mixed.size());
  for (size_t i = 0; i < gpu_only.size(); ++i) EXPECT_TRUE(same(gpu_only[i], a[i])) << i;
  // The renewal (Weibull) process is as deterministic as the exponential one.
  const auto again = collect(s, t, 99, 4, 1e9, nullptr, 3000);
  ASSERT_EQ(again.size(), mixed.size());
  for (size_t i = 0; i < mixed.size(); ++i) EXPECT_TRUE(same(again[i], mixed[i])) << i;
}

TEST(ProcessTest, ExpectedInterruptionRateMatchesCounts) {
  Scenario s = testing::scenario_with(10, 40, 4);  // 100 nodes, 400 GPUs
  FailureProcess node = testing::process(Component::kNode, 2e-6);
  node.kinds = {testing::kind("hard", 0.8, "fixed", 0), testing::kind("benign", 0.2, "fixed", 0, false)};
  node.burst_probability = 0.2;
  node.burst_size = 3;
  FailureProcess gpu = testing::process(Component::kGpu, 1e-7);
  s.failures.processes = {node, gpu};
  const Topology t = topo(s);
  const int64_t job_gpus = 160;  // nodes 0..39
  const double rate = expected_interruption_rate_per_s(s, t, job_gpus);
  // By hand: node 2e-6*100*0.8*(0.8*40 + 0.2*42)/100 + gpu 1e-7*160.
  EXPECT_NEAR(rate, 2e-6 * 0.8 * (0.8 * 40 + 0.2 * 42) + 1e-7 * 160, 1e-15);
  const double horizon = 2e8;
  const auto events = collect(s, t, 21, 0, horizon);
  std::set<int64_t> hit_times;  // one interruption per instant (a burst interrupts once)
  for (const FailureEvent& e : events) {
    if (e.interrupts && e.gpus.first < job_gpus) hit_times.insert(e.time.us());
  }
  const double expected = rate * horizon;
  expect_within_5_sigma(static_cast<double>(hit_times.size()), expected, std::sqrt(expected), "interruptions");

  // Lemons raise the rate by their weight; the whole cluster as the job makes it exact.
  node.lemon_fraction = 0.1;
  node.lemon_multiplier = 11;
  s.failures.processes = {node};
  EXPECT_NEAR(expected_interruption_rate_per_s(s, t, t.gpus()), 2e-6 * 0.8 * (90 + 110), 1e-12);
}

TEST(ProcessTest, ZeroRateYieldsNothingAndBadParametersAreErrors) {
  Scenario s = testing::scenario_with(2, 8, 0);
  s.failures.processes = {testing::process(Component::kGpu, 0.0)};
  const Topology t = topo(s);
  auto src = FailureSource::make(s, t, nullptr, 1, 0);
  ASSERT_TRUE(src.ok());
  FailureEvent e;
  EXPECT_FALSE(src->next(e));

  auto expect_error = [&](FailureProcess p, const std::string& needle) {
    Scenario bad = s;
    bad.failures.processes = {testing::process(Component::kGpu, 1e-6), std::move(p)};
    auto r = FailureSource::make(bad, t, nullptr, 1, 0);
    ASSERT_FALSE(r.ok()) << needle;
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);
  };
  FailureProcess p = testing::process(Component::kGpu, -1.0);
  expect_error(p, "failures.processes[1].rate");
  p = testing::process(Component::kGpu, 1e-6, "gamma");
  expect_error(p, "failures.processes[1].distribution");
  p = testing::process(Component::kGpu, 1e-6, "weibull", 0.0);
  expect_error(p, "failures.processes[1].shape: weibull shape must be in [0.05, 100]");
  p = testing::process(Component::kGpu, 1e-6, "lognormal", 150.0);
  expect_error(p, "failures.processes[1].shape: lognormal sigma");
  p = testing::process(Component::kGpu, 1e-6);
  p.kinds[0].repair.distribution = "weibull";
  p.kinds[0].repair.shape = 0.01;
  expect_error(p, "failures.processes[1].kinds[0].repair.shape");
  p = testing::process(Component::kGpu, 1e-6);
  p.kinds = {testing::kind("a", 0.5, "fixed", 1), testing::kind("b", 0.4, "fixed", 1)};
  expect_error(p, "failures.processes[1].kinds: shares sum to 0.9");
  p = testing::process(Component::kGpu, 1e-6);
  p.kinds[0].repair.distribution = "empirical";
  expect_error(p, "failures.processes[1].kinds[0].repair.values");
  p = testing::process(Component::kGpu, 1e-6);
  p.lemon_fraction = 1.5;
  expect_error(p, "lemon_fraction");
  p = testing::process(Component::kGpu, 1e-6);
  p.burst_size = 0;
  expect_error(p, "burst_size");
  p = testing::process(Component::kGpu, 1e-6);
  p.deferred_share = 1.5;
  p.visit_interval_s = 86400.0;
  expect_error(p, "failures.processes[1].deferred_repairs.share");
  p.deferred_share = 0.5;
  p.visit_interval_s = 0.0;
  expect_error(p, "failures.processes[1].deferred_repairs.visit_interval");
  p = testing::process(Component::kGpu, 1e-6);
  p.shared_repair_probability = -0.1;
  p.shared_repair_window_s = 3600.0;
  expect_error(p, "failures.processes[1].shared_repairs.probability");
  p.shared_repair_probability = 0.5;
  p.shared_repair_window_s = 0.0;
  expect_error(p, "failures.processes[1].shared_repairs.window");
}

// A node process on 400 nodes failing every `per_node_days` per node, repairs fixed at
// `repair_s`, a share `deferred` of them waiting for visits every `visit_s` on average.
Scenario deferred_scenario(double per_node_days, double repair_s, double deferred, double visit_s) {
  Scenario s = testing::scenario_with(400, 8, 8);
  FailureProcess p = testing::process(Component::kNode, 1.0 / (per_node_days * testing::kDay));
  p.kinds = {testing::kind("hard", 1.0, "fixed", repair_s)};
  p.deferred_share = deferred;
  p.visit_interval_s = visit_s;
  s.failures.processes = {p};
  return s;
}

// The distinct repair ends of `events` (each failure's start + repair), sorted.
std::vector<double> distinct_ends(const std::vector<FailureEvent>& events) {
  std::vector<double> ends;
  for (const FailureEvent& e : events) ends.push_back((e.time + e.repair).seconds());
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  return ends;
}

// Every failure deferred: each unit stays down until the first visit after its failure, so no
// visit (no repair end of another failure) falls inside a repair, repairs end together at few
// instants (about one per visit, since units wait at nearly every visit), and a repair lasts
// the mean gap between visits on average. Tolerances: 5 standard deviations; the waits of one
// visit share their end, so the mean wait's deviation is taken over visits, not failures.
TEST(ProcessTest, DeferredRepairsEndTogetherAtTheNextVisit) {
  constexpr double kVisit = 10 * testing::kDay, kHorizon = 2000 * testing::kDay;
  const Scenario s = deferred_scenario(400, 1.0, 1.0, kVisit);
  const Topology t = topo(s);
  const auto events = collect(s, t, 11, 0, kHorizon);
  ASSERT_GT(events.size(), 1000u);
  const std::vector<double> ends = distinct_ends(events);
  double wait_sum = 0.0;
  for (const FailureEvent& e : events) {
    const double start = e.time.seconds(), end = (e.time + e.repair).seconds();
    ASSERT_GT(end, start);
    // The first repair end after the start is this failure's own.
    const auto next = std::upper_bound(ends.begin(), ends.end(), start);
    ASSERT_NE(next, ends.end());
    EXPECT_EQ(*next, end) << "a visit at " << *next << " s left the unit failed at " << start
                          << " s down until " << end << " s";
    wait_sum += end - start;
  }
  const auto visits_in_horizon =
      static_cast<double>(std::lower_bound(ends.begin(), ends.end(), kHorizon) - ends.begin());
  const double expected_visits = kHorizon / kVisit;
  expect_within_5_sigma(visits_in_horizon, expected_visits, std::sqrt(expected_visits),
                        "distinct repair ends (visits)");
  expect_within_5_sigma(wait_sum / static_cast<double>(events.size()), kVisit,
                        kVisit / std::sqrt(expected_visits), "mean wait for a visit");
}

// A share of the failures deferred: the others draw their kind's repair; the deferred share
// and the mean repair match FailureProcess's closed form (process_means.h) within 5 standard
// deviations (the deferred ones' over visits, as above).
TEST(ProcessTest, DeferredRepairsMixWithDrawnRepairs) {
  constexpr double kVisit = 5 * testing::kDay, kHorizon = 3000 * testing::kDay;
  constexpr double kRepair = 3600.0;
  const Scenario s = deferred_scenario(200, kRepair, 0.3, kVisit);
  const FailureProcess& p = s.failures.processes[0];
  const Topology t = topo(s);
  const auto events = collect(s, t, 5, 1, kHorizon);
  ASSERT_GT(events.size(), 4000u);
  double deferred = 0.0, sum = 0.0;
  for (const FailureEvent& e : events) {
    if (e.repair.seconds() != kRepair) deferred += 1.0;
    sum += e.repair.seconds();
  }
  const double n = static_cast<double>(events.size());
  expect_within_5_sigma(deferred / n, 0.3, std::sqrt(0.3 * 0.7 / n), "deferred share");
  const double visits = kHorizon / kVisit;
  expect_within_5_sigma(sum / n, mean_repair_s(p), 0.3 * kVisit / std::sqrt(visits),
                        "mean repair");
  // Deferred repairs end at visits: far fewer distinct ends than deferred failures.
  std::vector<FailureEvent> late;
  for (const FailureEvent& e : events) {
    if (e.repair.seconds() != kRepair) late.push_back(e);
  }
  EXPECT_LT(static_cast<double>(distinct_ends(late).size()), 1.5 * visits);
}

// A node process on 400 nodes failing every `per_node_days` per node, exponential repairs of
// mean `repair_s` (distinct to the microsecond, so two ends meet only when shared), bursts of
// `burst_size` nodes in a share `burst` of the events, and shared repairs.
Scenario shared_scenario(double per_node_days, double repair_s, double window_s, double shared,
                         double burst = 0.0, int burst_size = 1) {
  Scenario s = testing::scenario_with(400, 8, 8);
  FailureProcess p = testing::process(Component::kNode, 1.0 / (per_node_days * testing::kDay));
  p.kinds = {testing::kind("hard", 1.0, "exponential", repair_s)};
  p.shared_repair_window_s = window_s;
  p.shared_repair_probability = shared;
  p.burst_probability = burst;
  p.burst_size = burst_size;
  s.failures.processes = {p};
  return s;
}

// The failures that may share the previous one's repair (within the window of it, its unit still
// down), and those of them whose repair ends at the previous one's instant.
struct SharedCount {
  int64_t candidates = 0, shared = 0, others = 0;
};
SharedCount count_shared(const std::vector<FailureEvent>& events, double window_s) {
  SharedCount c;
  for (size_t i = 1; i < events.size(); ++i) {
    const FailureEvent& a = events[i - 1];
    const FailureEvent& b = events[i];
    const bool candidate = b.time.seconds() - a.time.seconds() <= window_s &&
                           (a.time + a.repair).seconds() > b.time.seconds();
    if (!candidate) {
      ++c.others;
      continue;
    }
    ++c.candidates;
    c.shared += (a.time + a.repair) == (b.time + b.repair) ? 1 : 0;
  }
  return c;
}

// Probability 1: every failure within the window of the previous one, whose unit is still down,
// comes back at the previous one's instant, to the microsecond; burst partners (one instant)
// therefore come back together. Failures outside the window draw their own repairs.
TEST(ProcessTest, SharedRepairsEndWithThePreviousFailure) {
  constexpr double kWindow = 6 * 3600.0, kHorizon = 400 * testing::kDay;
  const Scenario s = shared_scenario(100, 2 * testing::kDay, kWindow, 1.0, 0.2, 3);
  const Topology t = topo(s);
  const auto events = collect(s, t, 3, 0, kHorizon);
  ASSERT_GT(events.size(), 1000u);
  const SharedCount c = count_shared(events, kWindow);
  EXPECT_GT(c.candidates, 200);
  EXPECT_GT(c.others, 200);
  EXPECT_EQ(c.shared, c.candidates);
  // Not every end is shared: the failures outside the window drew their own.
  EXPECT_GT(distinct_ends(events).size(), static_cast<size_t>(c.others) / 2);
}

// Probability 0.4: the share of the candidates that come back with the previous failure is 0.4
// within 5 binomial standard deviations; without the map none does (exponential draws never meet
// to the microsecond).
TEST(ProcessTest, SharedRepairsShareMatchesTheProbability) {
  constexpr double kWindow = 4 * 3600.0, kHorizon = 1500 * testing::kDay;
  const Scenario s = shared_scenario(60, testing::kDay, kWindow, 0.4);
  const Topology t = topo(s);
  const SharedCount c = count_shared(collect(s, t, 9, 2, kHorizon), kWindow);
  ASSERT_GT(c.candidates, 1000);
  const auto n = static_cast<double>(c.candidates);
  expect_within_5_sigma(static_cast<double>(c.shared) / n, 0.4, std::sqrt(0.4 * 0.6 / n),
                        "shared share of the candidates");
  const Scenario off = shared_scenario(60, testing::kDay, kWindow, 0.0);
  const SharedCount none = count_shared(collect(off, t, 9, 2, kHorizon), kWindow);
  ASSERT_GT(none.candidates, 1000);
  EXPECT_EQ(none.shared, 0);
}

}  // namespace
}  // namespace ntpsim::sim
