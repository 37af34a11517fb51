// Regimes of the cluster (a two-state Markov-modulated immigrant rate with repairs scaled by
// state, failure_source.h): the engine samples the stated rates, state shares and repair scales;
// fit_hawkes_regime recovers known parameters within their intervals; fit_trace chooses the model
// for a log with regimes and not for one without, and the engine sampling the written model
// reproduces the log's statistics. Fixed seeds; tolerances are stated with each test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "failure_test_util.h"
#include "fit_test_util.h"
#include "sim/failures/fit.h"
#include "sim/scenario/printer.h"
#include "sim/scenario/process_means.h"

namespace ntpsim::sim {
namespace {

using testing::events;
using testing::kDay;
using testing::repairs_of;

constexpr int kRegimeNodes = 400;  // domains of one 8-GPU node each

struct RegimeSpec {
  double share = 0.15, ratio = 6.0, high_s = 15 * kDay, low_scale = 0.8, high_scale = 2.4;
};

Scenario regime_scenario(double rate_per_node_s, double n1, double tau1_s, double n2, double tau2_s,
                         const RegimeSpec& g, std::vector<FailureKind> kinds) {
  Scenario s = testing::scenario_with(kRegimeNodes, 8, 8);
  FailureProcess p = testing::process(Component::kNode, rate_per_node_s, "hawkes");
  p.branching = n1;
  p.excitation_mean_s = tau1_s;
  p.slow_branching = n2;
  p.slow_excitation_mean_s = tau2_s;
  p.regime_high_share = g.share;
  p.regime_rate_ratio = g.ratio;
  p.regime_high_mean_s = g.high_s;
  p.regime_low_repair_scale = g.low_scale;
  p.regime_high_repair_scale = g.high_scale;
  p.kinds = std::move(kinds);
  s.failures.processes = {p};
  return s;
}

// Asymptotic variance per second of the count of a two-state MMPP with rates a (low), b (high),
// shares pl, ph and switching rates summing to q: a-bar + 2 (b - a)^2 pl ph / q.
double mmpp_variance_rate(double a, double b, double pl, double ph, double q) {
  return pl * a + ph * b + 2.0 * (b - a) * (b - a) * pl * ph / q;
}

// Without excitation the state of each failure is seen in its repair (fixed 1 h, scaled 1x or
// 3x): every repair is one of the two, the share of failures starting high is
// share x ratio / (1 - share + share x ratio) within 5 standard deviations (the fraction of time
// high over T varies as 2 pl ph / (q T), times the derivative of the failure share), the count
// matches rate x units x time within 5 standard deviations of the MMPP's count, and the draws
// are a function of the seed and replication.
TEST(Regime, EngineSamplesTheStatedRatesSharesAndRepairScales) {
  const double rate = 1e-4 / 3600.0, days = 20 * 365.0;
  RegimeSpec g;
  g.share = 0.2;
  g.ratio = 5.0;
  g.high_s = 10 * kDay;
  g.low_scale = 1.0;
  g.high_scale = 3.0;
  const Scenario s = regime_scenario(rate, 0.0, 3600.0, 0.0, 0.0, g,
                                     {testing::kind("hard", 1.0, "fixed", 3600.0)});
  const auto ev = events(s, 3, 0, days);
  int64_t high = 0;
  for (const FailureEvent& e : ev) {
    const double r = e.repair.seconds();
    ASSERT_TRUE(r == 3600.0 || r == 3 * 3600.0) << r;
    high += r > 3600.0 ? 1 : 0;
  }
  const double n = static_cast<double>(ev.size());
  const double pl = 1.0 - g.share, ph = g.share;
  const double q = 1.0 / g.high_s + (1.0 / g.high_s) * ph / pl;
  const double total = rate * kRegimeNodes;
  const double low_rate = total / (pl + ph * g.ratio), high_rate = low_rate * g.ratio;
  const double t = days * kDay;
  testing::expect_within_5_sigma(
      n, total * t, std::sqrt(mmpp_variance_rate(low_rate, high_rate, pl, ph, q) * t), "faults");
  const double phi = ph * g.ratio / (pl + ph * g.ratio);
  const double dphi = g.ratio / ((pl + ph * g.ratio) * (pl + ph * g.ratio));
  const double sd_share = std::sqrt(2.0 * pl * ph / (q * t));
  testing::expect_within_5_sigma(static_cast<double>(high) / n, phi,
                                 std::sqrt(dphi * dphi * sd_share * sd_share + phi * (1 - phi) / n),
                                 "share of failures starting high");
  const auto again = events(s, 3, 0, days);
  ASSERT_EQ(again.size(), ev.size());
  for (size_t i = 0; i < ev.size(); ++i) {
    EXPECT_EQ(again[i].time, ev[i].time);
    EXPECT_EQ(again[i].repair, ev[i].repair);
  }
}

// Maximum likelihood on 10 two-year samples of a known process (kernels 0.2 after 1 h and 0.2
// after 1 d; high 15% of the time in 15-day spells, immigrants 6x, repairs lognormal sigma 1.5,
// 3x as long when high): from the times alone (the fit's candidate) and from times and repairs,
// each regime parameter's 95% interval covers the truth in at least 7 of 10, and AIC prefers
// the regimes to the two-scale process (with independent repairs) every time.
TEST(Regime, FitRecoversTheRegimeWithinItsIntervals) {
  const double rate = 4e-4 / 3600.0, days = 730;
  const RegimeSpec g;
  FailureKind k = testing::kind("hard", 1.0, "lognormal", 1 * kDay);
  k.repair.sigma = 1.5;
  const Scenario s = regime_scenario(rate, 0.2, 3600.0, 0.2, kDay, g, {k});
  const int reps = 10;
  int cover[4] = {0, 0, 0, 0}, cover_times[3] = {0, 0, 0};
  for (int r = 0; r < reps; ++r) {
    const auto ev = events(s, 41, r, days);
    const auto t = testing::times_of(ev);
    ASSERT_GT(t.size(), 1000u);
    const HawkesFit two = fit_hawkes_two_scale(t, days * kDay, 60.0, 0, 1, "test");
    ASSERT_TRUE(two.converged) << r;
    const RegimeFit times_only = fit_hawkes_regime(t, {}, days * kDay, 60.0, two, false);
    ASSERT_TRUE(times_only.converged) << r;
    EXPECT_LT(times_only.kernels.delta_aic, two.delta_aic) << r;
    EXPECT_EQ(times_only.repair_scale, 1.0);
    const double truth3[3] = {g.share, g.ratio, g.high_s};
    const double lo3[3] = {times_only.high_share_lo, times_only.rate_ratio_lo,
                           times_only.high_mean_lo_s};
    const double hi3[3] = {times_only.high_share_hi, times_only.rate_ratio_hi,
                           times_only.high_mean_hi_s};
    for (int i = 0; i < 3; ++i)
      cover_times[i] += lo3[i] <= truth3[i] && truth3[i] <= hi3[i] ? 1 : 0;
    const RegimeFit f =
        fit_hawkes_regime(t, repairs_of(ev, days * kDay), days * kDay, 60.0, two, true);
    ASSERT_TRUE(f.converged) << r;
    EXPECT_LT(f.kernels.delta_aic, two.delta_aic) << r;
    // The states' repair scales average 1 over the failures as the engine starts them in each
    // state (immigrants and the failures they trigger), so each kind keeps its mean repair.
    FailureProcess fitted = regime_process(f);
    fitted.kinds = {k};
    EXPECT_NEAR(mean_repair_s(fitted), k.repair.mean_s, 1e-9 * k.repair.mean_s) << r;
    EXPECT_NEAR(f.high_repair_scale / f.low_repair_scale, f.repair_scale, 1e-12) << r;
    const double truth[4] = {g.share, g.ratio, g.high_s, g.high_scale / g.low_scale};
    const double lo[4] = {f.high_share_lo, f.rate_ratio_lo, f.high_mean_lo_s, f.repair_scale_lo};
    const double hi[4] = {f.high_share_hi, f.rate_ratio_hi, f.high_mean_hi_s, f.repair_scale_hi};
    for (int i = 0; i < 4; ++i) cover[i] += lo[i] <= truth[i] && truth[i] <= hi[i] ? 1 : 0;
  }
  for (int i = 0; i < 4; ++i) EXPECT_GE(cover[i], 7) << "parameter " << i;
  for (int i = 0; i < 3; ++i) EXPECT_GE(cover_times[i], 7) << "times only, parameter " << i;
}

// Counts of faults in consecutive 30-day windows: variance over mean (1 for a Poisson process;
// regimes of weeks raise it).
double dispersion_30d(const std::vector<double>& t, double days) {
  const int windows = static_cast<int>(days / 30);
  std::vector<double> c(static_cast<size_t>(windows), 0.0);
  for (const double x : t) {
    const int w = static_cast<int>(x / (30 * kDay));
    if (w < windows) c[static_cast<size_t>(w)] += 1;
  }
  double m = 0, v = 0;
  for (const double x : c) m += x / windows;
  for (const double x : c) v += (x - m) * (x - m) / (windows - 1);
  return v / m;
}

// A two-kind log with regimes: fit_trace chooses the pooled process with regimes (with or
// without a repair law per state: the log's repairs are scaled by the state), writes its
// regime, the written model round-trips through the scenario printer, and the engine sampling it
// (4 replications) reproduces the log's fault count (within 5 standard deviations of an MMPP
// count, the excitation's factor 1 / (1 - n) on top), the CV of its gaps (within 0.25), its mean
// repair (within 15%) and the dispersion of its 30-day counts (within a factor of 2; a Poisson
// process gives about 1). The same process without regimes is not given one.
// A log of one kind gets the same clustered candidates (two time scales, regimes, repairs by
// state, visits) beside the kind's own laws: the regimes are found and written as for many kinds.
// The regime fits' derivatives on 3 threads give the same model, byte for byte.
TEST(Regime, LogOfOneKindGetsTheClusteredCandidates) {
  const double days = 730, rate = 2e-4 / 3600.0;
  FailureKind a = testing::kind("a", 1.0, "lognormal", 2 * kDay);
  a.repair.sigma = 1.5;
  const RegimeSpec g;
  const auto ev = events(regime_scenario(rate, 0.2, 3600.0, 0.2, kDay, g, {a}), 9, 0, days);
  const std::string log = testing::csv_log_with_kinds(ev, days);
  const TraceFit f = testing::fit_csv(log, kRegimeNodes);
  const TraceFit threaded =
      testing::fit_csv(log, kRegimeNodes, 19, FitOptions{}.max_regime_faults, 3);
  EXPECT_EQ(fitted_failures_yaml(threaded), fitted_failures_yaml(f));
  ASSERT_EQ(f.kinds.size(), 1u);
  EXPECT_EQ(f.pooled.events, static_cast<int64_t>(ev.size()));
  ASSERT_TRUE(f.pooled.regime.converged);
  EXPECT_LT(f.pooled.regime.kernels.delta_aic, f.pooled.apart_gain);
  EXPECT_TRUE(f.pooled.regime_chosen || f.pooled.regime_repairs_chosen)
      << "kind " << f.pooled.apart_gain << ", regime " << f.pooled.regime.kernels.delta_aic;
  const std::string yaml = fitted_failures_yaml(f);
  EXPECT_NE(yaml.find("clustering in time"), std::string::npos) << yaml;
  auto s = testing::load_fitted_round_trip("fit_regime_one", yaml, kRegimeNodes,
                                           "high_mean_duration");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->failures.processes.size(), 1u);
  EXPECT_GT(s->failures.processes[0].regime_high_share, 0.0);
}

TEST(Regime, LogWithRegimesIsFittedAndTheEngineReproducesIt) {
  const double days = 730, rate = 2e-4 / 3600.0, n = 0.4;
  FailureKind a = testing::kind("a", 0.6, "lognormal", 2 * kDay);
  FailureKind b = testing::kind("b", 0.4, "lognormal", 2 * kDay);
  a.repair.sigma = b.repair.sigma = 1.5;
  const RegimeSpec g;
  const auto ev = events(regime_scenario(rate, 0.2, 3600.0, 0.2, kDay, g, {a, b}), 9, 0, days);
  const std::vector<double> log_times = testing::times_of(ev);
  const TraceFit f = testing::fit_csv(testing::csv_log_with_kinds(ev, days), kRegimeNodes);
  ASSERT_EQ(f.kinds.size(), 2u);
  // Its repairs are scaled by the state, so the regimes may come with a repair law per state.
  EXPECT_TRUE(f.pooled.regime_chosen || f.pooled.regime_repairs_chosen)
      << "two " << f.pooled.two.delta_aic << ", regime " << f.pooled.regime.kernels.delta_aic;
  const std::string yaml = fitted_failures_yaml(f);
  EXPECT_NE(yaml.find("high_share:"), std::string::npos) << yaml;

  auto s = testing::load_fitted_round_trip("fit_regime", yaml, kRegimeNodes, "high_mean_duration");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->failures.processes.size(), 1u);
  EXPECT_GT(s->failures.processes[0].regime_high_share, 0.0);

  auto mean_repair = [](const std::vector<FailureEvent>& e) {
    double m = 0;
    for (const FailureEvent& x : e) m += x.repair.seconds() / static_cast<double>(e.size());
    return m;
  };
  const int reps = 4;
  double count = 0, cv = 0, repair = 0, disp = 0;
  for (int r = 0; r < reps; ++r) {
    const auto e = events(*s, 77, r, days);
    const auto t = testing::times_of(e);
    count += static_cast<double>(t.size()) / reps;
    cv += testing::gap_cv(t) / reps;
    repair += mean_repair(e) / reps;
    disp += dispersion_30d(t, days) / reps;
  }
  const double pl = 1.0 - g.share, ph = g.share;
  const double q = 1.0 / g.high_s + (1.0 / g.high_s) * ph / pl;
  const double mu = rate * kRegimeNodes * (1 - n);
  const double low = mu / (pl + ph * g.ratio);
  const double sd =
      std::sqrt(mmpp_variance_rate(low, low * g.ratio, pl, ph, q) * days * kDay) / (1 - n);
  const auto observed = static_cast<double>(log_times.size());
  testing::expect_within_5_sigma(count, observed, std::sqrt(sd * sd / reps + sd * sd), "faults");
  EXPECT_NEAR(cv, testing::gap_cv(log_times), 0.25);
  EXPECT_NEAR(repair / mean_repair(ev), 1.0, 0.15);
  const double log_disp = dispersion_30d(log_times, days);
  EXPECT_GT(log_disp, 3.0);
  EXPECT_GT(disp, log_disp / 2);
  EXPECT_LT(disp, log_disp * 2);

  RegimeSpec none = g;
  none.ratio = 1.0;  // one state: the same rate and repairs in both
  none.high_scale = none.low_scale = 1.0;
  const auto plain =
      events(regime_scenario(rate, 0.2, 3600.0, 0.2, kDay, none, {a, b}), 9, 0, days);
  const TraceFit fp = testing::fit_csv(testing::csv_log_with_kinds(plain, days), kRegimeNodes);
  EXPECT_FALSE(fp.pooled.regime_chosen)
      << "two " << fp.pooled.two.delta_aic << ", regime " << fp.pooled.regime.kernels.delta_aic;
}

}  // namespace
}  // namespace ntpsim::sim
