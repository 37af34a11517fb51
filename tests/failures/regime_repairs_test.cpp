// Regimes with a repair law per state (a two-lognormal mixture in each state, failure_source.h):
// the engine draws each repair from the law of the state its failure starts in;
// fit_hawkes_regime_repairs recovers known per-state laws within their intervals; fit_trace
// chooses the model for a log whose repairs depend on the state and not for one whose repairs
// do not, and the engine sampling the written model reproduces the log's repair statistics.
// Fixed seeds; tolerances are stated with each test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "failure_test_util.h"
#include "fit_test_util.h"
#include "sim/failures/fit.h"
#include "sim/scenario/printer.h"

namespace ntpsim::sim {
namespace {

using testing::events;
using testing::kDay;
using testing::repairs_of;

// A two-lognormal law: with probability short_share lognormal of median short_median_s and
// log-sd short_sigma, else of median long_median_s and log-sd long_sigma.
struct Law {
  double short_share, short_median_s, short_sigma, long_median_s, long_sigma;
};

// The law as an empirical repair law of 4000 values: each part's quantiles at (j + 0.5) / n for
// its share of the values (the law itself, discretised; no draws).
RepairDist as_empirical(const Law& l) {
  const boost::math::normal_distribution<double> z(0.0, 1.0);
  constexpr int kValues = 4000;
  const int n1 = static_cast<int>(std::lround(l.short_share * kValues)), n2 = kValues - n1;
  RepairDist r;
  r.distribution = "empirical";
  for (int j = 0; j < n1; ++j) {
    r.values_s.push_back(l.short_median_s *
                         std::exp(l.short_sigma * boost::math::quantile(z, (j + 0.5) / n1)));
  }
  for (int j = 0; j < n2; ++j) {
    r.values_s.push_back(l.long_median_s *
                         std::exp(l.long_sigma * boost::math::quantile(z, (j + 0.5) / n2)));
  }
  return r;
}

constexpr int kStateNodes = 400;  // domains of one 8-GPU node each

struct Spec {
  double share = 0.2, ratio = 6.0, high_s = 5 * kDay;
  Law low{0.3, 1200.0, 0.8, 1 * kDay, 1.0};
  Law high{0.1, 1200.0, 0.8, 6 * kDay, 1.0};
};

Scenario state_scenario(double rate_per_node_s, double n1, double n2, const Spec& g,
                        int kinds = 1) {
  Scenario s = testing::scenario_with(kStateNodes, 8, 8);
  FailureProcess p = testing::process(Component::kNode, rate_per_node_s, "hawkes");
  p.branching = n1;
  p.excitation_mean_s = 3600.0;
  p.slow_branching = n2;
  p.slow_excitation_mean_s = kDay;
  p.regime_high_share = g.share;
  p.regime_rate_ratio = g.ratio;
  p.regime_high_mean_s = g.high_s;
  p.regime_state_repairs = true;
  p.regime_repair[0] = as_empirical(g.low);
  p.regime_repair[1] = as_empirical(g.high);
  // The kinds' own laws are not sampled (a fixed 1 s would show if they were).
  if (kinds == 1) {
    p.kinds = {testing::kind("hard", 1.0, "fixed", 1.0)};
  } else {
    p.kinds = {testing::kind("a", 0.6, "fixed", 1.0), testing::kind("b", 0.4, "fixed", 1.0)};
  }
  s.failures.processes = {p};
  return s;
}

double law_mean(const Law& l) {
  return l.short_share * l.short_median_s * std::exp(0.5 * l.short_sigma * l.short_sigma) +
         (1 - l.short_share) * l.long_median_s * std::exp(0.5 * l.long_sigma * l.long_sigma);
}

// Each state's law its own (low: empirical, 40% 10 min and 60% 1 d; high: lognormal of mean 5 d
// and sigma 0.02, within 10% of it at 5 sd), so each repair shows its state. Without
// excitation: the share of failures starting high is share x ratio / (1 - share + share x ratio)
// within 5 standard deviations (as in regime_test.cpp), the low state's short share is within 5
// binomial standard deviations, the high state's mean within 0.1%, no kind's fixed 1 s repair
// is drawn, and the draws are a function of the seed and replication.
TEST(RegimeRepairs, EngineDrawsEachRepairFromItsStatesLaw) {
  const double rate = 1e-4 / 3600.0, days = 20 * 365.0;
  Spec g;
  g.share = 0.2;
  g.ratio = 5.0;
  g.high_s = 10 * kDay;
  Scenario s = state_scenario(rate, 0.0, 0.0, g);
  RepairDist low;
  low.distribution = "empirical";
  low.values_s = {600.0, 600.0, kDay, kDay, kDay};
  RepairDist high;
  high.distribution = "lognormal";
  high.mean_s = 5 * kDay;
  high.sigma = 0.02;
  s.failures.processes[0].regime_repair[0] = low;
  s.failures.processes[0].regime_repair[1] = high;
  const auto ev = events(s, 5, 0, days);
  double low_short = 0, low_long = 0, high_sum = 0, high_n = 0;
  for (const FailureEvent& e : ev) {
    const double r = e.repair.seconds();
    if (r == 600.0) {
      ++low_short;
    } else if (r == kDay) {
      ++low_long;
    } else {
      ASSERT_NEAR(r / (5 * kDay), 1.0, 0.1) << r;
      high_sum += r;
      ++high_n;
    }
  }
  const auto n = static_cast<double>(ev.size());
  const double low_n = low_short + low_long;
  const double pl = 1.0 - g.share, ph = g.share;
  const double q = 1.0 / g.high_s + (1.0 / g.high_s) * ph / pl;
  const double t = days * kDay;
  const double phi = ph * g.ratio / (pl + ph * g.ratio);
  const double dphi = g.ratio / ((pl + ph * g.ratio) * (pl + ph * g.ratio));
  const double sd_share = std::sqrt(2.0 * pl * ph / (q * t));
  testing::expect_within_5_sigma(high_n / n, phi,
                                 std::sqrt(dphi * dphi * sd_share * sd_share + phi * (1 - phi) / n),
                                 "share of failures starting high");
  testing::expect_within_5_sigma(low_short / low_n, 0.4, std::sqrt(0.4 * 0.6 / low_n),
                                 "low state's short share");
  ASSERT_GT(high_n, 100);
  EXPECT_NEAR(high_sum / high_n / (5 * kDay), 1.0, 0.001);
  const auto again = events(s, 5, 0, days);
  ASSERT_EQ(again.size(), ev.size());
  for (size_t i = 0; i < ev.size(); ++i) EXPECT_EQ(again[i].repair, ev[i].repair);
}

// Maximum likelihood on 6 one-year samples of a known process (kernels 0.2 after 1 h and 0.1
// after 1 d; high 20% of the time in 5-day spells, immigrants 6x; low state's repairs 30% short
// (median 20 min) and long of median 1 d, high state's 10% short and long of median 6 d, each
// replayed from 4000 quantiles of its law): each
// state's short share, long median and mean repair has a 95% interval that covers the truth in
// at least 4 of 6, and AIC prefers the laws per state to the same arrivals with one law for
// every repair every time.
TEST(RegimeRepairs, FitRecoversTheLawsPerStateWithinTheirIntervals) {
  const double rate = 2.5e-4 / 3600.0, days = 365;
  const Spec g;
  const Scenario s = state_scenario(rate, 0.2, 0.1, g);
  const int reps = 6;
  int cover[6] = {0, 0, 0, 0, 0, 0};
  for (int r = 0; r < reps; ++r) {
    const auto ev = events(s, 17, r, days);
    const auto t = testing::times_of(ev);
    ASSERT_GT(t.size(), 500u);
    const double span = days * kDay;
    const HawkesFit two = fit_hawkes_two_scale(t, span, 60.0, 0, 1, "test");
    ASSERT_TRUE(two.converged) << r;
    const RegimeFit times_only = fit_hawkes_regime(t, {}, span, 60.0, two, false);
    ASSERT_TRUE(times_only.converged) << r;
    const RegimeFit f = fit_hawkes_regime_repairs(t, repairs_of(ev, span), span, 60.0, times_only);
    ASSERT_TRUE(f.converged) << r;
    ASSERT_TRUE(f.state_repairs);
    EXPECT_LT(f.kernels.delta_aic, times_only.kernels.delta_aic) << r;
    ASSERT_EQ(f.high_posterior.size(), t.size());
    const Law* truth[2] = {&g.low, &g.high};
    for (int st = 0; st < 2; ++st) {
      const RepairMixture& m = f.state_repair[st];
      const Law& l = *truth[st];
      cover[3 * st] += m.short_share_lo <= l.short_share && l.short_share <= m.short_share_hi;
      cover[3 * st + 1] +=
          m.long_median_lo_s <= l.long_median_s && l.long_median_s <= m.long_median_hi_s;
      cover[3 * st + 2] += m.mean_lo_s <= law_mean(l) && law_mean(l) <= m.mean_hi_s;
    }
  }
  for (int i = 0; i < 6; ++i) EXPECT_GE(cover[i], 4) << "statistic " << i;
}

// Mean repair of the faults in the busiest 30-day windows (the windows' counts above their
// median) over that of the rest: above 1 when busy weeks have longer repairs.
double busy_repair_ratio(const std::vector<FailureEvent>& ev, double days) {
  const int windows = static_cast<int>(days / 30);
  std::vector<double> count(static_cast<size_t>(windows), 0.0), sum(count.size(), 0.0);
  for (const FailureEvent& e : ev) {
    const auto w = static_cast<size_t>(e.time.seconds() / (30 * kDay));
    if (w < count.size()) {
      count[w] += 1;
      sum[w] += e.repair.seconds();
    }
  }
  std::vector<double> sorted = count;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  double bn = 0, bs = 0, qn = 0, qs = 0;
  for (size_t w = 0; w < count.size(); ++w) {
    (count[w] > median ? bn : qn) += count[w];
    (count[w] > median ? bs : qs) += sum[w];
  }
  return (bs / bn) / (qs / qn);
}

double short_share(const std::vector<FailureEvent>& ev) {
  double n = 0;
  for (const FailureEvent& e : ev) n += e.repair.seconds() < 3600.0 ? 1 : 0;
  return n / static_cast<double>(ev.size());
}

double mean_repair(const std::vector<FailureEvent>& ev) {
  double m = 0;
  for (const FailureEvent& e : ev) m += e.repair.seconds() / static_cast<double>(ev.size());
  return m;
}

// A two-kind log whose repairs depend on the state: fit_trace chooses the regimes with a law
// per state (over the regimes without), writes both laws, the written model round-trips through
// the scenario printer, and the engine sampling it (4 replications) reproduces the log's mean
// repair (within 15%), its share of repairs under an hour (within 0.05) and the ratio of the
// mean repair in its busy months to the rest (within 25%; the log's is above 1.5). The same
// arrivals with one repair law in both states are not given laws per state.
TEST(RegimeRepairs, LogWithRepairsByStateIsFittedAndTheEngineReproducesIt) {
  const double days = 730, rate = 2e-4 / 3600.0;
  const Spec g;
  const auto ev = events(state_scenario(rate, 0.2, 0.1, g, 2), 9, 0, days);
  const TraceFit f = testing::fit_csv(testing::csv_log_with_kinds(ev, days), kStateNodes);
  ASSERT_EQ(f.kinds.size(), 2u);
  EXPECT_TRUE(f.pooled.regime_repairs_chosen)
      << "regime " << f.pooled.regime.kernels.delta_aic << ", with repairs "
      << f.pooled.regime_repairs.kernels.delta_aic;
  EXPECT_FALSE(f.pooled.regime_chosen);
  const std::string yaml = fitted_failures_yaml(f);
  EXPECT_NE(yaml.find("high_repair:\n"), std::string::npos) << yaml;

  auto s = testing::load_fitted_round_trip("fit_regime_repairs", yaml, kStateNodes, "low_repair");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->failures.processes.size(), 1u);
  ASSERT_TRUE(s->failures.processes[0].regime_state_repairs);
  EXPECT_EQ(s->failures.processes[0].regime_repair[1].values_s.size(),
            f.pooled.regime_repairs.state_values_s[1].size());

  const int reps = 4;
  double repair = 0, shorts = 0, busy = 0;
  for (int r = 0; r < reps; ++r) {
    const auto e = events(*s, 77, r, days);
    repair += mean_repair(e) / reps;
    shorts += short_share(e) / reps;
    busy += busy_repair_ratio(e, days) / reps;
  }
  EXPECT_NEAR(repair / mean_repair(ev), 1.0, 0.15);
  EXPECT_NEAR(shorts, short_share(ev), 0.05);
  const double log_busy = busy_repair_ratio(ev, days);
  EXPECT_GT(log_busy, 1.5);
  EXPECT_NEAR(busy / log_busy, 1.0, 0.25);

  Spec same = g;
  same.high = same.low;  // one repair law in both states
  const auto plain = events(state_scenario(rate, 0.2, 0.1, same, 2), 9, 0, days);
  const TraceFit fp = testing::fit_csv(testing::csv_log_with_kinds(plain, days), kStateNodes);
  EXPECT_FALSE(fp.pooled.regime_repairs_chosen)
      << "regime " << fp.pooled.regime.kernels.delta_aic << ", with repairs "
      << fp.pooled.regime_repairs.kernels.delta_aic;
}

// Above FitOptions::max_regime_faults pooled faults the regime fits are not run (their cost
// grows with the faults): the fit keeps the Hawkes processes without regimes and says why, in
// the model's comments.
TEST(RegimeRepairs, RegimesAreNotFittedAboveTheBoundAndTheFitSaysSo) {
  const double days = 730, rate = 2e-4 / 3600.0;
  const auto ev = events(state_scenario(rate, 0.2, 0.1, Spec{}, 2), 9, 0, days);
  const std::string csv = testing::csv_log_with_kinds(ev, days);
  const TraceFit f = testing::fit_csv(csv, kStateNodes, 0, /*max_regime_faults=*/100);
  ASSERT_GT(f.pooled.events, 100);
  EXPECT_NE(f.pooled.regime_skipped.find("regimes not fitted"), std::string::npos);
  EXPECT_FALSE(f.pooled.regime.converged);
  EXPECT_FALSE(f.pooled.regime_repairs.converged);
  EXPECT_FALSE(f.pooled.regime_chosen);
  EXPECT_FALSE(f.pooled.regime_repairs_chosen);
  EXPECT_NE(fitted_failures_yaml(f).find(f.pooled.regime_skipped), std::string::npos);
  const TraceFit all = testing::fit_csv(csv, kStateNodes, 0);
  EXPECT_TRUE(all.pooled.regime_skipped.empty());
  EXPECT_TRUE(all.pooled.regime.converged);
}

}  // namespace
}  // namespace ntpsim::sim
