#include "sim/metrics/aggregate.h"

#include <algorithm>
#include <cmath>

#include "models/base/check.h"
#include "models/base/statistics.h"

namespace ntpsim::sim {

Stat summarize(const std::vector<double>& values) {
  std::vector<double> v;
  v.reserve(values.size());
  for (double x : values) {
    if (!std::isnan(x)) v.push_back(x);
  }
  Stat s;
  s.n = static_cast<int64_t>(v.size());
  if (v.empty()) {
    s.mean = s.sd = s.ci95_lo = s.ci95_hi = s.p5 = s.p50 = s.p95 = s.min = s.max = std::nan("");
    return s;
  }
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.sd = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0;
  const double half =
      v.size() > 1 ? student_t_quantile(0.975, static_cast<double>(v.size() - 1)) * s.sd /
                         std::sqrt(static_cast<double>(v.size()))
                   : 0.0;
  s.ci95_lo = s.mean - half;
  s.ci95_hi = s.mean + half;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.p5 = percentile_sorted(v, 0.05);
  s.p50 = percentile_sorted(v, 0.50);
  s.p95 = percentile_sorted(v, 0.95);
  return s;
}

PairedDiff paired_difference(const std::vector<double>& a, const std::vector<double>& b) {
  NTPSIM_CHECK(a.size() == b.size());
  std::vector<double> d;
  d.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isfinite(a[i]) && std::isfinite(b[i])) d.push_back(a[i] - b[i]);
  }
  const Stat s = summarize(d);
  return PairedDiff{s.mean, s.ci95_lo, s.ci95_hi, s.n};
}

}  // namespace ntpsim::sim
