// fit_hawkes_regime: the pooled Hawkes process of two time scales whose immigrants are a
// two-state Markov-modulated Poisson process, with each fault's repair scaled by the state it
// starts in (fit.h states the model and the statistics).
//
// The likelihood of the fault times and repairs is computed exactly by the forward algorithm over
// the hidden state: between faults the state's probabilities (with the chance of no immigrant)
// evolve by exp((Q - diag(mu)) dt); at a fault each state's probability is multiplied by its
// intensity (its immigrant rate plus the excitation, which does not depend on the state) and its
// repair density. The excitation's compensator does not depend on the state either, so it is
// the Hawkes term of fit_hawkes_two_scale. The two-state chain is reversible, so Q - diag(mu) is
// similar to a symmetric matrix and its exponential comes from one Eigen eigen-decomposition per
// evaluation.
#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "sim/failures/fit.h"
#include "sim/failures/fit_internal.h"
#include "sim/scenario/process_means.h"

namespace ntpsim::sim {
namespace {

using namespace fit_internal;  // NOLINT(google-build-using-namespace): the shared helpers

struct RegimeParams {
  double mu = 0.0;  // the immigrants' time-average rate over the cluster, per second
  double n1 = 0.0, tau1 = 0.0, n2 = 0.0, tau2 = 0.0;
  double share = 0.0;           // long-run share of time in the high state
  double ratio = 1.0;           // high state's immigrant rate over the low state's
  double high_s = 0.0;          // mean high spell
  double log_scale = 0.0;       // ln(high repair median / low repair median)
  double m = 0.0, sigma = 1.0;  // low state's repairs: lognormal (ln median, sigma)
  Mixture law[2];               // repair laws per state (N = 18): low, high
};

double logit(double x) {
  return std::log(x / (1.0 - x));
}

// N = 8: the fault times only (repairs independent of the state); N = 11: with the repairs, one
// lognormal scaled by the state; N = 18: with a repair law per state (two mixtures of 5).
template <int N>
struct RegimeProblem {
  using Theta = Vec<N>;
  static constexpr bool kRepairs = N == 11;
  static constexpr bool kLaws = N == 18;
  const std::vector<double>* times;
  const std::vector<Interval>* repairs;
  double span = 0.0, tau_min = 0.0;

  // With a repair law per state, each state's repair term of every fault (log_mixture of the
  // state's law) for the last laws seen. The derivatives' central differences move one or two
  // coordinates at a time, so most evaluations repeat both states' laws, and these terms
  // (erfc for the censored repairs) are most of an evaluation's cost. A law is matched by its
  // bits, and the terms are the doubles log_mixture returns, so every result is unchanged.
  // Memory: kCachedLaws x 2 x faults doubles. Not thread-safe: threaded derivatives give each
  // thread its own copy of the problem (fit_internal.h).
  static constexpr int kCachedLaws = 16;
  struct RepairTerms {
    Mixture law;
    std::vector<double> terms;
  };
  struct LawCache {
    std::array<RepairTerms, kCachedLaws> entries;
    int filled = 0, next = 0;  // entries in use; the one to replace next (the oldest)
  };
  mutable LawCache law_cache[2] = {};

  const double* repair_terms(int st, const Mixture& x) const {
    LawCache& c = law_cache[st];
    for (int k = 0; k < c.filled; ++k) {
      if (std::memcmp(&c.entries[k].law, &x, sizeof(Mixture)) == 0) {
        return c.entries[k].terms.data();
      }
    }
    RepairTerms& e = c.entries[c.next];
    c.next = (c.next + 1) % kCachedLaws;
    c.filled = std::min(c.filled + 1, kCachedLaws);
    e.law = x;
    e.terms.resize(repairs->size());
    for (size_t i = 0; i < repairs->size(); ++i) {
      e.terms[i] = log_mixture(x, (*repairs)[i].t_s, (*repairs)[i].failed);
    }
    return e.terms.data();
  }

  // Unconstrained coordinates: ln mu; total branching 0.99 sigmoid, split by sigmoid; delays
  // ordered between the floor and the span (as fit_hawkes_two_scale); logit share; ln(ratio - 1)
  // (ratio > 1 orders the states, so the likelihood has no label-swapping twin); the high spell
  // between the floor and the span; ln of the repair scale; the repair law's mu and ln sigma.
  RegimeParams params(const Theta& th) const {
    RegimeParams p;
    p.mu = std::exp(th[0]);
    const double n = kMaxBranching * sigmoid(th[1]), w = sigmoid(th[2]);
    p.n1 = n * w;
    p.n2 = n * (1.0 - w);
    p.tau1 = tau_min + (span - tau_min) * sigmoid(th[3]);
    p.tau2 = p.tau1 + (span - p.tau1) * sigmoid(th[4]);
    p.share = sigmoid(th[5]);
    p.ratio = 1.0 + std::exp(th[6]);
    p.high_s = tau_min + (span - tau_min) * sigmoid(th[7]);
    if constexpr (kRepairs) {
      p.log_scale = th[8];
      p.m = th[9];
      p.sigma = std::exp(th[10]);
    }
    if constexpr (kLaws) {
      p.law[0] = mixture_at(th, 8);
      p.law[1] = mixture_at(th, 13);
    }
    return p;
  }
  Theta coordinate(const RegimeParams& p) const {
    Theta th = Theta::Zero();
    const double n = p.n1 + p.n2;
    th[0] = std::log(p.mu);
    th[1] = logit(n / kMaxBranching);
    th[2] = logit(p.n1 / n);
    th[3] = logit((p.tau1 - tau_min) / (span - tau_min));
    th[4] = logit((p.tau2 - p.tau1) / (span - p.tau1));
    th[5] = logit(p.share);
    th[6] = std::log(p.ratio - 1.0);
    th[7] = logit((p.high_s - tau_min) / (span - tau_min));
    if constexpr (kRepairs) {
      th[8] = p.log_scale;
      th[9] = p.m;
      th[10] = std::log(p.sigma);
    }
    if constexpr (kLaws) {
      set_mixture(th, 8, p.law[0]);
      set_mixture(th, 13, p.law[1]);
    }
    return th;
  }

  // The log-likelihood by the forward algorithm; with `posterior`, also each fault's chance
  // that its state was high given everything (the backward pass over the stored forward
  // probabilities and state factors).
  double log_likelihood(const RegimeParams& p, std::vector<double>* posterior = nullptr) const {
    const double low_rate = p.mu / (1.0 - p.share + p.share * p.ratio);
    const double rate[2] = {low_rate, low_rate * p.ratio};
    const double q_hl = 1.0 / p.high_s, q_lh = q_hl * p.share / (1.0 - p.share);
    // S = D M D^-1 with D = diag(sqrt(stationary law)) is symmetric (detailed balance).
    const double d0 = std::sqrt(1.0 - p.share), d1 = std::sqrt(p.share);
    Eigen::Matrix2d s;
    s << -q_lh - rate[0], q_lh * d0 / d1, q_lh * d0 / d1, -q_hl - rate[1];
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> eig(s);
    const Eigen::Matrix2d u = eig.eigenvectors();
    const Eigen::Vector2d lambda = eig.eigenvalues();
    // Row vector a times exp(M dt) = ((a D^-1) U e^(L dt) U^T) D.
    auto propagate = [&](Eigen::RowVector2d& a, double dt) {
      const Eigen::RowVector2d b(a[0] / d0, a[1] / d1);
      Eigen::RowVector2d c = b * u;
      c[0] *= std::exp(lambda[0] * dt);
      c[1] *= std::exp(lambda[1] * dt);
      const Eigen::RowVector2d e = c * u.transpose();
      a = Eigen::RowVector2d(e[0] * d0, e[1] * d1);
    };
    // Column vector v to exp(M dt) v = D^-1 U e^(L dt) U^T (D v).
    auto propagate_back = [&](Eigen::Vector2d& v, double dt) {
      Eigen::Vector2d c = u.transpose() * Eigen::Vector2d(v[0] * d0, v[1] * d1);
      c[0] *= std::exp(lambda[0] * dt);
      c[1] *= std::exp(lambda[1] * dt);
      const Eigen::Vector2d e = u * c;
      v = Eigen::Vector2d(e[0] / d0, e[1] / d1);
    };
    std::vector<Eigen::RowVector2d> alphas;
    std::vector<Eigen::Vector2d> factors;
    if (posterior != nullptr) {
      alphas.reserve(times->size());
      factors.reserve(times->size());
    }
    const double* law_terms[2] = {nullptr, nullptr};
    if constexpr (kLaws) {
      law_terms[0] = repair_terms(0, p.law[0]);
      law_terms[1] = repair_terms(1, p.law[1]);
    }
    Eigen::RowVector2d a(1.0 - p.share, p.share);
    const double b1 = 1.0 / p.tau1, b2 = 1.0 / p.tau2;
    const double log_norm = std::log(p.sigma * std::sqrt(2.0 * M_PI));
    double a1 = 0.0, a2 = 0.0, prev = 0.0, ll = 0.0;
    for (size_t i = 0; i < times->size(); ++i) {
      const double t = (*times)[i];
      propagate(a, t - prev);
      if (i > 0) {
        a1 = std::exp(-b1 * (t - prev)) * (1.0 + a1);
        a2 = std::exp(-b2 * (t - prev)) * (1.0 + a2);
      }
      const double excitation = p.n1 * b1 * a1 + p.n2 * b2 * a2;
      ll += p.n1 * std::expm1(-b1 * (span - t)) + p.n2 * std::expm1(-b2 * (span - t));
      double log_f[2];
      for (int st = 0; st < 2; ++st) {
        log_f[st] = std::log(rate[st] + excitation);
        if constexpr (kRepairs) {
          const Interval& r = (*repairs)[i];
          const double z = (std::log(r.t_s) - p.m - (st == 1 ? p.log_scale : 0.0)) / p.sigma;
          log_f[st] += r.failed ? -0.5 * z * z - log_norm - std::log(r.t_s) : log_normal_sf(z);
        }
        if constexpr (kLaws) log_f[st] += law_terms[st][i];
      }
      const double top = std::max(log_f[0], log_f[1]);
      const Eigen::Vector2d factor(std::exp(log_f[0] - top), std::exp(log_f[1] - top));
      a[0] *= factor[0];
      a[1] *= factor[1];
      const double sum = a.sum();
      ll += top + std::log(sum);
      a /= sum;
      if (posterior != nullptr) {
        alphas.push_back(a);
        factors.push_back(factor);
      }
      prev = t;
    }
    propagate(a, span - prev);
    ll += std::log(a.sum());
    if (posterior != nullptr && std::isfinite(ll)) {
      // beta_i: the chance of everything after fault i given its state (normalised), so the
      // state at fault i is alpha_i beta_i normalised.
      const size_t n = times->size();
      posterior->assign(n, 0.0);
      Eigen::Vector2d beta(1.0, 1.0);
      for (size_t i = n; i-- > 0;) {
        propagate_back(beta, (i + 1 < n ? (*times)[i + 1] : span) - (*times)[i]);
        beta /= beta.sum();
        const double lo = alphas[i][0] * beta[0], hi = alphas[i][1] * beta[1];
        (*posterior)[i] = hi / (lo + hi);
        beta = beta.cwiseProduct(factors[i]);
        beta /= beta.sum();
      }
    }
    return std::isfinite(ll) ? ll : -kInf;
  }
  double operator()(const Theta& th) const { return log_likelihood(params(th)); }
};

// Fills `out` from the maximum `th` (log-likelihood ll) of `f`: the parameters, the AIC gain over
// a model of AIC `reference_aic`, and 95% delta-method intervals.
template <int N>
void complete(const RegimeProblem<N>& f, const Vec<N>& th, double ll, double reference_aic,
              double span_s, double min_delay_s, int threads, RegimeFit& out) {
  using Problem = RegimeProblem<N>;
  using Theta = Vec<N>;
  constexpr int kParams = N;
  const RegimeParams p = f.params(th);
  out.log_likelihood = ll;
  HawkesFit& k = out.kernels;
  k.converged = out.converged;
  k.log_likelihood = ll;
  k.mu_per_s = p.mu;
  k.branching = p.n1;
  k.mean_delay_s = p.tau1;
  k.slow_branching = p.n2;
  k.slow_mean_delay_s = p.tau2;
  // Against `reference_aic`: independent faults (a Poisson process, 1 parameter), with repairs
  // also independent repairs (one lognormal, 2 more; or one RepairMixture, 5 more).
  k.delta_aic = (2.0 * kParams - 2.0 * ll) - reference_aic;
  k.ks_distance = k.ks_p = std::numeric_limits<double>::quiet_NaN();
  out.high_share = p.share;
  out.rate_ratio = p.ratio;
  out.high_mean_s = p.high_s;
  out.repair_scale = std::exp(p.log_scale);
  out.repair_sigma = Problem::kRepairs ? p.sigma : 0.0;
  // The engine scales each kind's repair law, fitted on the repairs of both states, by the
  // state's scale: high over low is the fitted scale, and the share of faults that start high
  // weights them to a mean of 1, so the kinds keep their fitted mean repair. That share is the
  // one the engine realises (process_means.h: immigrants and the failures they trigger, which
  // follow the chain as it moves), not the immigrants' own.
  const double high_faults = regime_high_failure_share(regime_process(out));
  out.high_fault_share = high_faults;
  out.low_repair_scale = 1.0 / (1.0 - high_faults + high_faults * out.repair_scale);
  out.high_repair_scale = out.low_repair_scale * out.repair_scale;

  // 95% intervals by the delta method on each parameter's unbounded scale, mapped back.
  Theta g;
  Mat<kParams> h;
  derivatives<kParams>(f, th, g, h, threads);
  // A coordinate on which the likelihood is flat (a delay at its floor, where the logit runs to
  // -infinity) has no information: it is held fixed at its estimate and the rest is inverted.
  Mat<kParams> info = -h;
  const double top = info.diagonal().maxCoeff();
  std::vector<int> free;
  for (int i = 0; i < kParams; ++i) {
    if (info(i, i) > 1e-9 * std::max(1.0, top)) free.push_back(i);
  }
  const auto m = static_cast<Eigen::Index>(free.size());
  Eigen::MatrixXd reduced(m, m);
  for (Eigen::Index i = 0; i < m; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) reduced(i, j) = info(free[i], free[j]);
  }
  const Eigen::LLT<Eigen::MatrixXd> llt(reduced);
  const bool invertible = m > 0 && llt.info() == Eigen::Success;
  Mat<kParams> cov = Mat<kParams>::Zero();
  if (invertible) {
    const Eigen::MatrixXd inv = llt.solve(Eigen::MatrixXd::Identity(m, m));
    for (Eigen::Index i = 0; i < m; ++i) {
      for (Eigen::Index j = 0; j < m; ++j) cov(free[i], free[j]) = inv(i, j);
    }
  }
  auto interval = [&](auto&& value, auto&& to_scale, auto&& from_scale, double lo_bound,
                      double hi_bound, double& lo_out, double& hi_out) {
    if (!invertible) {
      lo_out = lo_bound;
      hi_out = hi_bound;
      return;
    }
    Theta grad;
    constexpr double e = 1e-4;
    for (int i = 0; i < kParams; ++i) {
      const Theta u = Theta::Unit(i) * e;
      grad[i] = (to_scale(value(f.params(th + u))) - to_scale(value(f.params(th - u)))) / (2 * e);
    }
    for (int i = 0; i < kParams; ++i) {
      if (grad[i] != 0.0 && std::find(free.begin(), free.end(), i) == free.end()) {
        lo_out = lo_bound;  // it depends on a coordinate without information: its whole range
        hi_out = hi_bound;
        return;
      }
    }
    const double se = std::sqrt(std::max(0.0, grad.dot(cov * grad)));
    const double c = to_scale(value(p));
    lo_out = from_scale(c - kZ95 * se);
    hi_out = from_scale(c + kZ95 * se);
  };
  const auto n_to = [](double n) { return logit(n / kMaxBranching); };
  const auto n_from = [](double x) { return kMaxBranching * sigmoid(x); };
  const auto t_to = [&](double t) { return logit((t - min_delay_s) / (span_s - min_delay_s)); };
  const auto t_from = [&](double x) { return min_delay_s + (span_s - min_delay_s) * sigmoid(x); };
  const auto ln = [](double x) { return std::log(x); };
  const auto ex = [](double x) { return std::exp(x); };
  const auto ratio_to = [](double r) { return std::log(r - 1.0); };
  const auto ratio_from = [](double x) { return 1.0 + std::exp(x); };
  interval([](const RegimeParams& q) { return q.n1; }, n_to, n_from, 0.0, kMaxBranching,
           k.branching_lo, k.branching_hi);
  interval([](const RegimeParams& q) { return q.n2; }, n_to, n_from, 0.0, kMaxBranching,
           k.slow_branching_lo, k.slow_branching_hi);
  interval([](const RegimeParams& q) { return q.tau1; }, t_to, t_from, min_delay_s, span_s,
           k.mean_delay_lo_s, k.mean_delay_hi_s);
  interval([](const RegimeParams& q) { return q.tau2; }, t_to, t_from, min_delay_s, span_s,
           k.slow_mean_delay_lo_s, k.slow_mean_delay_hi_s);
  interval([](const RegimeParams& q) { return q.share; }, logit, sigmoid, 0.0, 1.0,
           out.high_share_lo, out.high_share_hi);
  interval([](const RegimeParams& q) { return q.ratio; }, ratio_to, ratio_from, 1.0, kInf,
           out.rate_ratio_lo, out.rate_ratio_hi);
  interval([](const RegimeParams& q) { return q.high_s; }, t_to, t_from, min_delay_s, span_s,
           out.high_mean_lo_s, out.high_mean_hi_s);
  if constexpr (Problem::kRepairs) {
    interval([](const RegimeParams& q) { return std::exp(q.log_scale); }, ln, ex, 0.0, kInf,
             out.repair_scale_lo, out.repair_scale_hi);
  } else {
    out.repair_scale_lo = out.repair_scale_hi = 1.0;
  }
  if constexpr (Problem::kLaws) {
    out.state_repairs = true;
    f.log_likelihood(p, &out.high_posterior);
    state_values(*f.repairs, out.high_posterior, {}, out.state_values_s);
    for (int st = 0; st < 2; ++st) {
      RepairMixture& r = out.state_repair[st];
      const Mixture& x = p.law[st];
      r.converged = out.converged;
      r.short_share = x.p;
      r.short_median_s = std::exp(x.m1);
      r.short_sigma = x.s1;
      r.long_median_s = std::exp(x.m2);
      r.long_sigma = x.s2;
      auto mean = [st](const RegimeParams& q) {
        const Mixture& y = q.law[st];
        return y.p * std::exp(y.m1 + 0.5 * y.s1 * y.s1) +
               (1 - y.p) * std::exp(y.m2 + 0.5 * y.s2 * y.s2);
      };
      r.mean_s = mean(p);
      interval([st](const RegimeParams& q) { return q.law[st].p; }, logit, sigmoid, 0.0, 1.0,
               r.short_share_lo, r.short_share_hi);
      interval([st](const RegimeParams& q) { return std::exp(q.law[st].m1); }, ln, ex, 0.0, kInf,
               r.short_median_lo_s, r.short_median_hi_s);
      interval([st](const RegimeParams& q) { return std::exp(q.law[st].m2); }, ln, ex, 0.0, kInf,
               r.long_median_lo_s, r.long_median_hi_s);
      interval(mean, ln, ex, 0.0, kInf, r.mean_lo_s, r.mean_hi_s);
    }
  }
}

template <int N>
RegimeFit fit_regime(const std::vector<double>& times_s, const std::vector<Interval>& repairs,
                     double span_s, double min_delay_s, const HawkesFit& start, int threads) {
  using Problem = RegimeProblem<N>;
  using Theta = Vec<N>;
  constexpr int kParams = N;
  RegimeFit out;
  out.with_repairs = Problem::kRepairs;
  out.kernels.scales = 2;
  out.kernels.events = static_cast<int64_t>(times_s.size());
  if (times_s.size() < 2 || (Problem::kRepairs && repairs.size() != times_s.size()) ||
      !(span_s > 2 * min_delay_s) || !(min_delay_s > 0) || !start.converged) {
    return out;
  }
  const auto d = static_cast<double>(times_s.size());
  out.kernels.poisson_log_likelihood = d * std::log(d / span_s) - d;
  // Repairs of (nearly) one length make the lognormal's likelihood degenerate (sigma -> 0); the
  // repair-law candidates stop at the same shape (0.05), and so does this model.
  LawFit iid;
  if constexpr (Problem::kRepairs) {
    iid = fit_lognormal(repairs);
    if (!iid.converged || !(iid.a >= 0.05)) return out;
    out.iid_repair_log_likelihood = iid.log_likelihood;
  }
  const Problem f{&times_s, &repairs, span_s, min_delay_s};

  // Start from the two-scale fit's kernels and the independent repair law, over a grid of
  // regimes (a few high spells of days to months, a few rate ratios and repair scales).
  Theta th = Theta::Zero();
  double ll = -kInf;
  constexpr double kDay = 86400.0;
  for (const double share : {0.05, 0.15, 0.3}) {
    for (const double ratio : {2.0, 4.0, 8.0}) {
      for (const double high_days : {7.0, 30.0}) {
        for (const double scale :
             Problem::kRepairs ? std::vector<double>{1.0, 2.0} : std::vector<double>{1.0}) {
          RegimeParams p;
          p.mu = start.mu_per_s;
          p.n1 = std::max(1e-3, start.branching);
          p.n2 = std::max(1e-3, start.slow_branching);
          p.tau1 = std::clamp(start.mean_delay_s, min_delay_s * 1.01, span_s * 0.4);
          p.tau2 = std::clamp(start.slow_mean_delay_s, p.tau1 * 1.01, span_s * 0.9);
          p.share = share;
          p.ratio = ratio;
          p.high_s = std::clamp(high_days * kDay, min_delay_s * 1.5, span_s * 0.5);
          p.log_scale = std::log(scale);
          p.m = iid.b;
          p.sigma = Problem::kRepairs ? iid.a : 1.0;
          const Theta c = f.coordinate(p);
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
  out.converged = newton_maximise<kParams>(f, th, ll, d, threads);
  const double reference_aic =
      Problem::kRepairs ? 2.0 * 3 - 2.0 * (out.kernels.poisson_log_likelihood + iid.log_likelihood)
                        : 2.0 * 1 - 2.0 * out.kernels.poisson_log_likelihood;
  complete<N>(f, th, ll, reference_aic, span_s, min_delay_s, threads, out);
  return out;
}

// The arrivals of `start` (a converged times-only fit) with a repair law per state: each
// state's mixture starts as the posterior-weighted fit of the repairs, repeated while the
// posteriors (now with the repair laws) move, then Newton's method on all 18 parameters.
RegimeFit fit_regime_laws(const std::vector<double>& times_s, const std::vector<Interval>& repairs,
                          double span_s, double min_delay_s, const RegimeFit& start, int threads) {
  using Problem = RegimeProblem<18>;
  RegimeFit out;
  out.kernels.scales = 2;
  out.kernels.events = static_cast<int64_t>(times_s.size());
  if (!start.converged || repairs.size() != times_s.size() || times_s.size() < 10) return out;
  out.iid_repairs = fit_repair_mixture(repairs);
  if (!out.iid_repairs.converged) return out;
  const auto d = static_cast<double>(times_s.size());
  out.kernels.poisson_log_likelihood = d * std::log(d / span_s) - d;
  const Problem f{&times_s, &repairs, span_s, min_delay_s};
  RegimeParams p;
  p.mu = start.kernels.mu_per_s;
  p.n1 = start.kernels.branching;
  p.tau1 = start.kernels.mean_delay_s;
  p.n2 = start.kernels.slow_branching;
  p.tau2 = start.kernels.slow_mean_delay_s;
  p.share = start.high_share;
  p.ratio = start.rate_ratio;
  p.high_s = start.high_mean_s;
  const RepairMixture& iid = out.iid_repairs;
  const Mixture one{iid.short_share, std::log(iid.short_median_s), iid.short_sigma,
                    std::log(iid.long_median_s), iid.long_sigma};
  p.law[0] = p.law[1] = one;
  // Kept inside the coordinates' ranges (a fit at a bound maps to an infinite coordinate).
  auto keep = [&](RegimeParams& q) {
    const double lo_n = 1e-6, hi_n = kMaxBranching * (1 - 1e-6);
    q.n1 = std::clamp(q.n1, lo_n, hi_n);
    q.n2 = std::clamp(q.n2, lo_n, hi_n - q.n1);
    q.tau1 = std::clamp(q.tau1, min_delay_s * (1 + 1e-6), span_s * (1 - 1e-3));
    q.tau2 = std::clamp(q.tau2, q.tau1 * (1 + 1e-6), span_s * (1 - 1e-6));
    q.share = std::clamp(q.share, 1e-6, 1 - 1e-6);
    q.ratio = std::max(q.ratio, 1 + 1e-6);
    q.high_s = std::clamp(q.high_s, min_delay_s * (1 + 1e-6), span_s * (1 - 1e-6));
  };
  keep(p);
  std::vector<double> logs, posterior, w(repairs.size());
  for (const Interval& r : repairs) {
    logs.push_back(std::log(std::max(r.t_s, kShortestRepairS / 2)));
  }
  for (int round = 0; round < 20; ++round) {
    if (!std::isfinite(f.log_likelihood(p, &posterior))) break;
    for (int st = 0; st < 2; ++st) {
      for (size_t i = 0; i < w.size(); ++i) w[i] = st == 1 ? posterior[i] : 1.0 - posterior[i];
      Mixture x = p.law[st];
      em_mixture(logs, w, x);
      p.law[st] = x;
    }
  }
  Vec<18> th = f.coordinate(p);
  double ll = f(th);
  if (!std::isfinite(ll)) return out;
  out.converged = newton_maximise<18>(f, th, ll, d, threads);
  complete<18>(f, th, ll, 2.0 * 6 - 2.0 * (out.kernels.poisson_log_likelihood + iid.log_likelihood),
               span_s, min_delay_s, threads, out);
  return out;
}

}  // namespace

RegimeFit fit_hawkes_regime_repairs(const std::vector<double>& times_s,
                                    const std::vector<Interval>& repairs, double span_s,
                                    double min_delay_s, const RegimeFit& start, int threads) {
  return fit_regime_laws(times_s, repairs, span_s, min_delay_s, start, threads);
}

FailureProcess regime_process(const RegimeFit& f) {
  FailureProcess p;
  p.distribution = "hawkes";
  p.branching = f.kernels.branching;
  p.excitation_mean_s = f.kernels.mean_delay_s;
  p.slow_branching = f.kernels.slow_branching;
  p.slow_excitation_mean_s = f.kernels.slow_mean_delay_s;
  p.regime_high_share = f.high_share;
  p.regime_rate_ratio = f.rate_ratio;
  p.regime_high_mean_s = f.high_mean_s;
  p.regime_low_repair_scale = f.low_repair_scale;
  p.regime_high_repair_scale = f.high_repair_scale;
  return p;
}

RegimeFit fit_hawkes_regime(const std::vector<double>& times_s,
                            const std::vector<Interval>& repairs, double span_s, double min_delay_s,
                            const HawkesFit& start, bool with_repairs, int threads) {
  return with_repairs ? fit_regime<11>(times_s, repairs, span_s, min_delay_s, start, threads)
                      : fit_regime<8>(times_s, repairs, span_s, min_delay_s, start, threads);
}

}  // namespace ntpsim::sim
