// Helpers shared by the trace fit's translation units (fit.cpp, fit_regime.cpp): the 95% normal
// quantile, the normal survival function on the log scale (Boost.Math), and Newton's method with
// central-difference derivatives (Eigen). Internal to sim/failures.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "sim/failures/fit.h"

namespace ntpsim::sim::fit_internal {

// The two-sided 95% normal quantile.
inline const double kZ95 =
    boost::math::quantile(boost::math::normal_distribution<double>(0.0, 1.0), 0.975);
constexpr double kInf = std::numeric_limits<double>::infinity();

// log of the standard normal survival function, finite for every finite z. A non-finite z (a
// zero-length interval, or a step of the optimiser into overflow) gives its limit, and NaN stays
// NaN so the optimiser rejects the step: Boost.Math throws on a non-finite variate.
inline double log_normal_sf(double z) {
  if (std::isnan(z)) return z;
  if (std::isinf(z)) return z > 0 ? -std::numeric_limits<double>::infinity() : 0.0;
  static const boost::math::normal_distribution<double> kStd(0.0, 1.0);
  const double q = boost::math::cdf(boost::math::complement(kStd, z));
  return q > 0.0 ? std::log(q) : -0.5 * z * z - std::log(z * std::sqrt(2.0 * M_PI));
}

constexpr double kMaxBranching = 0.99;  // the scenario's limit

inline double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

template <int N>
using Vec = Eigen::Matrix<double, N, 1>;
template <int N>
using Mat = Eigen::Matrix<double, N, N>;

// Central-difference gradient and Hessian of f at th. With `threads` > 1 the rows (row i: g[i]
// and h(i, 0..i)) are shared among workers, largest first, each worker with its own copy of f
// (an f may keep a cache, so it is called from one thread only); every entry is the same
// arithmetic on the same evaluations as with one thread, so g and h are identical for any count.
template <int N, typename F>
void derivatives(const F& f, const Vec<N>& th, Vec<N>& g, Mat<N>& h, int threads = 1) {
  constexpr double e = 1e-4;
  const double f0 = f(th);
  auto row = [&](const F& fw, int i) {
    const Vec<N> ui = Vec<N>::Unit(i) * e;
    const double fp = fw(th + ui), fm = fw(th - ui);
    g[i] = (fp - fm) / (2 * e);
    h(i, i) = (fp - 2 * f0 + fm) / (e * e);
    for (int j = 0; j < i; ++j) {
      const Vec<N> uj = Vec<N>::Unit(j) * e;
      h(i, j) = h(j, i) = (fw(th + ui + uj) - fw(th + ui - uj) - fw(th - ui + uj) +
                           fw(th - ui - uj)) /
                          (4 * e * e);
    }
  };
  const int workers = std::clamp(threads, 1, N);
  if (workers == 1) {
    for (int i = 0; i < N; ++i) row(f, i);
    return;
  }
  std::atomic<int> next{0};  // rows taken, counted from the last (the longest) down
  auto work = [&](const F& fw) {
    for (int k = next++; k < N; k = next++) row(fw, N - 1 - k);
  };
  const std::vector<F> copies(static_cast<size_t>(workers - 1), f);  // before f runs again
  std::vector<std::thread> pool;
  for (const F& c : copies) pool.emplace_back([&work, &c] { work(c); });
  work(f);
  for (std::thread& t : pool) t.join();
}

// Maximises f from th (updated, with its value ll) by Newton's method with a line search, for a
// likelihood of `d` events (the gradient tolerance scales with sqrt(d)), the derivatives on
// `threads` threads (the same steps for any count). Returns whether it reached a stationary
// point.
template <int N, typename F>
bool newton_maximise(const F& f, Vec<N>& th, double& ll, double d, int threads = 1) {
  Vec<N> g;
  Mat<N> h;
  bool converged = false;
  double ll_before = ll;  // ten iterations ago
  for (int iter = 0; iter < 300; ++iter) {
    derivatives<N>(f, th, g, h, threads);
    // Stationary: a small gradient, or (on a flat ridge, e.g. branching -> 0 where the delay is
    // unidentified) no gain in the likelihood over ten iterations.
    if (g.norm() < 1e-4 * std::sqrt(d) || (iter % 10 == 9 && ll - ll_before < 1e-8)) {
      converged = true;
      break;
    }
    if (iter % 10 == 9) ll_before = ll;
    // Newton's step where the likelihood is concave; elsewhere the information is shifted to
    // positive definite (Levenberg-Marquardt), which bends the step towards the gradient.
    const Eigen::SelfAdjointEigenSolver<Mat<N>> eig(-h);
    const double lowest = eig.eigenvalues().minCoeff(), highest = eig.eigenvalues().maxCoeff();
    const double shift =
        lowest > 1e-9 * std::max(1.0, highest) ? 0.0 : -lowest + 1e-3 * std::max(1.0, highest);
    const Vec<N> step = (-h + shift * Mat<N>::Identity()).ldlt().solve(g);
    bool improved = false;
    double scale = 1.0;
    for (int half = 0; half < 40; ++half, scale *= 0.5) {
      const Vec<N> next = th + scale * step;
      const double l = f(next);
      if (l > ll) {
        improved = true;
        th = next;
        ll = l;
        break;
      }
    }
    if (!improved) {  // no ascent direction left: a maximum to the difference step's precision
      converged = g.norm() < 1e-2 * std::sqrt(d);
      break;
    }
  }
  return converged;
}

// A two-lognormal repair law in working form (RepairMixture's parameters): the short part's
// chance p, each part's ln median (m1 <= m2) and log-sd.
struct Mixture {
  double p = 0.5, m1 = 0.0, s1 = 1.0, m2 = 0.0, s2 = 1.0;
};
constexpr double kMinMixtureSigma = 0.05;  // RepairMixture's floor on the sigmas

inline double log_sum_exp2(double x, double y) {
  const double m = std::max(x, y);
  return m == -kInf ? -kInf : m + std::log(std::exp(x - m) + std::exp(y - m));
}

// Repairs logged as shorter than this count as "under a minute" (left-censored): logs record
// times to seconds or coarser (the InfiniteHBD log to 8.64 s, with repairs of length 0), and a
// law fitted to the rounded values would spend a part on the rounding.
constexpr double kShortestRepairS = 60.0;

// The log density of a repair under the mixture (a censored one: the log survival; one under
// kShortestRepairS: the log of the law's chance below it).
inline double log_mixture(const Mixture& x, double t_s, bool failed) {
  if (failed && t_s < kShortestRepairS) {
    const double lt = std::log(kShortestRepairS);
    return log_sum_exp2(std::log(x.p) + log_normal_sf((x.m1 - lt) / x.s1),
                        std::log1p(-x.p) + log_normal_sf((x.m2 - lt) / x.s2));
  }
  const double lt = std::log(t_s);
  const double z1 = (lt - x.m1) / x.s1, z2 = (lt - x.m2) / x.s2;
  double l1 = 0.0, l2 = 0.0;
  if (failed) {
    constexpr double kHalfLog2Pi = 0.91893853320467274178;
    l1 = -0.5 * z1 * z1 - std::log(x.s1) - kHalfLog2Pi - lt;
    l2 = -0.5 * z2 * z2 - std::log(x.s2) - kHalfLog2Pi - lt;
  } else {
    l1 = log_normal_sf(z1);
    l2 = log_normal_sf(z2);
  }
  return log_sum_exp2(std::log(x.p) + l1, std::log1p(-x.p) + l2);
}

// The mixture from 5 unconstrained coordinates at th[o..o+4] (logit p, m1, ln(s1 - floor),
// ln(m2 - m1), ln(s2 - floor)), and back.
template <typename V>
Mixture mixture_at(const V& th, int o) {
  Mixture x;
  x.p = sigmoid(th[o]);
  x.m1 = th[o + 1];
  x.s1 = kMinMixtureSigma + std::exp(th[o + 2]);
  x.m2 = x.m1 + std::exp(th[o + 3]);
  x.s2 = kMinMixtureSigma + std::exp(th[o + 4]);
  return x;
}
template <typename V>
void set_mixture(V& th, int o, const Mixture& x) {
  th[o] = std::log(x.p / (1.0 - x.p));
  th[o + 1] = x.m1;
  th[o + 2] = std::log(std::max(1e-6, x.s1 - kMinMixtureSigma));
  th[o + 3] = std::log(std::max(1e-6, x.m2 - x.m1));
  th[o + 4] = std::log(std::max(1e-6, x.s2 - kMinMixtureSigma));
}

// The per-state values a regime fit with repair laws per state replays: each repair (floored
// at 1 s) in the state more probable for it (posterior of the high state > 0.5), sorted; a state
// no repair is more probable in replays the one most probable in it. Repairs with skip[i] set
// (a non-empty `skip`) are left out.
void state_values(const std::vector<Interval>& repairs, const std::vector<double>& posterior,
                  const std::vector<char>& skip, std::vector<double> (&out)[2]);

// How closely a log's repair ends can be told apart: DeferredRepairFit::kResolutionS, or the
// log's time unit when coarser (the coarsest of 1 s, 1 min and 1 h that every start is a whole
// multiple of: a log that records hours cannot tell ends within an hour apart).
double end_resolution_s(std::span<const double> starts_s);

// The exact (Clopper-Pearson) 95% interval of a binomial share of `k` in `n` (0 < n, k <= n).
std::pair<double, double> clopper_pearson_95(int64_t k, int64_t n);

// Weighted EM for the mixture on ln(repair) values (censored repairs taken at their censoring
// time: a start for the exact likelihood, not an estimate), from `x` (updated). Returns the
// weighted log-likelihood of the logs.
double em_mixture(const std::vector<double>& log_t, const std::vector<double>& w, Mixture& x);

}  // namespace ntpsim::sim::fit_internal
