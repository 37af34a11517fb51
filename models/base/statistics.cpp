#include "models/base/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

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

}  // namespace ntpsim
