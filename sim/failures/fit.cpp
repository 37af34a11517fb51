// fit_trace: failure models learned from a fault log (fit.h states the statistics).
#include "sim/failures/fit.h"

#include <Eigen/Dense>
#include <fmt/format.h>
#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "models/base/random.h"
#include "models/base/time.h"
#include "sim/failures/fit_internal.h"
#include "sim/failures/trace_util.h"

namespace ntpsim::sim {
namespace {

using namespace fit_internal;  // NOLINT(google-build-using-namespace): the shared helpers

constexpr double kMinTimeS = 1.0;  // times and repairs are floored here (scenario resolution)
// The bootstrap refits every interval 99 times; beyond this many it is skipped (and said so).
constexpr double kMaxBootstrapIntervals = 200'000;

enum class Law { kExponential, kWeibull, kLognormal };

const char* law_name(Law l) {
  switch (l) {
    case Law::kExponential:
      return "exponential";
    case Law::kWeibull:
      return "weibull";
    case Law::kLognormal:
      return "lognormal";
  }
  return "?";
}

// Censored log-likelihood of a two-parameter law in its working parameters:
// weibull (log k, log scale), lognormal (mu, log sigma).
double log_likelihood(Law law, const Eigen::Vector2d& th, const std::vector<Interval>& data) {
  double ll = 0.0;
  if (law == Law::kWeibull) {
    const double k = std::exp(th[0]), log_lambda = th[1];
    for (const Interval& x : data) {
      const double lt = std::log(x.t_s) - log_lambda;
      const double z = std::exp(k * lt);
      ll += x.weight * (x.failed ? th[0] - log_lambda + (k - 1.0) * lt - z : -z);
    }
  } else {
    const double mu = th[0], sigma = std::exp(th[1]);
    for (const Interval& x : data) {
      const double lt = std::log(x.t_s);
      const double z = (lt - mu) / sigma;
      ll += x.weight *
            (x.failed ? -0.5 * z * z - th[1] - lt - 0.5 * std::log(2.0 * M_PI) : log_normal_sf(z));
    }
  }
  return std::isfinite(ll) ? ll : -kInf;
}

struct Numeric {
  Eigen::Vector2d g;
  Eigen::Matrix2d h;
};

Numeric law_derivatives(Law law, const Eigen::Vector2d& th, const std::vector<Interval>& data) {
  constexpr double e = 1e-4;
  Numeric n;
  const double f0 = log_likelihood(law, th, data);
  Eigen::Vector2d u[2] = {Eigen::Vector2d(e, 0), Eigen::Vector2d(0, e)};
  for (int i = 0; i < 2; ++i) {
    const double fp = log_likelihood(law, th + u[i], data),
                 fm = log_likelihood(law, th - u[i], data);
    n.g[i] = (fp - fm) / (2 * e);
    n.h(i, i) = (fp - 2 * f0 + fm) / (e * e);
  }
  const double fpp = log_likelihood(law, th + u[0] + u[1], data);
  const double fpm = log_likelihood(law, th + u[0] - u[1], data);
  const double fmp = log_likelihood(law, th - u[0] + u[1], data);
  const double fmm = log_likelihood(law, th - u[0] - u[1], data);
  n.h(0, 1) = n.h(1, 0) = (fpp - fpm - fmp + fmm) / (4 * e * e);
  return n;
}

// Newton's method with backtracking (gradient ascent where the Hessian is not negative definite).
LawFit maximise(Law law, Eigen::Vector2d th, const std::vector<Interval>& data) {
  LawFit out;
  out.law = law_name(law);
  out.parameters = 2;
  double ll = log_likelihood(law, th, data);
  for (int iter = 0; iter < 200 && std::isfinite(ll); ++iter) {
    const Numeric d = law_derivatives(law, th, data);
    Eigen::Vector2d step;
    const Eigen::LLT<Eigen::Matrix2d> llt(-d.h);
    if (llt.info() == Eigen::Success) {
      step = llt.solve(d.g);
    } else {
      step = d.g / std::max(1.0, d.g.norm());
    }
    double scale = 1.0;
    bool improved = false;
    for (int half = 0; half < 40; ++half, scale *= 0.5) {
      const Eigen::Vector2d next = th + scale * step;
      const double l = log_likelihood(law, next, data);
      if (l >= ll) {
        improved = l - ll > 1e-10 || (scale * step).norm() > 1e-9;
        th = next;
        ll = l;
        break;
      }
    }
    if (!improved || (scale * step).norm() < 1e-10) {
      out.converged =
          d.g.norm() < 1e-3 * std::max(1.0, std::sqrt(static_cast<double>(data.size())));
      break;
    }
  }
  out.log_likelihood = ll;
  out.aic = 2.0 * out.parameters - 2.0 * ll;
  Eigen::Matrix2d cov = Eigen::Matrix2d::Constant(kInf);
  const Numeric d = law_derivatives(law, th, data);
  const Eigen::LLT<Eigen::Matrix2d> llt(-d.h);
  if (llt.info() == Eigen::Success) cov = (-d.h).inverse();
  const double se0 = std::sqrt(std::max(0.0, cov(0, 0))), se1 = std::sqrt(std::max(0.0, cov(1, 1)));
  if (law == Law::kWeibull) {
    out.a = std::exp(th[0]);
    out.b = std::exp(th[1]);
    out.a_lo = std::exp(th[0] - kZ95 * se0);
    out.a_hi = std::exp(th[0] + kZ95 * se0);
    out.b_lo = std::exp(th[1] - kZ95 * se1);
    out.b_hi = std::exp(th[1] + kZ95 * se1);
    out.mean_s = out.b * boost::math::tgamma(1.0 + 1.0 / out.a);
  } else {
    out.a = std::exp(th[1]);
    out.b = th[0];
    out.a_lo = std::exp(th[1] - kZ95 * se1);
    out.a_hi = std::exp(th[1] + kZ95 * se1);
    out.b_lo = th[0] - kZ95 * se0;
    out.b_hi = th[0] + kZ95 * se0;
    out.mean_s = std::exp(out.b + 0.5 * out.a * out.a);
  }
  if (!std::isfinite(out.mean_s)) out.converged = false;
  return out;
}

double cdf(const LawFit& f, double t) {
  if (f.law == "exponential") return -std::expm1(-t / f.a);
  if (f.law == "weibull") return -std::expm1(-std::pow(t / f.b, f.a));
  static const boost::math::normal_distribution<double> kStd(0.0, 1.0);
  const double z = (std::log(t) - f.b) / f.a;
  if (std::isnan(z)) return z;  // Boost.Math throws on a non-finite variate
  if (std::isinf(z)) return z > 0 ? 1.0 : 0.0;
  return boost::math::cdf(kStd, z);
}

double draw(const LawFit& f, Stream& s) {
  if (f.law == "exponential") return s.exponential(f.a);
  if (f.law == "weibull") return s.weibull(f.a, f.b);
  return s.lognormal(f.b, f.a);
}

// sup_t |F_KM(t) - F(t)| over the failure times (both sides of each step).
double ks_distance(const LawFit& f, std::vector<Interval> data) {
  std::sort(data.begin(), data.end(),
            [](const Interval& x, const Interval& y) { return x.t_s < y.t_s; });
  double survival = 1.0, d = 0.0, at_risk = 0.0;
  for (const Interval& x : data) at_risk += x.weight;
  for (size_t i = 0; i < data.size();) {
    size_t j = i;
    double deaths = 0.0, leaving = 0.0;
    for (; j < data.size() && data[j].t_s == data[i].t_s; ++j) {
      deaths += data[j].failed ? data[j].weight : 0.0;
      leaving += data[j].weight;
    }
    if (deaths > 0) {
      const double before = 1.0 - survival;
      survival *= 1.0 - deaths / at_risk;
      const double model = cdf(f, data[i].t_s);
      d = std::max({d, std::fabs(before - model), std::fabs(1.0 - survival - model)});
    }
    at_risk -= leaving;
    i = j;
  }
  return d;
}

LawFit fit_law(Law law, const std::vector<Interval>& data);

// The fraction of bootstrap samples from `f` (same censoring limits) whose refitted distance is at
// least the observed one, counting the observation itself.
double bootstrap_p(const LawFit& f, Law law, const std::vector<Interval>& data, int replicates,
                   uint64_t seed, const std::string& stream) {
  if (replicates <= 0) return std::numeric_limits<double>::quiet_NaN();  // not computed
  int at_least = 0;
  std::vector<Interval> sample;
  for (int b = 0; b < replicates; ++b) {
    Stream s(seed, static_cast<uint64_t>(b), stream);
    sample.clear();
    for (const Interval& x : data) {
      // A weighted row stands for `weight` intervals, each drawn on its own.
      for (double w = 0; w < x.weight; w += 1.0) {
        Interval y;
        const double v = std::max(kMinTimeS, draw(f, s));
        y.limit_s = x.limit_s;
        y.failed = v < x.limit_s;
        y.t_s = y.failed ? v : x.limit_s;
        sample.push_back(y);
      }
    }
    const LawFit refit = fit_law(law, sample);
    if (!refit.converged || ks_distance(refit, sample) >= f.ks_distance) ++at_least;
  }
  return static_cast<double>(1 + at_least) / static_cast<double>(1 + replicates);
}

LawFit fit_law(Law law, const std::vector<Interval>& data) {
  if (law == Law::kExponential) return fit_exponential(data);
  return law == Law::kWeibull ? fit_weibull(data) : fit_lognormal(data);
}

// Fits every law, each with its KS distance and bootstrap p-value.
std::vector<LawFit> fit_all(const std::vector<Interval>& data, const FitOptions& o,
                            const std::string& stream) {
  std::vector<LawFit> out;
  for (const Law law : {Law::kExponential, Law::kWeibull, Law::kLognormal}) {
    LawFit f = fit_law(law, data);
    if (f.converged) {
      f.ks_distance = ks_distance(f, data);
      f.ks_p = bootstrap_p(f, law, data, o.bootstrap, o.seed, stream + "." + f.law);
    }
    out.push_back(f);
  }
  return out;
}

int best_aic(const std::vector<LawFit>& fits, double min_shape, double max_shape) {
  int best = -1;
  for (size_t i = 0; i < fits.size(); ++i) {
    const LawFit& f = fits[i];
    if (!f.converged) continue;
    if (f.law != "exponential" && !(f.a >= min_shape && f.a <= max_shape)) continue;
    if (best < 0 || f.aic < fits[static_cast<size_t>(best)].aic) best = static_cast<int>(i);
  }
  return best;
}

double quantile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return 0.0;
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// Per-node failure counts and up-times, grouped (identical nodes share a row with a weight).
struct NodeGroup {
  int64_t failures = 0;
  double exposure_s = 0.0;
  double weight = 1.0;
};

double log_sum_exp(double x, double y) {
  const double m = std::max(x, y);
  return m == -kInf ? -kInf : m + std::log(std::exp(x - m) + std::exp(y - m));
}

// Two-class exponential mixture over nodes (EM); `ll0` is the one-class log-likelihood.
LemonFit fit_lemons(const std::vector<NodeGroup>& groups, double ll0, int64_t nodes) {
  LemonFit best;
  best.log_likelihood = ll0;
  double total_d = 0, total_t = 0;
  for (const NodeGroup& g : groups) {
    total_d += g.weight * static_cast<double>(g.failures);
    total_t += g.weight * g.exposure_s;
  }
  if (total_d <= 0 || total_t <= 0) return best;
  const double a0 = total_d / total_t;
  auto node_ll = [](const NodeGroup& g, double rate) {
    return static_cast<double>(g.failures) * std::log(rate) - rate * g.exposure_s;
  };
  for (const double f_init : {0.05, 0.2}) {
    for (const double m_init : {3.0, 10.0}) {
      double f = f_init, a = a0 / (1 - f + f * m_init), b = a * m_init, ll = -kInf;
      for (int iter = 0; iter < 2000; ++iter) {
        double sw = 0, swd = 0, swt = 0, snd = 0, snt = 0, l = 0;
        for (const NodeGroup& g : groups) {
          const double la = std::log1p(-f) + node_ll(g, a), lb = std::log(f) + node_ll(g, b);
          const double tot = log_sum_exp(la, lb);
          const double w = std::exp(lb - tot);
          l += g.weight * tot;
          sw += g.weight * w;
          swd += g.weight * w * static_cast<double>(g.failures);
          swt += g.weight * w * g.exposure_s;
          snd += g.weight * (1 - w) * static_cast<double>(g.failures);
          snt += g.weight * (1 - w) * g.exposure_s;
        }
        const double total_w = static_cast<double>(nodes);
        f = std::clamp(sw / total_w, 1e-9, 1 - 1e-9);
        a = std::max(snd / snt, 1e-300);
        b = std::max(swd / swt, 1e-300);
        if (l - ll < 1e-10 && iter > 0) {
          ll = l;
          break;
        }
        ll = l;
      }
      if (b < a) {  // the "lemons" are the better class: relabel
        std::swap(a, b);
        f = 1 - f;
      }
      if (ll > best.log_likelihood || best.multiplier == 1.0) {
        best.fraction = f;
        best.multiplier = b / a;
        best.log_likelihood = ll;
      }
    }
  }
  best.aic = 2.0 * 3 - 2.0 * best.log_likelihood;
  best.lr_statistic = std::max(0.0, 2.0 * (best.log_likelihood - ll0));
  // Boost.Math throws on a non-finite statistic: an unbounded likelihood ratio has p = 0.
  best.p_value = std::isfinite(best.lr_statistic)
                     ? boost::math::cdf(boost::math::complement(
                           boost::math::chi_squared_distribution<double>(2.0), best.lr_statistic))
                     : 0.0;
  return best;
}

// The Hawkes parameters from the optimiser's unconstrained coordinates.
struct HawkesParams {
  double mu = 0.0, n = 0.0, tau = 0.0;
};
struct HawkesProblem {
  const std::vector<double>* times;
  double span = 0.0, tau_min = 0.0;

  HawkesParams params(const Eigen::Vector3d& th) const {
    return {std::exp(th[0]), kMaxBranching * sigmoid(th[1]),
            tau_min + (span - tau_min) * sigmoid(th[2])};
  }
  // log L = sum_i ln(mu + n/tau A_i) - mu T - n sum_i (1 - e^(-(T - t_i)/tau)), with
  // A_i = sum_{j<i} e^(-(t_i - t_j)/tau) by the usual recursion (O(faults)).
  double log_likelihood(const HawkesParams& p) const {
    const double beta = 1.0 / p.tau;
    double a = 0.0, ll = -p.mu * span, prev = 0.0;
    for (size_t i = 0; i < times->size(); ++i) {
      const double t = (*times)[i];
      a = i == 0 ? 0.0 : std::exp(-beta * (t - prev)) * (1.0 + a);
      ll += std::log(p.mu + p.n * beta * a) + p.n * std::expm1(-beta * (span - t));
      prev = t;
    }
    return std::isfinite(ll) ? ll : -kInf;
  }
  double operator()(const Eigen::Vector3d& th) const { return log_likelihood(params(th)); }
};

// Sup distance between the empirical CDF of `x` (sorted in place) and Exp(1).
double ks_exp1(std::vector<double>& x) {
  std::sort(x.begin(), x.end());
  const auto n = static_cast<double>(x.size());
  double d = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double f = -std::expm1(-x[i]);
    d = std::max({d, static_cast<double>(i + 1) / n - f, f - static_cast<double>(i) / n});
  }
  return d;
}

// Monte Carlo p-value of a KS distance to Exp(1) of `n` values: the share of `bootstrap` samples
// of n Exp(1) draws (Stream(seed, b, stream)) at least as far; NaN without samples.
double ks_exp1_p(double distance, size_t n, int bootstrap, uint64_t seed,
                 const std::string& stream) {
  if (bootstrap <= 0) return std::numeric_limits<double>::quiet_NaN();
  int at_least = 0;
  std::vector<double> x(n);
  for (int b = 0; b < bootstrap; ++b) {
    Stream st(seed, static_cast<uint64_t>(b), stream);
    for (double& v : x) v = st.exponential(1.0);
    at_least += ks_exp1(x) >= distance ? 1 : 0;
  }
  return static_cast<double>(1 + at_least) / static_cast<double>(1 + bootstrap);
}

}  // namespace

HawkesFit fit_hawkes(const std::vector<double>& times_s, double span_s, double min_delay_s,
                     int bootstrap, uint64_t seed, const std::string& stream) {
  HawkesFit out;
  out.events = static_cast<int64_t>(times_s.size());
  if (times_s.size() < 2 || !(span_s > min_delay_s) || !(min_delay_s > 0)) return out;
  const auto d = static_cast<double>(times_s.size());
  out.poisson_log_likelihood = d * std::log(d / span_s) - d;
  const HawkesProblem f{&times_s, span_s, min_delay_s};
  auto coordinate = [&](double mu, double n, double tau) {
    const auto logit = [](double x) { return std::log(x / (1.0 - x)); };
    return Eigen::Vector3d(std::log(mu), logit(n / kMaxBranching),
                           logit((tau - min_delay_s) / (span_s - min_delay_s)));
  };
  // Start from the best of a small grid (the likelihood can have several local maxima: a short
  // delay explains simultaneous faults, a long one slow waves).
  Eigen::Vector3d th;
  double ll = -kInf;
  const double gap = span_s / d;
  for (const double n0 : {0.2, 0.5, 0.8}) {
    for (const double tau_factor : {0.01, 0.1, 1.0}) {
      const double hi = min_delay_s + 0.5 * (span_s - min_delay_s);
      const double tau0 = std::clamp(gap * tau_factor, std::min(min_delay_s * 1.5, hi), hi);
      const Eigen::Vector3d c = coordinate(d / span_s * (1 - n0), n0, tau0);
      const double l = f(c);
      if (l > ll) {
        ll = l;
        th = c;
      }
    }
  }
  if (!std::isfinite(ll)) return out;
  const bool converged = newton_maximise<3>(f, th, ll, d);
  const HawkesParams p = f.params(th);
  out.converged = converged;
  out.log_likelihood = ll;
  out.mu_per_s = p.mu;
  out.branching = p.n;
  out.mean_delay_s = p.tau;
  out.delta_aic = (2.0 * 3 - 2.0 * ll) - (2.0 * 1 - 2.0 * out.poisson_log_likelihood);
  // Wald intervals in the optimiser's coordinates, mapped back (the maps are monotone).
  Eigen::Vector3d g;
  Eigen::Matrix3d h;
  derivatives<3>(f, th, g, h);
  Eigen::Vector3d se = Eigen::Vector3d::Constant(kInf);
  const Eigen::LLT<Eigen::Matrix3d> llt(-h);
  if (llt.info() == Eigen::Success) {
    const Eigen::Matrix3d cov = (-h).inverse();
    for (int i = 0; i < 3; ++i) se[i] = std::sqrt(std::max(0.0, cov(i, i)));
  }
  const Eigen::Vector3d lo = th - kZ95 * se, hi = th + kZ95 * se;
  const HawkesParams plo = f.params(lo), phi = f.params(hi);
  out.branching_lo = plo.n;
  out.branching_hi = phi.n;
  out.mean_delay_lo_s = plo.tau;
  out.mean_delay_hi_s = phi.tau;

  // Time rescaling: the compensator between consecutive faults.
  std::vector<double> rescaled;
  rescaled.reserve(times_s.size());
  const double beta = 1.0 / p.tau;
  double s_prev = 0.0, prev = 0.0;  // sum over faults so far of e^(-(prev - t_j) beta)
  for (size_t i = 0; i < times_s.size(); ++i) {
    const double dt = times_s[i] - prev;
    rescaled.push_back(p.mu * dt - p.n * s_prev * std::expm1(-beta * dt));
    s_prev = s_prev * std::exp(-beta * dt) + 1.0;
    prev = times_s[i];
  }
  out.ks_distance = ks_exp1(rescaled);
  out.ks_p = ks_exp1_p(out.ks_distance, times_s.size(), bootstrap, seed, stream);
  return out;
}

namespace {

// The two-scale parameters from the optimiser's unconstrained coordinates: total branching
// 0.99 sigmoid(th1), split fast/slow by sigmoid(th2); the fast delay between its floor and the
// span, the slow one between the fast one and the span (so the components stay ordered and the
// likelihood has no label-swapping twin).
struct Hawkes2Params {
  double mu = 0.0, n1 = 0.0, tau1 = 0.0, n2 = 0.0, tau2 = 0.0;
};

struct Hawkes2Problem {
  const std::vector<double>* times;
  double span = 0.0, tau_min = 0.0;

  Hawkes2Params params(const Vec<5>& th) const {
    const double n = kMaxBranching * sigmoid(th[1]), w = sigmoid(th[2]);
    const double tau1 = tau_min + (span - tau_min) * sigmoid(th[3]);
    return {std::exp(th[0]), n * w, tau1, n * (1.0 - w), tau1 + (span - tau1) * sigmoid(th[4])};
  }
  Vec<5> coordinate(const Hawkes2Params& p) const {
    const auto logit = [](double x) { return std::log(x / (1.0 - x)); };
    const double n = p.n1 + p.n2;
    Vec<5> th;
    th << std::log(p.mu), logit(n / kMaxBranching), logit(p.n1 / n),
        logit((p.tau1 - tau_min) / (span - tau_min)), logit((p.tau2 - p.tau1) / (span - p.tau1));
    return th;
  }
  // The one-scale recursion per component: A_i^c = e^(-(t_i - t_(i-1))/tau_c) (1 + A_(i-1)^c).
  double log_likelihood(const Hawkes2Params& p) const {
    const double b1 = 1.0 / p.tau1, b2 = 1.0 / p.tau2;
    double a1 = 0.0, a2 = 0.0, ll = -p.mu * span, prev = 0.0;
    for (size_t i = 0; i < times->size(); ++i) {
      const double t = (*times)[i];
      if (i > 0) {
        a1 = std::exp(-b1 * (t - prev)) * (1.0 + a1);
        a2 = std::exp(-b2 * (t - prev)) * (1.0 + a2);
      }
      ll += std::log(p.mu + p.n1 * b1 * a1 + p.n2 * b2 * a2) + p.n1 * std::expm1(-b1 * (span - t)) +
            p.n2 * std::expm1(-b2 * (span - t));
      prev = t;
    }
    return std::isfinite(ll) ? ll : -kInf;
  }
  double operator()(const Vec<5>& th) const { return log_likelihood(params(th)); }
};

}  // namespace

HawkesFit fit_hawkes_two_scale(const std::vector<double>& times_s, double span_s,
                               double min_delay_s, int bootstrap, uint64_t seed,
                               const std::string& stream) {
  HawkesFit out;
  out.scales = 2;
  out.events = static_cast<int64_t>(times_s.size());
  if (times_s.size() < 2 || !(span_s > min_delay_s) || !(min_delay_s > 0)) return out;
  const auto d = static_cast<double>(times_s.size());
  out.poisson_log_likelihood = d * std::log(d / span_s) - d;
  const Hawkes2Problem f{&times_s, span_s, min_delay_s};
  // Start from the best of a grid over both time scales (a fast one for faults of one event, a
  // slow one for waves of days to months) and the split of the branching between them.
  Vec<5> th = Vec<5>::Zero();
  double ll = -kInf;
  const double gap = span_s / d;
  const double hi = min_delay_s + 0.5 * (span_s - min_delay_s);
  for (const double n0 : {0.3, 0.6, 0.9}) {
    for (const double w0 : {0.3, 0.7}) {
      for (const double f1 : {0.003, 0.03, 0.3}) {
        for (const double f2 : {3.0, 30.0, 100.0}) {
          Hawkes2Params p;
          p.mu = d / span_s * (1 - n0);
          p.n1 = n0 * w0;
          p.n2 = n0 * (1 - w0);
          p.tau1 = std::clamp(gap * f1, std::min(min_delay_s * 1.5, hi), hi);
          p.tau2 = p.tau1 + 0.5 * std::clamp(gap * f2 - p.tau1, 0.0, span_s - p.tau1) + 1.0;
          if (!(p.tau2 < span_s)) continue;
          const Vec<5> c = f.coordinate(p);
          const double l = f(c);
          if (l > ll) {
            ll = l;
            th = c;
          }
        }
      }
    }
  }
  if (!std::isfinite(ll)) return out;
  out.converged = newton_maximise<5>(f, th, ll, d);
  const Hawkes2Params p = f.params(th);
  out.log_likelihood = ll;
  out.mu_per_s = p.mu;
  out.branching = p.n1;
  out.mean_delay_s = p.tau1;
  out.slow_branching = p.n2;
  out.slow_mean_delay_s = p.tau2;
  out.delta_aic = (2.0 * 5 - 2.0 * ll) - (2.0 * 1 - 2.0 * out.poisson_log_likelihood);
  // 95% Wald intervals by the delta method, each on a scale where the parameter is unbounded
  // (logit of branching / 0.99, logit of the delay's place between the floor and the span) and
  // mapped back, so every interval stays inside the parameter's range.
  Vec<5> g;
  Mat<5> h;
  derivatives<5>(f, th, g, h);
  const Eigen::LLT<Mat<5>> llt(-h);
  const bool invertible = llt.info() == Eigen::Success;
  const Mat<5> cov = invertible ? Mat<5>((-h).inverse()) : Mat<5>::Zero();
  const auto logit = [](double x) { return std::log(x / (1.0 - x)); };
  auto interval = [&](auto&& value, auto&& to_scale, auto&& from_scale, double& lo_out,
                      double& hi_out) {
    if (!invertible) {
      lo_out = -kInf;
      hi_out = kInf;
      return;
    }
    Vec<5> grad;
    constexpr double e = 1e-4;
    for (int i = 0; i < 5; ++i) {
      const Vec<5> u = Vec<5>::Unit(i) * e;
      grad[i] = (to_scale(value(f.params(th + u))) - to_scale(value(f.params(th - u)))) / (2 * e);
    }
    const double se = std::sqrt(std::max(0.0, grad.dot(cov * grad)));
    const double c = to_scale(value(p));
    lo_out = from_scale(c - kZ95 * se);
    hi_out = from_scale(c + kZ95 * se);
  };
  const auto n_to = [&](double n) { return logit(n / kMaxBranching); };
  const auto n_from = [&](double x) { return kMaxBranching * sigmoid(x); };
  const auto t_to = [&](double t) { return logit((t - min_delay_s) / (span_s - min_delay_s)); };
  const auto t_from = [&](double x) { return min_delay_s + (span_s - min_delay_s) * sigmoid(x); };
  interval([](const Hawkes2Params& q) { return q.n1; }, n_to, n_from, out.branching_lo,
           out.branching_hi);
  interval([](const Hawkes2Params& q) { return q.n2; }, n_to, n_from, out.slow_branching_lo,
           out.slow_branching_hi);
  interval([](const Hawkes2Params& q) { return q.tau1; }, t_to, t_from, out.mean_delay_lo_s,
           out.mean_delay_hi_s);
  interval([](const Hawkes2Params& q) { return q.tau2; }, t_to, t_from, out.slow_mean_delay_lo_s,
           out.slow_mean_delay_hi_s);
  if (!invertible) {  // unbounded intervals: the parameter ranges
    out.branching_lo = out.slow_branching_lo = 0.0;
    out.branching_hi = out.slow_branching_hi = kMaxBranching;
    out.mean_delay_lo_s = out.slow_mean_delay_lo_s = min_delay_s;
    out.mean_delay_hi_s = out.slow_mean_delay_hi_s = span_s;
  }

  // Time rescaling, both components.
  std::vector<double> rescaled;
  rescaled.reserve(times_s.size());
  const double b1 = 1.0 / p.tau1, b2 = 1.0 / p.tau2;
  double s1 = 0.0, s2 = 0.0, prev = 0.0;
  for (const double t : times_s) {
    const double dt = t - prev;
    rescaled.push_back(p.mu * dt - p.n1 * s1 * std::expm1(-b1 * dt) -
                       p.n2 * s2 * std::expm1(-b2 * dt));
    s1 = s1 * std::exp(-b1 * dt) + 1.0;
    s2 = s2 * std::exp(-b2 * dt) + 1.0;
    prev = t;
  }
  out.ks_distance = ks_exp1(rescaled);
  out.ks_p = ks_exp1_p(out.ks_distance, times_s.size(), bootstrap, seed, stream);
  return out;
}

RateEstimate poisson_rate(int64_t events, double exposure_s) {
  RateEstimate r;
  r.events = events;
  r.exposure_s = exposure_s;
  if (!(exposure_s > 0)) return r;
  const auto d = static_cast<double>(events);
  r.per_s = d / exposure_s;
  using boost::math::chi_squared_distribution;
  r.lo_per_s = events == 0 ? 0.0
                           : boost::math::quantile(chi_squared_distribution<double>(2 * d), 0.025) /
                                 (2 * exposure_s);
  r.hi_per_s =
      boost::math::quantile(chi_squared_distribution<double>(2 * d + 2), 0.975) / (2 * exposure_s);
  return r;
}

LawFit fit_exponential(const std::vector<Interval>& data) {
  LawFit out;
  out.law = "exponential";
  out.parameters = 1;
  double d = 0, t = 0;
  for (const Interval& x : data) {
    d += x.failed ? x.weight : 0.0;
    t += x.weight * x.t_s;
  }
  if (d == 0 || !(t > 0)) return out;
  const RateEstimate r = poisson_rate(std::llround(d), t);
  out.a = t / d;
  out.a_lo = 1.0 / r.hi_per_s;
  out.a_hi = 1.0 / r.lo_per_s;
  out.mean_s = out.a;
  out.log_likelihood = -d * std::log(out.a) - t / out.a;
  out.aic = 2.0 - 2.0 * out.log_likelihood;
  out.converged = true;
  return out;
}

LawFit fit_weibull(const std::vector<Interval>& data) {
  const LawFit e = fit_exponential(data);
  if (!e.converged) return LawFit{.law = "weibull", .parameters = 2};
  return maximise(Law::kWeibull, Eigen::Vector2d(0.0, std::log(e.mean_s)), data);
}

LawFit fit_lognormal(const std::vector<Interval>& data) {
  double s = 0, s2 = 0, n = 0;
  for (const Interval& x : data) {
    if (!x.failed) continue;
    const double l = std::log(x.t_s);
    s += x.weight * l;
    s2 += x.weight * l * l;
    n += x.weight;
  }
  if (n == 0) return LawFit{.law = "lognormal", .parameters = 2};
  const double mu = s / n;
  const double sd = std::sqrt(std::max(1e-4, s2 / n - mu * mu));
  return maximise(Law::kLognormal, Eigen::Vector2d(mu, std::log(sd)), data);
}

RepairBatches find_repair_batches(const TraceData& trace) {
  RepairBatches out;
  struct End {
    double at_s, start_s, repair_s;
    size_t fault;
  };
  std::vector<End> ends;
  double down = 0.0;
  for (size_t i = 0; i < trace.faults.size(); ++i) {
    const TraceFault& f = trace.faults[i];
    down += f.repair_s;
    if (!f.open) ends.push_back({f.start_s + f.repair_s, f.start_s, f.repair_s, i});
  }
  std::stable_sort(ends.begin(), ends.end(),
                   [](const End& a, const End& b) { return a.at_s < b.at_s; });
  double batch_down = 0.0;
  for (size_t i = 0; i < ends.size();) {
    size_t j = i + 1;
    while (j < ends.size() && ends[j].at_s - ends[j - 1].at_s <= RepairBatches::kBatchGapS) ++j;
    double first = ends[i].start_s, last = ends[i].start_s, run_down = 0.0;
    for (size_t x = i; x < j; ++x) {
      first = std::min(first, ends[x].start_s);
      last = std::max(last, ends[x].start_s);
      run_down += ends[x].repair_s;
    }
    const auto n = static_cast<int>(j - i);
    if (n >= RepairBatches::kMinBatch && last - first > RepairBatches::kBatchSpreadS) {
      ++out.batches;
      out.faults += n;
      for (size_t x = i; x < j; ++x) out.members.push_back(ends[x].fault);
      batch_down += run_down;
      if (n > out.largest) {
        out.largest = n;
        out.largest_at_s = ends[i].at_s;
        out.largest_first_start_s = first;
        out.largest_last_start_s = last;
      }
    }
    i = j;
  }
  out.down_share = down > 0.0 ? batch_down / down : 0.0;
  std::sort(out.members.begin(), out.members.end());
  return out;
}

namespace {

// The repair law of kind `k` from its `faults` (those with skip[x] set left out: repairs the
// engine takes from another failure), with its quantiles and notes: fixed when all are equal,
// the recorded repairs (empirical) when too few or when no law passes the KS test at 5%, else the
// law with the lowest AIC. Open faults (no end in the log) are censored at the span.
void fit_kind_repairs(KindFit& k, const std::vector<const TraceFault*>& faults,
                      const std::vector<char>& skip, const FitOptions& o) {
  std::vector<Interval> repairs;
  int64_t floored = 0;
  k.repair_values_s.clear();
  k.repair.clear();
  k.repair_choice = -1;
  for (size_t x = 0; x < faults.size(); ++x) {
    if (!skip.empty() && skip[x] != 0) continue;
    const TraceFault* f = faults[x];
    const bool open = f->open;
    Interval iv;
    iv.t_s = std::max(kMinTimeS, f->repair_s);
    floored += f->repair_s < kMinTimeS ? 1 : 0;
    iv.failed = !open;
    iv.limit_s = open ? iv.t_s : kInf;
    repairs.push_back(iv);
    k.repair_values_s.push_back(iv.t_s);
  }
  std::sort(k.repair_values_s.begin(), k.repair_values_s.end());
  k.repair_median_s = quantile_sorted(k.repair_values_s, 0.5);
  k.repair_p90_s = quantile_sorted(k.repair_values_s, 0.9);
  double sum = 0;
  for (const double v : k.repair_values_s) sum += v;
  k.repair_mean_s = sum / static_cast<double>(k.repair_values_s.size());
  if (floored > 0)
    k.notes.push_back(std::to_string(floored) + " repairs under 1 s counted as 1 s");
  // Equal repairs (to the log's recording precision, 1e-6 relative) are a fixed repair time.
  if (k.repair_values_s.back() <= k.repair_values_s.front() * (1 + 1e-6)) {
    k.repair_law = "fixed";
  } else if (static_cast<int>(repairs.size()) < o.min_events) {
    k.repair_law = "empirical";
    k.notes.push_back(std::to_string(repairs.size()) + " repairs, fewer than the " +
                      std::to_string(o.min_events) +
                      " needed to fit a law: the recorded repairs are replayed (empirical)");
  } else {
    k.repair = fit_all(repairs, o, "fit." + k.name + ".repair");
    k.repair_choice = best_aic(k.repair, 0.05, 10.0);
    const bool fits = k.repair_choice >= 0 &&
                      k.repair[static_cast<size_t>(k.repair_choice)].ks_p >= 0.05 &&
                      k.repair[static_cast<size_t>(k.repair_choice)].mean_s <=
                          3650.0 * kSecondsPerDay;
    if (fits) {
      k.repair_law = k.repair[static_cast<size_t>(k.repair_choice)].law;
    } else {
      k.repair_law = "empirical";
      k.notes.push_back(
          "no repair law passes the KS test at 5%: the recorded repairs are replayed "
          "(empirical)");
    }
  }
}


// An exponential law truncated to [0, window_s] fitted to `delays_s` by maximum likelihood, its
// mean at least `min_mean_s` (faults logged at one instant would drive it to 0): sets `mean_s`
// (the window's half when the delays are spread evenly) and returns the log-likelihood.
double truncated_exponential_log_likelihood(const std::vector<double>& delays_s, double window_s,
                                            double min_mean_s, double& mean_s) {
  mean_s = window_s / 2.0;
  if (delays_s.empty()) return 0.0;
  double mean = 0.0;
  for (const double g : delays_s) mean += g;
  mean /= static_cast<double>(delays_s.size());
  // The truncated law's mean, 1/rate - W / (e^(rate W) - 1), falls from W/2 (rate -> 0: even)
  // to 0; the rate is where it meets the delays' mean, at most 1 / min_mean_s.
  const auto truncated_mean = [&](double rate) {
    return 1.0 / rate - window_s / std::expm1(rate * window_s);
  };
  const double max_rate = 1.0 / std::max(min_mean_s, 1e-9);
  double rate = 0.0;
  if (mean < window_s / 2.0) {
    if (truncated_mean(max_rate) >= mean) {
      rate = max_rate;
    } else {
      boost::uintmax_t iterations = 200;
      const auto root = boost::math::tools::toms748_solve(
          [&](double r) { return truncated_mean(r) - mean; }, 1e-6 / window_s, max_rate,
          boost::math::tools::eps_tolerance<double>(40), iterations);
      rate = 0.5 * (root.first + root.second);
    }
  }
  if (!(rate > 0.0)) return -static_cast<double>(delays_s.size()) * std::log(window_s);
  mean_s = truncated_mean(rate);
  const double log_norm = std::log(rate) - std::log(-std::expm1(-rate * window_s));
  double ll = 0.0;
  for (const double g : delays_s) ll += log_norm - rate * g;
  return ll;
}

// Runs of faults (in start order) each starting within `window_s` of the one before, on distinct
// nodes (the same node again starts a new run): the kinds' bursts and the pooled incidents.
struct FaultRuns {
  std::vector<size_t> first;     // each run's first fault
  std::vector<int> sizes;        // each run's nodes
  std::vector<double> delays_s;  // each partner's start after the fault before it, in order
};

FaultRuns fault_runs(const std::vector<const TraceFault*>& faults, double window_s) {
  FaultRuns r;
  size_t i = 0;
  while (i < faults.size()) {
    std::set<int32_t> nodes = {faults[i]->node};
    size_t j = i + 1;
    while (j < faults.size() && faults[j]->start_s - faults[j - 1]->start_s <= window_s &&
           nodes.insert(faults[j]->node).second) {
      r.delays_s.push_back(faults[j]->start_s - faults[j - 1]->start_s);
      ++j;
    }
    r.first.push_back(i);
    r.sizes.push_back(static_cast<int>(nodes.size()));
    i = j;
  }
  return r;
}

// The runs of several nodes: their sizes (ascending) and their mean (1 when there are none).
std::vector<int> multi_node_sizes(const std::vector<int>& sizes, double& mean) {
  std::vector<int> multi;
  int64_t nodes = 0;
  for (const int size : sizes) {
    if (size < 2) continue;
    multi.push_back(size);
    nodes += size;
  }
  std::sort(multi.begin(), multi.end());
  mean = multi.empty() ? 1.0 : static_cast<double>(nodes) / static_cast<double>(multi.size());
  return multi;
}

// The marks of a burst model (IncidentMarks, gain aside) from each cluster's nodes and each
// partner's delay after the fault before it.
IncidentMarks incident_marks(const std::vector<int>& cluster_sizes,
                             const std::vector<double>& delays_s, double window_s,
                             double resolution_s, double min_mean_s) {
  IncidentMarks m;
  m.resolution_s = resolution_s;
  std::map<int, int64_t> counts;
  for (const int size : cluster_sizes) ++counts[size];
  const auto clusters = static_cast<double>(cluster_sizes.size());
  for (const auto& [size, c] : counts) {
    m.log_likelihood += static_cast<double>(c) * std::log(static_cast<double>(c) / clusters);
  }
  m.parameters = static_cast<int>(counts.size()) - 1;
  if (delays_s.empty()) return m;
  // At once: uniform within the resolution; later: an exponential law from the resolution to
  // the window.
  std::vector<double> later;
  for (const double g : delays_s) {
    if (g >= resolution_s) later.push_back(g - resolution_s);
  }
  const auto n = static_cast<double>(delays_s.size());
  const auto at_once = n - static_cast<double>(later.size());
  m.at_once_share = at_once / n;
  ++m.parameters;
  if (at_once > 0.0) m.log_likelihood += at_once * std::log(m.at_once_share / resolution_s);
  if (!later.empty()) {
    ++m.parameters;
    double later_mean = 0.0;
    m.log_likelihood +=
        static_cast<double>(later.size()) * std::log(1.0 - m.at_once_share) +
        truncated_exponential_log_likelihood(later, std::max(window_s - resolution_s, 1.0),
                                             min_mean_s, later_mean);
    m.later_mean_s = resolution_s + later_mean;
  }
  return m;
}

}  // namespace

Result<TraceFit> fit_trace(const TraceData& trace, const FitOptions& o) {
  TraceFit fit;
  fit.file = trace.file;
  fit.source_hash = o.source_hash;
  fit.options = o;
  fit.span_s = trace.span_s;
  fit.faults = static_cast<int64_t>(trace.faults.size());
  fit.nodes_seen = static_cast<int64_t>(trace.node_names.size());
  fit.nodes = o.nodes > 0 ? o.nodes : fit.nodes_seen;
  if (fit.nodes < fit.nodes_seen) {
    return Error::bad_input(trace.file + ": --nodes " + std::to_string(fit.nodes) +
                            " is fewer than the " + std::to_string(fit.nodes_seen) +
                            " nodes the trace names");
  }
  if (!(trace.span_s > 0))
    return Error::bad_input(trace.file + ": the trace spans no time; nothing to fit");
  const double span = trace.span_s;
  const double node_seconds = static_cast<double>(fit.nodes) * span;
  // How finely the log's starts are told apart (a burst's partners "at once" are within it).
  std::vector<double> all_starts;
  for (const TraceFault& f : trace.faults) all_starts.push_back(f.start_s);
  const double resolution_s = fit_internal::end_resolution_s(all_starts);
  fit.batches = find_repair_batches(trace);

  // Per kind: its faults, and where its repair notes start (the last of its notes), so that a
  // refit of its repair law without the shared repairs replaces them.
  std::vector<std::vector<const TraceFault*>> kind_faults;
  std::vector<size_t> repair_notes_at;
  for (uint16_t kind = 0; kind < trace.kind_names.size(); ++kind) {
    KindFit k;
    k.name = trace.kind_names[kind];
    std::vector<const TraceFault*> faults;
    for (const TraceFault& f : trace.faults) {
      if (f.kind == kind) faults.push_back(&f);
    }
    kind_faults.push_back(faults);
    k.faults = static_cast<int64_t>(faults.size());
    k.rate = poisson_rate(k.faults, node_seconds);
    std::map<std::string, int64_t> causes;
    for (const TraceFault* f : faults) {
      static constexpr const char* kComponents[] = {"gpu", "node", "domain", "pod"};
      const std::string cause = !trace.cause_names.empty() ? trace.cause_names[f->cause]
                                : f->has_component ? kComponents[static_cast<int>(f->component)]
                                                   : "unspecified";
      ++causes[cause];
    }
    for (const auto& [cause, n] : causes)
      k.by_cause.emplace_back(cause, poisson_rate(n, node_seconds));

    // A fault starting inside its node's repair of the same kind: the same cause is a broken log
    // (one process cannot fail a unit twice at once); another cause is a second problem found
    // during the outage: counted in the rate, not as a time between failures.
    std::vector<double> up_at(trace.node_names.size(), 0.0);
    std::vector<const TraceFault*> holder(trace.node_names.size(), nullptr);
    std::vector<bool> inside(faults.size(), false);
    for (size_t x = 0; x < faults.size(); ++x) {
      const TraceFault* f = faults[x];
      const auto n = static_cast<size_t>(f->node);
      if (f->start_s < up_at[n]) {
        if (f->cause == holder[n]->cause) {
          const std::string other =
              (trace.numbered_entries ? "entry " : "line ") + std::to_string(holder[n]->source);
          return Error::bad_input(
              trace_location(trace, *f) + ": node " + trace.node_names[n] + ": a " + k.name +
              " fault at " + format_number(f->start_s / kSecondsPerDay) + " d starts inside the same " +
              "node's repair of the same cause (" + other + ", until " +
              format_number(up_at[n] / kSecondsPerDay) + " d): overlapping events of one node");
        }
        inside[x] = true;
        if (f->start_s + f->repair_s > up_at[n]) {
          up_at[n] = f->start_s + f->repair_s;
          holder[n] = f;
        }
        continue;
      }
      up_at[n] = f->start_s + f->repair_s;
      holder[n] = f;
    }
    const auto n_inside = std::count(inside.begin(), inside.end(), true);
    if (n_inside > 0) {
      k.notes.push_back(std::to_string(n_inside) +
                        " fault(s) start inside the same node's repair of another "
                        "cause: counted in the rate, not as times between failures");
    }
    // Faults of one incident that share a repair, among the kind's faults (those inside their
    // node's repair aside, as the engine's process never starts one there).
    {
      std::vector<double> starts;
      std::vector<Interval> shared_repairs;
      std::vector<size_t> of;  // index into faults
      for (size_t x = 0; x < faults.size(); ++x) {
        if (inside[x]) continue;
        const TraceFault& f = *faults[x];
        starts.push_back(f.start_s);
        shared_repairs.push_back({std::max(kMinTimeS, f.repair_s), !f.open, kInf});
        of.push_back(x);
      }
      k.shared = fit_shared_repairs(starts, shared_repairs, o.burst_window_s);
      std::vector<char> by_fault(faults.size(), 0);
      for (size_t i = 0; i < of.size(); ++i) by_fault[of[i]] = k.shared.is_shared[i];
      k.shared.is_shared = std::move(by_fault);
    }

    // Bursts: chains of starts within the window; partners are the other nodes of a chain.
    std::vector<bool> partner(faults.size(), false);
    {
      BurstFit& b = k.bursts;
      const FaultRuns runs = fault_runs(faults, o.burst_window_s);
      std::fill(partner.begin(), partner.end(), true);
      for (const size_t first : runs.first) partner[first] = false;
      b.clusters = static_cast<int64_t>(runs.first.size());
      b.sizes = multi_node_sizes(runs.sizes, b.mean_size);
      b.multi = static_cast<int64_t>(b.sizes.size());
      for (size_t x = 1; x < faults.size(); ++x) {
        b.close_gaps += faults[x]->start_s - faults[x - 1]->start_s <= o.burst_window_s ? 1 : 0;
      }
      if (faults.size() >= 2) {
        const double trials = static_cast<double>(faults.size() - 1);
        const double p0 =
            -std::expm1(-static_cast<double>(faults.size()) / span * o.burst_window_s);
        b.expected_close_gaps = trials * p0;
        if (b.close_gaps > 0 && p0 < 1.0) {
          b.p_value = boost::math::cdf(
              boost::math::complement(boost::math::binomial_distribution<double>(trials, p0),
                                      static_cast<double>(b.close_gaps - 1)));
        }
      }
      b.bursty = b.p_value < 0.01 && b.multi >= 3;
      b.partners = static_cast<int64_t>(runs.delays_s.size());
      b.marks = incident_marks(runs.sizes, runs.delays_s, o.burst_window_s,
                               resolution_s,
                               o.min_excitation_delay_s);
      if (b.bursty) {
        b.probability = static_cast<double>(b.multi) / static_cast<double>(b.clusters);
        b.size = std::max(2, static_cast<int>(std::lround(b.mean_size)));
      } else {
        std::fill(partner.begin(), partner.end(), false);
      }
    }

    // Times between failures per node (partners end a lifetime early: censored).
    std::vector<Interval> lifetimes;
    std::vector<NodeGroup> groups(trace.node_names.size());
    std::vector<double> t0(trace.node_names.size(), 0.0);
    for (size_t x = 0; x < faults.size(); ++x) {
      const TraceFault& f = *faults[x];
      const auto n = static_cast<size_t>(f.node);
      if (inside[x]) {
        t0[n] = std::max(t0[n], f.start_s + f.repair_s);
        continue;
      }
      Interval iv;
      iv.t_s = std::max(kMinTimeS, f.start_s - t0[n]);
      iv.failed = !partner[x];
      iv.limit_s = std::max(kMinTimeS, span - t0[n]);
      lifetimes.push_back(iv);
      groups[n].failures += iv.failed ? 1 : 0;
      groups[n].exposure_s += iv.t_s;
      t0[n] = f.start_s + f.repair_s;
    }
    std::vector<bool> has_kind(trace.node_names.size(), false);
    for (const TraceFault* f : faults) has_kind[static_cast<size_t>(f->node)] = true;
    int64_t untouched = fit.nodes - fit.nodes_seen;
    for (size_t n = 0; n < t0.size(); ++n) {
      if (!has_kind[n]) {
        ++untouched;
        continue;
      }
      if (span - t0[n] > 0) {
        lifetimes.push_back({span - t0[n], false, span - t0[n]});
        groups[n].exposure_s += span - t0[n];
      }
    }
    std::vector<NodeGroup> lemon_groups;
    for (const NodeGroup& g : groups) {
      if (g.failures > 0 || g.exposure_s > 0) lemon_groups.push_back(g);
    }
    if (untouched > 0) {
      // Nodes without a fault of this kind: one censored span each (one row with a weight).
      lemon_groups.push_back({0, span, static_cast<double>(untouched)});
    }
    int64_t leaders = 0;
    double up_s = 0;
    for (const Interval& iv : lifetimes) {
      leaders += iv.failed ? 1 : 0;
      up_s += iv.t_s;
    }
    up_s += static_cast<double>(untouched) * span;
    k.process_rate = poisson_rate(leaders, up_s);

    if (leaders < o.min_events) {
      k.notes.push_back(std::to_string(leaders) + " independent faults, fewer than the " +
                        std::to_string(o.min_events) +
                        " needed to fit a law: exponential assumed, not tested");
    } else {
      // Nodes without a fault of this kind: one censored span each, as one weighted row.
      std::vector<Interval> all = lifetimes;
      if (untouched > 0) all.push_back(Interval{span, false, span, static_cast<double>(untouched)});
      FitOptions lo = o;
      if (static_cast<double>(fit.nodes) + static_cast<double>(leaders) > kMaxBootstrapIntervals) {
        lo.bootstrap = 0;
        k.notes.push_back("over " + format_number(kMaxBootstrapIntervals) +
                          " intervals: the lifetime laws' KS p-values are not computed");
      }
      k.lifetime = fit_all(all, lo, "fit." + k.name + ".lifetime");
      k.lifetime_choice = best_aic(k.lifetime, 0.05, 100.0);
      const double ll0 = k.lifetime[0].log_likelihood;
      k.lemons = fit_lemons(lemon_groups, ll0, fit.nodes);
      double best = kInf;
      if (k.lifetime_choice >= 0) best = k.lifetime[static_cast<size_t>(k.lifetime_choice)].aic;
      k.lemons.supported = k.lemons.p_value < 0.01 && k.lemons.aic < best &&
                           k.lemons.fraction * static_cast<double>(fit.nodes) >= 1.0;
      if (k.lemons.supported) {
        // The engine's lemon model: the base rate is the other nodes' rate.
        const double a = k.process_rate.per_s /
                         (1.0 - k.lemons.fraction + k.lemons.fraction * k.lemons.multiplier);
        k.process_rate.per_s = a;
        k.lifetime_choice = 0;
      }
      // Clustering in time: the kind's faults over the whole cluster as a Hawkes process,
      // against the independent-node model chosen above, both measured as AIC gains over
      // independent exponential faults (the Poisson process of the cluster's faults is the
      // superposition of the nodes' exponential laws).
      std::vector<double> times;
      for (size_t x = 0; x < faults.size(); ++x) {
        if (!inside[x]) times.push_back(faults[x]->start_s);
      }
      k.hawkes = fit_hawkes(times, span, o.min_excitation_delay_s, lo.bootstrap, o.seed,
                            "fit." + k.name + ".hawkes");
      // The process is the cluster's: the engine places each fault on a node that is up, so its
      // rate is the faults over all node-time, not over up time.
      k.hawkes.rate_per_s = static_cast<double>(times.size()) / node_seconds;
      const double exp_aic = k.lifetime[0].aic;
      double independent_gain = 0.0;
      if (k.lemons.supported) {
        independent_gain = k.lemons.aic - exp_aic;
      } else if (k.lifetime_choice >= 0) {
        independent_gain = k.lifetime[static_cast<size_t>(k.lifetime_choice)].aic - exp_aic;
      }
      if (k.bursts.bursty) {
        // The laws above are of the bursts' first faults (partners censored); the burst model
        // is measured on every fault, as the Hawkes process is: its marks (cluster sizes and
        // partners' delays) plus the first faults' exponential law, against the exponential law
        // of every fault (the same up time, all faults counted). Each law is per node, so each
        // fault's density includes its node's (one of `nodes`); a partner's node is as much a
        // draw (the log's partners are not neighbours), so it pays 1 / nodes too.
        BurstFit& b = k.bursts;
        const double up = k.process_rate.exposure_s;
        const auto every = static_cast<double>(times.size());
        const auto first = static_cast<double>(k.process_rate.events);
        const double ll_all = every * std::log(every / up) - every;
        const double ll_first = first * std::log(first / up) - first;
        const double ll_partner_nodes =
            -(every - first) * std::log(static_cast<double>(std::max<int64_t>(1, fit.nodes)));
        b.marks.gain = 2.0 * b.marks.parameters -
                       2.0 * (b.marks.log_likelihood + ll_partner_nodes + ll_first - ll_all);
        independent_gain += b.marks.gain;
      }
      k.hawkes.chosen = k.hawkes.converged && k.hawkes.delta_aic < std::min(0.0, independent_gain);
      k.aic_gain = k.hawkes.chosen ? k.hawkes.delta_aic : independent_gain;
      if (k.hawkes.chosen && k.hawkes.ks_p < 0.05) {
        k.notes.push_back(
            "the Hawkes process fails the time-rescaling KS test at 5%: it captures the "
            "clustering better than the per-node laws but not closely");
      }
      if (!k.hawkes.chosen && k.lifetime_choice >= 0 &&
          k.lifetime[static_cast<size_t>(k.lifetime_choice)].ks_p < 0.05) {
        k.notes.push_back(
            std::string("the chosen lifetime law fails the KS test at 5%: the log's times between "
                        "failures follow none of the laws closely"));
      }
    }

    repair_notes_at.push_back(k.notes.size());
    fit_kind_repairs(k, faults, {}, o);
    fit.kinds.push_back(std::move(k));
  }

  // A kind's repair law again, without the faults `skip` marks (its earlier repair notes, the
  // last of its notes, replaced). A kind whose every fault shares another's repair keeps the law
  // of all its repairs: its faults that do not share still draw from it.
  auto refit_repairs = [&](size_t kind, const std::vector<char>& skip) {
    KindFit& k = fit.kinds[kind];
    k.notes.resize(repair_notes_at[kind]);
    if (std::all_of(skip.begin(), skip.end(), [](char c) { return c != 0; })) {
      k.notes.push_back("every repair of the kind is shared with an earlier fault's: its law is "
                        "fitted to all of them");
      fit_kind_repairs(k, kind_faults[kind], {}, o);
      return;
    }
    fit_kind_repairs(k, kind_faults[kind], skip, o);
  };

  // Clustering across kinds (PooledFit). Per node, the union of its repairs: a fault starting
  // inside it is left out of the stream (and its repair extends the union), the rest is up time.
  if (!fit.kinds.empty()) {
    PooledFit& pf = fit.pooled;
    std::vector<double> down_from(trace.node_names.size(), 0.0),
        up_at(trace.node_names.size(), 0.0);
    std::vector<NodeGroup> groups(trace.node_names.size());
    std::vector<int64_t> per_kind(fit.kinds.size(), 0);
    std::vector<double> times;
    std::vector<Interval> pooled_repairs;  // of the faults in `times`
    std::vector<const TraceFault*> pooled_faults;  // the faults in `times`
    double down_s = 0.0;
    for (const TraceFault& f : trace.faults) {
      const auto n = static_cast<size_t>(f.node);
      const double end = std::min(span, f.start_s + f.repair_s);
      if (f.start_s < up_at[n]) {
        up_at[n] = std::max(up_at[n], end);
        continue;
      }
      down_s += up_at[n] - down_from[n];  // the previous outage, now closed
      groups[n].exposure_s -= up_at[n] - down_from[n];
      down_from[n] = f.start_s;
      up_at[n] = std::max(f.start_s, end);
      times.push_back(f.start_s);
      pooled_faults.push_back(&f);
      Interval repair;
      repair.t_s = std::max(kMinTimeS, f.repair_s);
      repair.failed = !f.open;
      repair.limit_s = f.open ? repair.t_s : kInf;
      pooled_repairs.push_back(repair);
      ++per_kind[f.kind];
      ++groups[n].failures;
    }
    for (size_t n = 0; n < up_at.size(); ++n) {
      down_s += up_at[n] - down_from[n];
      groups[n].exposure_s += span - (up_at[n] - down_from[n]);
    }
    pf.events = static_cast<int64_t>(times.size());
    pf.times_s = times;
    pf.repairs = pooled_repairs;
    pf.rate = poisson_rate(pf.events, node_seconds - down_s);
    // Nodes without a fault: one weighted group, up the whole span.
    const int64_t untouched = fit.nodes - fit.nodes_seen;
    if (untouched > 0) groups.push_back({0, span, static_cast<double>(untouched)});
    if (pf.events > 0) {
      const auto dd = static_cast<double>(pf.events);
      const double up = pf.rate.exposure_s;
      const double ll0 = -dd * std::log(up / dd) - dd;  // independent exponential, one rate
      pf.lemons = fit_lemons(groups, ll0, fit.nodes);
      const double gain = pf.lemons.aic - (2.0 - 2.0 * ll0);
      pf.lemons.supported = pf.lemons.p_value < 0.01 && gain < 0.0 &&
                            pf.lemons.fraction * static_cast<double>(fit.nodes) >= 1.0;
      pf.lemon_gain = pf.lemons.supported ? gain : 0.0;
    }
    for (const int64_t c : per_kind)
      pf.shares.push_back(static_cast<double>(c) /
                          std::max<double>(1.0, static_cast<double>(pf.events)));
    for (const KindFit& k : fit.kinds) pf.apart_gain += k.aic_gain;
    if (pf.events >= o.min_events) {
      // The arrival candidates (one and two time scales, regimes of the arrivals) of a stream.
      const bool regimes = pf.events <= o.max_regime_faults;
      auto fit_arrivals = [&](const std::vector<double>& t, const std::vector<Interval>& r,
                              const std::string& stream, HawkesFit& one, HawkesFit& two,
                              RegimeFit& regime) {
        one = fit_hawkes(t, span, o.min_excitation_delay_s, o.bootstrap, o.seed, stream);
        two = fit_hawkes_two_scale(t, span, o.min_excitation_delay_s, o.bootstrap, o.seed,
                                   stream + "2");
        if (regimes) {
          regime = fit_hawkes_regime(t, r, span, o.min_excitation_delay_s, two,
                                     /*with_repairs=*/false, o.threads);
        }
      };
      auto best_arrival_gain = [](const HawkesFit& one, const HawkesFit& two,
                                  const RegimeFit& regime) {
        double best = 0.0;
        if (one.converged) best = std::min(best, one.delta_aic);
        if (two.converged) best = std::min(best, two.delta_aic);
        if (regime.converged) best = std::min(best, regime.kernels.delta_aic);
        return best;
      };
      fit_arrivals(times, pooled_repairs, "fit.pooled.hawkes", pf.one, pf.two, pf.regime);
      if (!regimes) {
        pf.regime_skipped = fmt::format(
            "regimes not fitted: {} pooled faults, more than the {} the regime fits take on "
            "(their cost grows with the faults, about 16 CPU-ms each; --max-regime-faults "
            "raises the bound)",
            pf.events, o.max_regime_faults);
      }
      // Incidents (PooledIncidents): the leaders' arrivals with sizes and delays as marks,
      // against every fault's arrivals, both on every pooled fault.
      PooledIncidents& inc = pf.incidents;
      std::vector<double> leader_times;
      std::vector<Interval> leader_repairs;
      std::vector<size_t> leader_of(times.size(), 0);  // index into the leaders
      std::vector<int64_t> leader_kinds(fit.kinds.size(), 0);
      {
        const FaultRuns runs = fault_runs(pooled_faults, o.burst_window_s);
        for (size_t n = 0; n < runs.first.size(); ++n) {
          const size_t i = runs.first[n];
          const size_t end = n + 1 < runs.first.size() ? runs.first[n + 1] : times.size();
          std::fill(leader_of.begin() + static_cast<std::ptrdiff_t>(i),
                    leader_of.begin() + static_cast<std::ptrdiff_t>(end), n);
          leader_times.push_back(times[i]);
          leader_repairs.push_back(pooled_repairs[i]);
          ++leader_kinds[static_cast<size_t>(pooled_faults[i]->kind)];
        }
        inc.sizes = multi_node_sizes(runs.sizes, inc.mean_size);
        inc.incidents = static_cast<int64_t>(leader_times.size());
        inc.multi = static_cast<int64_t>(inc.sizes.size());
        inc.partners = static_cast<int64_t>(runs.delays_s.size());
        inc.probability = inc.incidents > 0 ? static_cast<double>(inc.multi) /
                                                  static_cast<double>(inc.incidents)
                                            : 0.0;
        inc.marks = incident_marks(runs.sizes, runs.delays_s, o.burst_window_s, resolution_s,
                                   o.min_excitation_delay_s);
        // The leaders' Poisson process against every fault's, over the span (the Hawkes
        // candidates' baselines): the marks then give the partners' times.
        const auto all = static_cast<double>(times.size());
        const auto first = static_cast<double>(leader_times.size());
        const double ll_all = all * std::log(all / span) - all;
        const double ll_first = first * std::log(first / span) - first;
        inc.marks.gain =
            2.0 * inc.marks.parameters - 2.0 * (inc.marks.log_likelihood + ll_first - ll_all);
      }
      inc.fitted = inc.multi >= 3 && inc.incidents >= o.min_events;
      if (inc.fitted) {
        fit_arrivals(leader_times, leader_repairs, "fit.pooled.incidents", inc.one, inc.two,
                     inc.regime);
        for (HawkesFit* h : {&inc.one, &inc.two, &inc.regime.kernels}) {
          h->delta_aic += inc.marks.gain;
        }
        inc.best_leaders_gain = best_arrival_gain(inc.one, inc.two, inc.regime);
        inc.best_faults_gain = best_arrival_gain(pf.one, pf.two, pf.regime);
        inc.chosen = inc.best_leaders_gain < inc.best_faults_gain;
        if (inc.chosen) {
          // The leaders' candidates take the pooled fits' place; every fault's are reported.
          std::swap(pf.one, inc.one);
          std::swap(pf.two, inc.two);
          std::swap(pf.regime, inc.regime);
          pf.shares.clear();
          for (const int64_t c : leader_kinds) {
            pf.shares.push_back(static_cast<double>(c) / static_cast<double>(inc.incidents));
          }
        }
      }
      const std::vector<double>& arrival_times = inc.chosen ? leader_times : times;
      const std::vector<Interval>& arrival_repairs = inc.chosen ? leader_repairs : pooled_repairs;
      if (regimes) {
        pf.regime_repairs = fit_hawkes_regime_repairs(arrival_times, arrival_repairs, span,
                                                      o.min_excitation_delay_s, pf.regime,
                                                      o.threads);
        if (inc.chosen) pf.regime_repairs.kernels.delta_aic += inc.marks.gain;
      }
      // The cluster's rate over all node-time (the engine places each fault on a node that is
      // up): the incidents' first faults when incidents are chosen (the burst adds the rest).
      pf.one.rate_per_s = pf.two.rate_per_s = pf.regime.kernels.rate_per_s =
          pf.regime_repairs.kernels.rate_per_s =
              static_cast<double>(arrival_times.size()) / node_seconds;
      inc.one.rate_per_s = inc.two.rate_per_s = inc.regime.kernels.rate_per_s =
          static_cast<double>(inc.chosen ? times.size() : leader_times.size()) / node_seconds;
      // The lowest AIC gain wins; ties keep the simpler model (kinds apart, then one scale).
      double best = pf.apart_gain;
      if (pf.one.converged && pf.one.delta_aic + pf.lemon_gain < best) {
        best = pf.one.delta_aic + pf.lemon_gain;
        pf.chosen_scales = 1;
      }
      if (pf.two.converged && pf.two.delta_aic + pf.lemon_gain < best) {
        best = pf.two.delta_aic + pf.lemon_gain;
        pf.chosen_scales = 2;
      }
      if (pf.regime.converged && pf.regime.kernels.delta_aic + pf.lemon_gain < best) {
        best = pf.regime.kernels.delta_aic + pf.lemon_gain;
        pf.chosen_scales = 2;
        pf.regime_chosen = true;
      }
      // Repairs by state only where they gain over the best of the rest (whose repairs are
      // independent of the arrivals, measured as one RepairMixture).
      if (pf.regime_repairs.converged &&
          pf.regime_repairs.kernels.delta_aic + pf.lemon_gain < best) {
        pf.chosen_scales = 2;
        pf.regime_chosen = false;
        pf.regime_repairs_chosen = true;
      }
      // Repairs that wait for a maintenance visit, written with the laws per state only (fit.h):
      // their replayed repairs then leave out the deferred faults', which the visits replace.
      // Visits whose waits the log contradicts are not written: the deferred faults' repairs
      // are then replayed with the others', which keeps their down time.
      pf.deferred = fit_deferred_repairs(times, pooled_repairs, span,
                                         DeferredRepairFit::kWaitDraws, o.seed);
      pf.deferred_chosen =
          pf.deferred.supported && pf.deferred.waits_fit && pf.regime_repairs_chosen;
      // Faults of one incident share a repair: written the same way, the laws per state then
      // replay the repairs of the incidents' first faults only.
      pf.shared = fit_shared_repairs(times, pooled_repairs, o.burst_window_s);
      pf.shared_chosen = pf.shared.supported && pf.chosen_scales > 0;
      if (pf.shared_chosen && !pf.regime_repairs_chosen) {
        // The pooled process draws repairs from the kinds' laws: refitted without the shared
        // faults' repairs, which the engine takes from the previous failure.
        std::set<const TraceFault*> shared;
        for (size_t i = 0; i < pooled_faults.size(); ++i) {
          if (pf.shared.is_shared[i] != 0) shared.insert(pooled_faults[i]);
        }
        for (size_t kind = 0; kind < fit.kinds.size(); ++kind) {
          std::vector<char> skip(kind_faults[kind].size(), 0);
          for (size_t x = 0; x < skip.size(); ++x) {
            skip[x] = static_cast<char>(shared.count(kind_faults[kind][x]) > 0);
          }
          refit_repairs(kind, skip);
        }
      }
      if (pf.deferred_chosen || pf.shared_chosen || (inc.chosen && regimes)) {
        // The replayed repairs per state: every pooled fault's (a partner's in its leader's
        // state), the deferred and the shared ones left out.
        std::vector<char> skip(times.size(), 0);
        for (size_t i = 0; i < skip.size(); ++i) {
          skip[i] = static_cast<char>((pf.deferred_chosen && pf.deferred.is_deferred[i] != 0) ||
                                      (pf.shared_chosen && pf.shared.is_shared[i] != 0));
        }
        std::vector<double> by_fault;
        if (inc.chosen) {
          const std::vector<double>& p = pf.regime_repairs.high_posterior;
          by_fault.assign(times.size(), 0.0);
          for (size_t i = 0; i < times.size(); ++i) {
            if (leader_of[i] < p.size()) by_fault[i] = p[leader_of[i]];
          }
        }
        fit_internal::state_values(pooled_repairs,
                                   inc.chosen ? by_fault : pf.regime_repairs.high_posterior, skip,
                                   pf.regime_repairs.state_values_s);
      }
      if (pf.regime_repairs_chosen) {
        pf.regime_repairs.kernels.chosen = true;
      } else if (pf.regime_chosen) {
        pf.regime.kernels.chosen = true;
      } else if (pf.chosen_scales == 1) {
        pf.one.chosen = true;
      } else if (pf.chosen_scales == 2) {
        pf.two.chosen = true;
      }
    }
  }
  // Kinds fitted apart: each kind's process shares repairs among its own faults.
  if (fit.pooled.chosen_scales == 0) {
    for (size_t kind = 0; kind < fit.kinds.size(); ++kind) {
      KindFit& k = fit.kinds[kind];
      k.shared_chosen = k.shared.supported;
      if (k.shared_chosen) refit_repairs(kind, k.shared.is_shared);
    }
  }
  return fit;
}

}  // namespace ntpsim::sim
