// Helpers shared by the trace fit's translation units (fit.cpp, fit_regime.cpp): the 95% normal
// quantile, the normal survival function on the log scale (Boost.Math), and Newton's method with
// central-difference derivatives (Eigen). Internal to sim/failures.
#pragma once

#include <Eigen/Dense>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>

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

// Central-difference gradient and Hessian of f at th.
template <int N, typename F>
void derivatives(const F& f, const Vec<N>& th, Vec<N>& g, Mat<N>& h) {
  constexpr double e = 1e-4;
  const double f0 = f(th);
  for (int i = 0; i < N; ++i) {
    const Vec<N> ui = Vec<N>::Unit(i) * e;
    const double fp = f(th + ui), fm = f(th - ui);
    g[i] = (fp - fm) / (2 * e);
    h(i, i) = (fp - 2 * f0 + fm) / (e * e);
    for (int j = 0; j < i; ++j) {
      const Vec<N> uj = Vec<N>::Unit(j) * e;
      h(i, j) = h(j, i) =
          (f(th + ui + uj) - f(th + ui - uj) - f(th - ui + uj) + f(th - ui - uj)) / (4 * e * e);
    }
  }
}

// Maximises f from th (updated, with its value ll) by Newton's method with a line search, for a
// likelihood of `d` events (the gradient tolerance scales with sqrt(d)). Returns whether it
// reached a stationary point.
template <int N, typename F>
bool newton_maximise(const F& f, Vec<N>& th, double& ll, double d) {
  Vec<N> g;
  Mat<N> h;
  bool converged = false;
  double ll_before = ll;  // ten iterations ago
  for (int iter = 0; iter < 300; ++iter) {
    derivatives<N>(f, th, g, h);
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

}  // namespace ntpsim::sim::fit_internal
