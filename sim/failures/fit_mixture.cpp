// fit_repair_mixture: one two-lognormal repair law for every repair (fit.h), and the weighted EM
// that starts it and the per-state laws of fit_hawkes_regime_repairs (fit_internal.h).
#include <Eigen/Dense>
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <numeric>

#include "sim/failures/fit.h"
#include "sim/failures/fit_internal.h"

namespace ntpsim::sim {
namespace fit_internal {

double em_mixture(const std::vector<double>& log_t, const std::vector<double>& w, Mixture& x) {
  const boost::math::normal_distribution<double> kStd(0.0, 1.0);
  double ll = -kInf;
  std::vector<double> r(log_t.size());
  for (int iter = 0; iter < 500; ++iter) {
    // E step: each value's chance of the short part.
    double l = 0.0;
    for (size_t i = 0; i < log_t.size(); ++i) {
      const double a =
          std::log(x.p) + std::log(boost::math::pdf(kStd, (log_t[i] - x.m1) / x.s1) / x.s1);
      const double b =
          std::log1p(-x.p) + std::log(boost::math::pdf(kStd, (log_t[i] - x.m2) / x.s2) / x.s2);
      const double tot = log_sum_exp2(a, b);
      r[i] = std::exp(a - tot);
      l += w[i] * tot;
    }
    // M step: weighted shares, means and sds of the logs per part.
    double w1 = 0, w2 = 0, s1 = 0, s2 = 0;
    for (size_t i = 0; i < log_t.size(); ++i) {
      w1 += w[i] * r[i];
      w2 += w[i] * (1 - r[i]);
      s1 += w[i] * r[i] * log_t[i];
      s2 += w[i] * (1 - r[i]) * log_t[i];
    }
    if (!(w1 > 1e-9 && w2 > 1e-9)) break;  // a part has emptied: keep the last mixture
    const double m1 = s1 / w1, m2 = s2 / w2;
    double v1 = 0, v2 = 0;
    for (size_t i = 0; i < log_t.size(); ++i) {
      v1 += w[i] * r[i] * (log_t[i] - m1) * (log_t[i] - m1);
      v2 += w[i] * (1 - r[i]) * (log_t[i] - m2) * (log_t[i] - m2);
    }
    x.p = std::clamp(w1 / (w1 + w2), 1e-6, 1 - 1e-6);
    x.m1 = m1;
    x.m2 = m2;
    x.s1 = std::max(kMinMixtureSigma * 1.01, std::sqrt(v1 / w1));
    x.s2 = std::max(kMinMixtureSigma * 1.01, std::sqrt(v2 / w2));
    if (x.m2 < x.m1) {  // the short part is the one of the lower median
      std::swap(x.m1, x.m2);
      std::swap(x.s1, x.s2);
      x.p = 1.0 - x.p;
    }
    x.m2 = std::max(x.m2, x.m1 + 1e-6);
    if (std::fabs(l - ll) < 1e-9 * std::max(1.0, std::fabs(l))) {
      ll = l;
      break;
    }
    ll = l;
  }
  return ll;
}

}  // namespace fit_internal

using namespace fit_internal;  // NOLINT(google-build-using-namespace): the shared helpers

RepairMixture fit_repair_mixture(const std::vector<Interval>& repairs) {
  RepairMixture out;
  if (repairs.size() < 10) return out;
  std::vector<double> logs;
  // Repairs under a minute (left-censored in the likelihood) start at half a minute.
  for (const Interval& r : repairs) {
    logs.push_back(std::log(std::max(r.t_s, kShortestRepairS / 2)));
  }
  const std::vector<double> ones(logs.size(), 1.0);
  std::vector<double> sorted = logs;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.back() - sorted.front() < 1e-6) return out;  // (nearly) one length
  // Starts: the logs split at their 20%, 50% and 80% quantiles, each part its mean and sd.
  Mixture best;
  double best_ll = -kInf;
  for (const double q : {0.2, 0.5, 0.8}) {
    const auto cut = std::max<size_t>(
        1,
        std::min(sorted.size() - 1, static_cast<size_t>(q * static_cast<double>(sorted.size()))));
    auto moments = [&](size_t a, size_t b, double& m, double& s) {
      m = std::accumulate(sorted.begin() + static_cast<std::ptrdiff_t>(a),
                          sorted.begin() + static_cast<std::ptrdiff_t>(b), 0.0) /
          static_cast<double>(b - a);
      double v = 0;
      for (size_t i = a; i < b; ++i) v += (sorted[i] - m) * (sorted[i] - m);
      s = std::max(0.5, std::sqrt(v / static_cast<double>(b - a)));
    };
    Mixture x;
    x.p = static_cast<double>(cut) / static_cast<double>(sorted.size());
    moments(0, cut, x.m1, x.s1);
    moments(cut, sorted.size(), x.m2, x.s2);
    x.m2 = std::max(x.m2, x.m1 + 1e-3);
    const double l = em_mixture(logs, ones, x);
    if (l > best_ll) {
      best_ll = l;
      best = x;
    }
  }
  // The exact (censored) likelihood from the best start.
  auto f = [&](const Vec<5>& th) {
    const Mixture x = mixture_at(th, 0);
    double ll = 0.0;
    for (const Interval& r : repairs) ll += log_mixture(x, r.t_s, r.failed);
    return std::isfinite(ll) ? ll : -kInf;
  };
  Vec<5> th;
  set_mixture(th, 0, best);
  double ll = f(th);
  if (!std::isfinite(ll)) return out;
  out.converged = newton_maximise<5>(f, th, ll, static_cast<double>(repairs.size()));
  const Mixture x = mixture_at(th, 0);
  out.log_likelihood = ll;
  out.short_share = x.p;
  out.short_median_s = std::exp(x.m1);
  out.short_sigma = x.s1;
  out.long_median_s = std::exp(x.m2);
  out.long_sigma = x.s2;
  out.mean_s =
      x.p * std::exp(x.m1 + 0.5 * x.s1 * x.s1) + (1 - x.p) * std::exp(x.m2 + 0.5 * x.s2 * x.s2);
  if (!std::isfinite(out.mean_s)) out.converged = false;
  return out;
}

}  // namespace ntpsim::sim
