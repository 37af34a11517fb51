// Renewal pieces: the inverse normal CDF, cumulative hazards and their inverses, and the lazily
// generated first failures (order statistics) against the lifetime law's quantiles.
#include "sim/failures/renewal.h"
#include "models/base/statistics.h"

#include <gtest/gtest.h>

#include <cmath>

#include "failure_test_util.h"

namespace ntpsim::sim {
namespace {

TEST(RenewalTest, InverseNormalCdfInvertsErfc) {
  for (const double p : {1e-300, 1e-20, 1e-8, 0.001, 0.02, 0.02425, 0.1, 0.3, 0.5, 0.7, 0.9, 0.97575, 0.999, 1 - 1e-12}) {
    const double z = inverse_normal_cdf(p);
    const double back = 0.5 * std::erfc(-z / std::sqrt(2.0));
    EXPECT_NEAR(back / p, 1.0, 1e-12) << p;
  }
  EXPECT_DOUBLE_EQ(inverse_normal_cdf(0.5), 0.0);
  EXPECT_NEAR(inverse_normal_cdf(0.975), 1.959963984540054, 1e-14);
  EXPECT_EQ(inverse_normal_cdf(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(inverse_normal_cdf(1.0), std::numeric_limits<double>::infinity());
}

TEST(RenewalTest, CumulativeHazardRoundTrips) {
  for (const LifetimeLaw& law : {LifetimeLaw::weibull_with_mean(1e5, 0.7), LifetimeLaw::weibull_with_mean(1e5, 3.0),
                                 LifetimeLaw::lognormal_with_mean(1e5, 0.5), LifetimeLaw::lognormal_with_mean(1e5, 2.0)}) {
    double previous = 0.0;
    for (const double t : {1.0, 100.0, 1e4, 1e5, 3e5, 1e6, 1e7}) {
      const double h = law.cumulative_hazard(t);
      EXPECT_GE(h, previous);
      previous = h;
      if (h > 0 && std::isfinite(h)) {
        EXPECT_NEAR(law.inverse_cumulative_hazard(h) / t, 1.0, 1e-9) << t;
      }
    }
    EXPECT_EQ(law.cumulative_hazard(0.0), 0.0);
    EXPECT_EQ(law.inverse_cumulative_hazard(0.0), 0.0);
  }
  // Weibull: H(t) = (t / scale)^k exactly.
  const LifetimeLaw w = LifetimeLaw::weibull_with_mean(1e5, 2.0);
  EXPECT_NEAR(w.cumulative_hazard(w.param), 1.0, 1e-15);
}

// First failure times of 20000 new units match the law's 10%, 50% and 90% quantiles.
void check_first_failures(const std::string& dist, double shape) {
  const double mean = 1e5;
  Scenario s = testing::scenario_with(200, 100, 0);
  s.failures.processes = {testing::process(Component::kGpu, 1.0 / mean, dist, shape)};
  auto t = Topology::build(s.cluster);
  ASSERT_TRUE(t.ok());
  const LifetimeLaw law = dist == "weibull" ? LifetimeLaw::weibull_with_mean(mean, shape)
                                            : LifetimeLaw::lognormal_with_mean(mean, shape);
  const double q90 = law.inverse_cumulative_hazard(-std::log(0.1));
  const auto events = testing::collect(s, *t, 17, 0, q90 * 1.001);
  std::vector<double> first(20000, -1.0);
  for (const FailureEvent& e : events) {
    double& f = first[static_cast<size_t>(e.unit)];
    if (f < 0) f = e.time.seconds();
  }
  for (const double q : {0.1, 0.5, 0.9}) {
    const double tq = law.inverse_cumulative_hazard(-std::log1p(-q));
    double below = 0;
    for (const double f : first) below += (f >= 0 && f < tq) ? 1 : 0;
    testing::expect_within_5_sigma(below / 20000, q, std::sqrt(q * (1 - q) / 20000), (dist + " quantile").c_str());
  }
}

TEST(RenewalTest, FirstFailuresFollowTheWeibullLaw) { check_first_failures("weibull", 0.7); }
TEST(RenewalTest, FirstFailuresFollowTheLognormalLaw) { check_first_failures("lognormal", 1.5); }

// Lemons in a renewal process: their first failures come 10x as fast (Weibull: time scales).
TEST(RenewalTest, RenewalLemonsFailSooner) {
  Scenario s = testing::scenario_with(100, 100, 0);
  FailureProcess p = testing::process(Component::kGpu, 1e-5, "weibull", 1.5);
  p.lemon_fraction = 0.2;
  p.lemon_multiplier = 10;
  s.failures.processes = {p};
  auto t = Topology::build(s.cluster);
  ASSERT_TRUE(t.ok());
  // Until the lemons' mean lifetime (1e4 s): F_lemon = 1 - exp(-Γ(5/3)^1.5) = 0.5 per lemon;
  // normal units: 1 - exp(-(Γ(5/3)/10)^1.5) = 0.0266.
  const auto events = testing::collect(s, *t, 3, 0, 1e4);
  const double g = std::pow(std::tgamma(1 + 1 / 1.5), 1.5);
  const double expected = 2000 * (1 - std::exp(-g)) + 8000 * (1 - std::exp(-g / std::pow(10, 1.5)));
  // Each unit fails at most a few times by then; count first failures only.
  std::vector<bool> seen(10000, false);
  double firsts = 0;
  for (const FailureEvent& e : events) {
    if (!seen[static_cast<size_t>(e.unit)]) firsts += 1;
    seen[static_cast<size_t>(e.unit)] = true;
  }
  testing::expect_within_5_sigma(firsts, expected, std::sqrt(expected), "first failures with lemons");
}

}  // namespace
}  // namespace ntpsim::sim
