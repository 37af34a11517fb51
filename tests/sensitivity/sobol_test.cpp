// The Sobol' estimators and the Latin-hypercube design of the sensitivity analysis
// (sim/sensitivity/sobol.h, distribution.h) on cases known in closed form: the Ishigami function
// (Ishigami and Homma 1990; indices in Saltelli et al. 2008, "Global Sensitivity Analysis: The
// Primer", section 4.8), whose third input has no first-order effect but a total effect through
// its interaction with the first, and the quantiles of uniform, triangular, normal and lognormal
// distributions.
#include "sim/sensitivity/sobol.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "models/base/random.h"
#include "models/base/statistics.h"
#include "sim/sensitivity/distribution.h"

namespace ntpsim::sim {
namespace {

constexpr double kPi = std::numbers::pi;

InputDistribution uniform(double a, double b) {
  InputDistribution d;
  d.p0 = a;
  d.p1 = b;
  return d;
}

// f = sin x1 + a sin^2 x2 + b x3^4 sin x1 on [-pi, pi]^3 (a = 7, b = 0.1); x4 is not used.
double ishigami(const std::vector<double>& x) {
  return std::sin(x[0]) + 7 * std::sin(x[1]) * std::sin(x[1]) +
         0.1 * std::pow(x[2], 4) * std::sin(x[0]);
}

TEST(Sobol, IshigamiIndicesMatchTheClosedForm) {
  const double a = 7, b = 0.1;
  const double pi4 = std::pow(kPi, 4), pi8 = std::pow(kPi, 8);
  const double v1 = b * pi4 / 5 + b * b * pi8 / 50 + 0.5;
  const double v2 = a * a / 8;
  const double v13 = 8 * b * b * pi8 / 225;
  const double v = v1 + v2 + v13;
  const double s_true[4] = {v1 / v, v2 / v, 0, 0};
  const double st_true[4] = {(v1 + v13) / v, v2 / v, v13 / v, 0};

  const int n = 8192, k = 4;
  const std::vector<InputDistribution> dists(k, uniform(-kPi, kPi));
  const auto a_rows = to_quantiles(latin_hypercube_u(Stream(11, 0, "a"), k, n), dists);
  const auto b_rows = to_quantiles(latin_hypercube_u(Stream(11, 0, "b"), k, n), dists);
  std::vector<double> fa, fb;
  std::vector<std::vector<double>> fab(k);
  for (int i = 0; i < n; ++i) {
    fa.push_back(ishigami(a_rows[static_cast<size_t>(i)]));
    fb.push_back(ishigami(b_rows[static_cast<size_t>(i)]));
    for (int j = 0; j < k; ++j) {
      auto x = a_rows[static_cast<size_t>(i)];
      x[static_cast<size_t>(j)] = b_rows[static_cast<size_t>(i)][static_cast<size_t>(j)];
      fab[static_cast<size_t>(j)].push_back(ishigami(x));
    }
  }
  const SobolResult r = sobol_indices(fa, fb, fab, Stream(11, 0, "bootstrap"));
  EXPECT_NEAR(r.variance, v, 0.05 * v);
  ASSERT_EQ(r.index.size(), 4u);
  for (int j = 0; j < 3; ++j) {
    const SobolIndex& e = r.index[static_cast<size_t>(j)];
    // Within 4 bootstrap standard errors of the truth, and each error below 0.03 at n = 8192.
    EXPECT_NEAR(e.first_order.value, s_true[j], 4 * e.first_order.stderr_) << "S" << j + 1;
    EXPECT_NEAR(e.total.value, st_true[j], 4 * e.total.stderr_) << "ST" << j + 1;
    EXPECT_LT(e.first_order.stderr_, 0.03);
    EXPECT_LT(e.total.stderr_, 0.03);
    EXPECT_LE(e.first_order.ci95_lo, e.first_order.value);
    EXPECT_GE(e.first_order.ci95_hi, e.first_order.value);
  }
  // x3 has no effect alone but a quarter of the variance through x1: the total index shows it.
  EXPECT_GT(r.index[2].total.value, 0.2);
  EXPECT_LT(std::abs(r.index[2].first_order.value), 0.05);
  // An input f does not read: f(AB_4) = f(A) on every row, so both indices are exactly 0.
  EXPECT_EQ(r.index[3].first_order.value, 0.0);
  EXPECT_EQ(r.index[3].total.value, 0.0);
  EXPECT_EQ(r.index[3].total.stderr_, 0.0);
  // Convergence at n/4, n/2 and n rows; the last is the full estimate.
  ASSERT_EQ(r.convergence.size(), 3u);
  EXPECT_EQ(r.convergence[0].rows, n / 4);
  EXPECT_EQ(r.convergence[2].rows, n);
  EXPECT_DOUBLE_EQ(r.convergence[2].total[0], r.index[0].total.value);
  EXPECT_NEAR(r.convergence[1].total[0], st_true[0], 0.08);
}

TEST(Sobol, ConstantOutputHasUndefinedIndices) {
  const std::vector<double> f(16, 0.25);
  const SobolResult r = sobol_indices(f, f, {f, f}, Stream(1, 0, "b"));
  EXPECT_EQ(r.variance, 0.0);
  EXPECT_TRUE(std::isnan(r.index[0].first_order.value));
  EXPECT_TRUE(std::isnan(r.index[1].total.stderr_));
}

TEST(Distribution, QuantilesAndCdfMatchTheClosedForms) {
  InputDistribution logn;
  logn.kind = DistributionKind::kLognormal;
  logn.p0 = 600;  // median 10 min
  logn.p1 = 0.5;
  ASSERT_EQ(logn.invalid_reason(), "");
  EXPECT_NEAR(logn.quantile(0.5), 600, 1e-9);
  // z(0.95) = 1.6448536269514722.
  EXPECT_NEAR(logn.quantile(0.95), 600 * std::exp(0.5 * 1.6448536269514722), 1e-8);
  EXPECT_NEAR(logn.quantile(0.05), 600 * std::exp(-0.5 * 1.6448536269514722), 1e-8);
  EXPECT_NEAR(logn.cdf(logn.quantile(0.3)), 0.3, 1e-12);

  InputDistribution tri;
  tri.kind = DistributionKind::kTriangular;
  tri.p0 = 0;
  tri.p1 = 1;
  tri.p2 = 3;
  ASSERT_EQ(tri.invalid_reason(), "");
  // Below the mode (F(1) = 1/3): Q(p) = sqrt(3 p); above: 3 - sqrt(6 (1 - p)).
  EXPECT_NEAR(tri.quantile(0.2), std::sqrt(0.6), 1e-12);
  EXPECT_NEAR(tri.quantile(0.9), 3 - std::sqrt(0.6), 1e-12);
  EXPECT_EQ(tri.support_low(), 0.0);
  EXPECT_EQ(tri.support_high(), 3.0);

  // A normal of mean 1 and sd 1 truncated at its default low of 0.
  InputDistribution norm;
  norm.kind = DistributionKind::kNormal;
  norm.p0 = 1;
  norm.p1 = 1;
  ASSERT_EQ(norm.invalid_reason(), "");
  const double phi0 = 0.5 * std::erfc(1 / std::sqrt(2.0));  // Phi(-1)
  const double x = 1.7;
  const double phix = 0.5 * std::erfc(-(x - 1) / std::sqrt(2.0));
  EXPECT_NEAR(norm.cdf(x), (phix - phi0) / (1 - phi0), 1e-12);
  EXPECT_NEAR(norm.quantile(norm.cdf(x)), x, 1e-9);
  EXPECT_EQ(norm.support_low(), 0.0);
  EXPECT_TRUE(std::isfinite(norm.support_high()));

  EXPECT_TRUE(oat_uses_ends(uniform(1, 2)));
  EXPECT_FALSE(oat_uses_ends(logn));
}

TEST(Distribution, InvalidParametersAreNamed) {
  InputDistribution d;
  d.kind = DistributionKind::kTriangular;
  d.p0 = 0;
  d.p1 = 5;
  d.p2 = 3;
  EXPECT_EQ(d.invalid_reason(), "the mode must lie in [low, high]");
  d.kind = DistributionKind::kLognormal;
  d.p0 = 0;
  d.p1 = 0.5;
  EXPECT_EQ(d.invalid_reason(), "median must be > 0");
  d.kind = DistributionKind::kNormal;
  d.p0 = 1;
  d.p1 = 0;
  EXPECT_EQ(d.invalid_reason(), "sd must be > 0");
  d.p1 = 1;
  d.low = 100;  // no probability left above 100 sd
  EXPECT_NE(d.invalid_reason().find("its samples do not vary"), std::string::npos);
  EXPECT_EQ(uniform(2, 1).invalid_reason(), "low must be below high");
  // Parameters from user input: an overflowing quantile is a message, not an exception.
  EXPECT_EQ(uniform(-1e308, 1e308).invalid_reason(), "its values must be finite");
  d.kind = DistributionKind::kLognormal;
  d.p0 = 1e300;
  d.p1 = 10;
  d.low = 0;
  EXPECT_EQ(d.invalid_reason(), "its values must be finite");
}

TEST(Distribution, LatinHypercubeThroughTheQuantilePutsOneSampleInEachStratum) {
  // Each of the n equal-probability strata of each input holds exactly one sample, so the i-th
  // smallest sample lies between the quantiles at i/n and (i+1)/n.
  InputDistribution logn;
  logn.kind = DistributionKind::kLognormal;
  logn.p0 = 600;
  logn.p1 = 0.5;
  logn.high = 3600;
  const int n = 500;
  const auto x = to_quantiles(latin_hypercube_u(Stream(3, 0, "lhs"), 2, n), {logn, uniform(0, 1)});
  for (size_t j = 0; j < 2; ++j) {
    std::vector<double> col;
    for (const auto& row : x) col.push_back(row[j]);
    std::sort(col.begin(), col.end());
    const InputDistribution& d = j == 0 ? logn : uniform(0, 1);
    for (int i = 0; i < n; ++i) {
      EXPECT_GE(col[static_cast<size_t>(i)], d.quantile(static_cast<double>(i) / n) - 1e-9);
      EXPECT_LE(col[static_cast<size_t>(i)], d.quantile(static_cast<double>(i + 1) / n) + 1e-9);
    }
    if (j == 0) {
      // The sample median is the distribution's (truncation at 1 h moves it by under 1%).
      EXPECT_NEAR(percentile_sorted(col, 0.5), logn.quantile(0.5), 0.02 * 600);
      EXPECT_LE(col.back(), 3600.0);
    }
  }
}

}  // namespace
}  // namespace ntpsim::sim
