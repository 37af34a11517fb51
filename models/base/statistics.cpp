#include "models/base/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/erf.hpp>

#include "models/base/check.h"

namespace ntpsim {

double percentile_sorted(const std::vector<double>& sorted, double q) {
  NTPSIM_CHECK(!sorted.empty());
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double nearest_rank_quantile(std::vector<double> values, double q) {
  NTPSIM_CHECK(!values.empty());
  std::sort(values.begin(), values.end());
  const auto n = static_cast<double>(values.size());
  const auto k = static_cast<size_t>(std::clamp(std::ceil(q * n) - 1, 0.0, n - 1));
  return values[k];
}

double student_t_quantile(double p, double dof) {
  NTPSIM_CHECK(p > 0 && p < 1 && dof > 0);
  return boost::math::quantile(boost::math::students_t_distribution<double>(dof), p);
}

double inverse_normal_cdf(double p) {
  if (!(p > 0.0)) return -std::numeric_limits<double>::infinity();
  if (!(p < 1.0)) return std::numeric_limits<double>::infinity();
  // Φ(z) = erfc(-z / √2) / 2, so Φ^-1(p) = -√2 erfc^-1(2p), accurate in both tails.
  return -std::sqrt(2.0) * boost::math::erfc_inv(2.0 * p);
}

}  // namespace ntpsim
