// fit_shared_repairs: faults of one incident that share a repair (fit.h, SharedRepairFit).
#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <span>
#include <tuple>
#include <vector>

#include "sim/failures/fit.h"
#include "sim/failures/fit_internal.h"

namespace ntpsim::sim {

SharedRepairFit fit_shared_repairs(const std::vector<double>& starts_s,
                                   const std::vector<Interval>& repairs, double window_s) {
  SharedRepairFit out;
  const size_t n = std::min(starts_s.size(), repairs.size());
  out.window_s = window_s;
  out.resolution_s = fit_internal::end_resolution_s(std::span<const double>(starts_s.data(), n));
  out.is_shared.assign(n, 0);
  const double r = out.resolution_s;
  // The closed repairs' lengths, for the chance that an independent repair ends near an instant.
  std::vector<double> lengths;
  for (size_t i = 0; i < n; ++i) {
    if (repairs[i].failed) lengths.push_back(repairs[i].t_s);
  }
  std::sort(lengths.begin(), lengths.end());
  auto share_within = [&](double lo, double hi) {
    const auto a = std::lower_bound(lengths.begin(), lengths.end(), lo);
    const auto b = std::upper_bound(lengths.begin(), lengths.end(), hi);
    return static_cast<double>(b - a) / static_cast<double>(lengths.size());
  };
  double down = 0.0, shared_down = 0.0;
  for (size_t i = 0; i < n; ++i) {
    down += repairs[i].t_s;
    if (i == 0) continue;
    const Interval& a = repairs[i - 1];
    const Interval& b = repairs[i];
    const double previous_end = starts_s[i - 1] + a.t_s;
    const double to_end = previous_end - starts_s[i];
    if (!a.failed || !b.failed || starts_s[i] - starts_s[i - 1] > window_s || to_end <= 0.0) {
      continue;
    }
    ++out.candidates;
    out.expected += share_within(to_end - r, to_end + r);
    if (std::fabs(starts_s[i] + b.t_s - previous_end) <= r) {
      ++out.shared;
      out.is_shared[i] = 1;
      shared_down += b.t_s;
    }
  }
  out.down_share = down > 0.0 ? shared_down / down : 0.0;
  if (out.candidates > 0) {
    out.probability = static_cast<double>(out.shared) / static_cast<double>(out.candidates);
    std::tie(out.probability_lo, out.probability_hi) =
        fit_internal::clopper_pearson_95(out.shared, out.candidates);
  }
  // P(X >= shared) for X Poisson of mean `expected`: the regularised lower incomplete gamma.
  if (out.shared > 0) {
    out.p_value = out.expected > 0.0
                      ? boost::math::gamma_p(static_cast<double>(out.shared), out.expected)
                      : 0.0;
  }
  out.supported = out.shared >= SharedRepairFit::kMinShared && out.p_value < 0.01;
  if (!out.supported) std::fill(out.is_shared.begin(), out.is_shared.end(), 0);
  return out;
}

}  // namespace ntpsim::sim
