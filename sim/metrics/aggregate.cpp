#include "sim/metrics/aggregate.h"

#include <algorithm>
#include <cmath>

#include "models/base/check.h"
#include "models/base/statistics.h"

namespace ntpsim::sim {
namespace {

// Continued fraction for the regularized incomplete beta (modified Lentz).
double beta_cf(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::abs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + aa * d;
    if (std::abs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + aa * d;
    if (std::abs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::abs(del - 1.0) < 1e-15) break;
  }
  return h;
}

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0.0;
  if (x >= 1) return 1.0;
  const double ln_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(ln_front);
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_cf(a, b, x) / a;
  return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

// CDF of Student's t at t >= 0.
double t_cdf(double t, double dof) {
  return 1.0 - 0.5 * incomplete_beta(0.5 * dof, 0.5, dof / (dof + t * t));
}

}  // namespace

double student_t_quantile(double p, double dof) {
  NTPSIM_CHECK(p > 0 && p < 1 && dof > 0);
  if (p < 0.5) return -student_t_quantile(1.0 - p, dof);
  double lo = 0.0, hi = 1.0;
  while (t_cdf(hi, dof) < p) hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * std::max(1.0, hi); ++i) {
    const double mid = 0.5 * (lo + hi);
    if (t_cdf(mid, dof) < p) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

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
