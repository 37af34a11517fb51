// The distribution of one uncertain input of the sensitivity analysis (sensitivity.h), sampled by
// inverse CDF: a design point u in [0, 1) maps to the quantile x = Q(u), so a Latin hypercube in
// u is a Latin hypercube in the input's own distribution.
//
// Kinds and parameters (SI values):
//   uniform     [a, b]              a < b; a `[low, high]` range is this
//   triangular  [low, mode, high]   low <= mode <= high, low < high
//   normal      mean, sd            sd > 0; truncated to [low, high]
//   lognormal   median, sigma       median > 0, sigma > 0 (of ln x); truncated to [low, high]
// Truncation: `low` defaults to 0 for normal (scenario quantities are non-negative) and to 0 for
// lognormal (its support); `high` defaults to +inf. The truncated distribution is sampled as
// Q(F(low) + u (F(high) - F(low))), which keeps every sample inside [low, high].
// The quantiles come from Boost.Math; a probability is clamped to [1e-12, 1 - 1e-12] so that an
// unbounded tail gives a finite value.
// Thread safety: values; all functions are pure.
#pragma once

#include <limits>
#include <string>

namespace ntpsim::sim {

enum class DistributionKind { kUniform, kTriangular, kNormal, kLognormal };

struct InputDistribution {
  DistributionKind kind = DistributionKind::kUniform;
  // uniform: [p0, p1]; triangular: [p0, p1 (mode), p2]; normal: mean p0, sd p1;
  // lognormal: median p0, sigma p1 (of ln x).
  double p0 = 0, p1 = 0, p2 = 0;
  // Truncation of normal and lognormal (ignored by the bounded kinds).
  double low = 0, high = std::numeric_limits<double>::infinity();
  // True when written as a plain range [low, high] (reported as a range, not `uniform`).
  bool range = false;

  // The value at probability p of the (truncated) distribution. REQUIRES: valid().
  double quantile(double p) const;
  // P(X <= x) of the (truncated) distribution, in [0, 1].
  double cdf(double x) const;
  // The smallest and largest value a sample can take (the truncation or support bounds; an
  // unbounded tail gives the quantile at 1e-12 or 1 - 1e-12).
  double support_low() const { return quantile(0.0); }
  double support_high() const { return quantile(1.0); }
  // Empty when the parameters are usable, else what is wrong with them ("sd must be > 0").
  std::string invalid_reason() const;
};

// "uniform", "triangular", "normal", "lognormal".
const char* distribution_name(DistributionKind kind);

// The one-at-a-time bounds of an input: a range's or uniform's ends, otherwise the 5% and 95%
// quantiles (kOatLowQuantile, kOatHighQuantile).
inline constexpr double kOatLowQuantile = 0.05;
inline constexpr double kOatHighQuantile = 0.95;
bool oat_uses_ends(const InputDistribution& d);

}  // namespace ntpsim::sim
