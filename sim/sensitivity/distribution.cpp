// Input distributions of the sensitivity analysis: see distribution.h.
#include "sim/sensitivity/distribution.h"

#include <algorithm>
#include <boost/math/distributions/lognormal.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/triangular.hpp>
#include <cmath>

namespace ntpsim::sim {
namespace {

// Errors as values (NaN or +-inf), never exceptions: parameters come from user input, and
// invalid_reason() turns a non-finite result into a message.
using Policy = boost::math::policies::policy<
    boost::math::policies::domain_error<boost::math::policies::ignore_error>,
    boost::math::policies::overflow_error<boost::math::policies::ignore_error>,
    boost::math::policies::underflow_error<boost::math::policies::ignore_error>,
    boost::math::policies::evaluation_error<boost::math::policies::ignore_error>>;
using Normal = boost::math::normal_distribution<double, Policy>;
using Lognormal = boost::math::lognormal_distribution<double, Policy>;
using Triangular = boost::math::triangular_distribution<double, Policy>;

// Probabilities are kept off 0 and 1 so that an unbounded tail has a finite quantile.
constexpr double kTail = 1e-12;

double clamp_p(double p) {
  return std::clamp(p, kTail, 1.0 - kTail);
}

// The truncated-distribution quantile: Q(F(low) + p (F(high) - F(low))).
template <class Dist>
double truncated_quantile(const Dist& d, double low, double high, double p) {
  const double f_lo = low > boost::math::range(d).first ? boost::math::cdf(d, low) : 0.0;
  const double f_hi =
      std::isfinite(high) && high < boost::math::range(d).second ? boost::math::cdf(d, high) : 1.0;
  const double q = boost::math::quantile(d, clamp_p(f_lo + p * (f_hi - f_lo)));
  return std::clamp(q, low, high);
}

template <class Dist>
double truncated_cdf(const Dist& d, double low, double high, double x) {
  if (x <= low) return 0.0;
  if (x >= high) return 1.0;
  const double f_lo = low > boost::math::range(d).first ? boost::math::cdf(d, low) : 0.0;
  const double f_hi =
      std::isfinite(high) && high < boost::math::range(d).second ? boost::math::cdf(d, high) : 1.0;
  return (boost::math::cdf(d, x) - f_lo) / (f_hi - f_lo);
}

}  // namespace

const char* distribution_name(DistributionKind kind) {
  switch (kind) {
    case DistributionKind::kUniform:
      return "uniform";
    case DistributionKind::kTriangular:
      return "triangular";
    case DistributionKind::kNormal:
      return "normal";
    case DistributionKind::kLognormal:
      return "lognormal";
  }
  return "uniform";
}

bool oat_uses_ends(const InputDistribution& d) {
  return d.kind == DistributionKind::kUniform;
}

std::string InputDistribution::invalid_reason() const {
  const bool finite = std::isfinite(p0) && std::isfinite(p1) && std::isfinite(p2);
  if (!finite) return "parameters must be finite";
  switch (kind) {
    case DistributionKind::kUniform:
      if (!(p0 < p1)) return "low must be below high";
      break;
    case DistributionKind::kTriangular:
      if (!(p0 < p2)) return "low must be below high";
      if (!(p0 <= p1 && p1 <= p2)) return "the mode must lie in [low, high]";
      break;
    case DistributionKind::kNormal:
    case DistributionKind::kLognormal:
      if (kind == DistributionKind::kNormal && !(p1 > 0)) return "sd must be > 0";
      if (kind == DistributionKind::kLognormal && !(p0 > 0)) return "median must be > 0";
      if (kind == DistributionKind::kLognormal && !(p1 > 0)) return "sigma must be > 0";
      if (kind == DistributionKind::kLognormal && p1 > 10) return "sigma must be <= 10";
      if (!(low >= 0) || std::isnan(high)) return "low must be >= 0";
      if (!(low < high)) return "low must be below high";
      break;
  }
  // Every value a sample can take must be finite, and a truncation must keep some probability
  // mass (else every sample is one value).
  const double q0 = quantile(0.0), q1 = quantile(1.0);
  if (!std::isfinite(q0) || !std::isfinite(q1)) return "its values must be finite";
  if (!(q1 > q0))
    return "its samples do not vary (sd or sigma too small, or [low, high] holds none of its "
           "probability)";
  return "";
}

double InputDistribution::quantile(double p) const {
  p = std::clamp(p, 0.0, 1.0);
  switch (kind) {
    case DistributionKind::kUniform:
      return p0 + p * (p1 - p0);
    case DistributionKind::kTriangular:
      return boost::math::quantile(Triangular(p0, p1, p2), p);
    case DistributionKind::kNormal:
      return truncated_quantile(Normal(p0, p1), low, high, p);
    case DistributionKind::kLognormal:
      return truncated_quantile(Lognormal(std::log(p0), p1), low, high, p);
  }
  return p0;
}

double InputDistribution::cdf(double x) const {
  switch (kind) {
    case DistributionKind::kUniform:
      return std::clamp((x - p0) / (p1 - p0), 0.0, 1.0);
    case DistributionKind::kTriangular:
      if (x <= p0) return 0.0;
      if (x >= p2) return 1.0;
      return boost::math::cdf(Triangular(p0, p1, p2), x);
    case DistributionKind::kNormal:
      return truncated_cdf(Normal(p0, p1), low, high, x);
    case DistributionKind::kLognormal:
      return truncated_cdf(Lognormal(std::log(p0), p1), low, high, x);
  }
  return 0.0;
}

}  // namespace ntpsim::sim
