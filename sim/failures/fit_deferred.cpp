// fit_deferred_repairs: repairs that wait for a maintenance visit (fit.h, DeferredRepairFit), and
// the per-state values a regime fit replays (fit_internal.h, state_values), which leave the
// deferred faults' repairs out once the visits are fitted; the resolution of repair ends and the exact binomial interval both fits share.
#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <numeric>
#include <span>
#include <tuple>
#include <vector>

#include "models/base/random.h"
#include "sim/failures/fit.h"
#include "sim/failures/fit_internal.h"

namespace ntpsim::sim {
namespace fit_internal {

void state_values(const std::vector<Interval>& repairs, const std::vector<double>& posterior,
                  const std::vector<char>& skip, std::vector<double> (&out)[2]) {
  auto skipped = [&](size_t i) { return !skip.empty() && skip[i] != 0; };
  out[0].clear();
  out[1].clear();
  for (size_t i = 0; i < repairs.size() && i < posterior.size(); ++i) {
    if (!skipped(i)) out[posterior[i] > 0.5 ? 1 : 0].push_back(repairs[i].t_s);
  }
  for (int st = 0; st < 2; ++st) {
    if (!out[st].empty()) continue;
    // No repair is more probable in this state: it replays the one most probable in it.
    size_t best = posterior.size();
    for (size_t i = 0; i < posterior.size() && i < repairs.size(); ++i) {
      if (skipped(i)) continue;
      const double a = st == 1 ? posterior[i] : 1 - posterior[i];
      if (best == posterior.size() || a > (st == 1 ? posterior[best] : 1 - posterior[best])) {
        best = i;
      }
    }
    if (best < posterior.size()) out[st].push_back(repairs[best].t_s);
  }
  for (auto& v : out) std::sort(v.begin(), v.end());
}

double end_resolution_s(std::span<const double> starts_s) {
  // The coarsest of 1 s, 1 min and 1 h that every start is a whole multiple of, 0 when none is.
  double unit = 0.0;
  for (const double u : {1.0, 60.0, 3600.0}) {
    const bool whole = std::all_of(starts_s.begin(), starts_s.end(), [u](double t) {
      const double k = std::round(t / u);
      return std::fabs(t - k * u) <= std::max(1e-3, 1e-12 * std::fabs(t));
    });
    if (whole) unit = u;
  }
  return std::max(DeferredRepairFit::kResolutionS, unit);
}

std::pair<double, double> clopper_pearson_95(int64_t k, int64_t n) {
  using boost::math::binomial_distribution;
  const auto trials = static_cast<double>(n), successes = static_cast<double>(k);
  return {binomial_distribution<double>::find_lower_bound_on_p(trials, successes, 0.025),
          binomial_distribution<double>::find_upper_bound_on_p(trials, successes, 0.025)};
}

}  // namespace fit_internal

namespace {

using namespace fit_internal;  // NOLINT(google-build-using-namespace): the shared helpers

Mixture working(const RepairMixture& r) {
  Mixture x;
  x.p = r.short_share;
  x.m1 = std::log(r.short_median_s);
  x.s1 = r.short_sigma;
  x.m2 = std::log(r.long_median_s);
  x.s2 = r.long_sigma;
  return x;
}

// A repair's term on its own: the mixture's chance of the `resolution_s` it ended in (its
// density times the resolution) for a closed repair of at least kShortestRepairS, else
// log_mixture's chance.
double own_term(const Mixture& x, const Interval& r, double resolution_s) {
  const double l = log_mixture(x, r.t_s, r.failed);
  return r.failed && r.t_s >= kShortestRepairS ? l + std::log(resolution_s) : l;
}

// A candidate visit: the first of a run of repair ends within the resolution of one another,
// and the faults whose repairs end in the run.
struct Candidate {
  double at_s = 0.0;
  std::vector<size_t> faults;
};

struct Evaluation {
  bool valid = false;
  double log_likelihood = 0.0;
  std::vector<char> deferred;  // per repair
  int64_t deferred_count = 0;
  int visits = 0;
  double waiting_s = 0.0;  // the union of the deferred faults' repairs
  double watched_s = 0.0;  // the visits' watched stretches (seen_from)
};

// When a visit's deferred faults (their starts, sorted) could first be told from repairs that
// end on their own: once two of them wait, started more than RepairBatches::kBatchSpreadS apart
// (a candidate's own rule). The visits seen are selected by that rule, so the time from the
// first start is longer than a visit gap; from this moment on the wait is a whole gap's (the
// visits are memoryless) whatever came before. Returns the visit's time when the rule never
// holds.
double seen_from(const std::vector<double>& member_starts, double visit_s) {
  for (size_t k = 1; k < member_starts.size(); ++k) {
    if (member_starts[k] - member_starts[0] > RepairBatches::kBatchSpreadS) return member_starts[k];
  }
  return visit_s;
}

// The likelihood (fit.h) with the visits `chosen`: each visit's faults that see no other chosen
// visit between their start and it are deferred; a visit left with fewer than 2 of them, or
// with none started more than RepairBatches::kBatchSpreadS after the first, is not a valid
// choice (one repair's own end, or one burst's). O(deferred x log visits + faults).
Evaluation evaluate(const std::vector<Candidate>& candidates, const std::vector<size_t>& chosen,
                    const std::vector<double>& starts_s, const std::vector<double>& own,
                    double own_total, double resolution_s) {
  Evaluation e;
  const size_t n = own.size();
  e.deferred.assign(n, 0);  // one memset; the likelihood below visits only the deferred
  std::vector<double> at;  // the chosen visits' times, sorted
  for (const size_t c : chosen) at.push_back(candidates[c].at_s);
  std::sort(at.begin(), at.end());
  std::vector<std::pair<double, double>> waits;
  std::vector<double> member_starts;
  for (const size_t c : chosen) {
    const Candidate& v = candidates[c];
    member_starts.clear();
    for (const size_t i : v.faults) {
      // Another chosen visit after the start and before this one would have closed the fault.
      const auto first_after = std::upper_bound(at.begin(), at.end(), starts_s[i]);
      const bool seen_other = first_after != at.end() && *first_after < v.at_s;
      if (seen_other) continue;
      e.deferred[i] = 1;
      waits.emplace_back(starts_s[i], v.at_s);
      member_starts.push_back(starts_s[i]);
    }
    if (member_starts.size() < 2) return e;
    std::sort(member_starts.begin(), member_starts.end());
    // A visit whose own deferred faults a candidate's rule would not take is not a valid choice.
    // Another chosen visit inside this one's watched stretch would have closed its faults, so
    // the stretches of the chosen visits do not overlap.
    const double seen_s = seen_from(member_starts, v.at_s);
    if (!(seen_s < v.at_s)) return e;
    e.watched_s += v.at_s - seen_s;
    ++e.visits;
    e.deferred_count += static_cast<int64_t>(member_starts.size());
  }
  std::sort(waits.begin(), waits.end());
  double lo = 0.0, hi = -1.0;
  for (const auto& [a, b] : waits) {
    if (a > hi) {
      if (hi > lo) e.waiting_s += hi - lo;
      lo = a;
      hi = b;
    } else {
      hi = std::max(hi, b);
    }
  }
  if (hi > lo) e.waiting_s += hi - lo;
  const double d = static_cast<double>(e.deferred_count), nd = static_cast<double>(n);
  const double q = d / nd;
  // The others' terms: all of them less the deferred faults' (no pass over every fault).
  double own_deferred = 0.0;
  for (const size_t c : chosen) {
    for (const size_t i : candidates[c].faults) own_deferred += e.deferred[i] != 0 ? own[i] : 0.0;
  }
  double ll = (nd - d) * (q > 0.0 ? std::log1p(-q) : 0.0) + (own_total - own_deferred);
  if (e.visits > 0) {
    if (!(e.waiting_s > 0.0) || q >= 1.0) return e;
    const double v = static_cast<double>(e.visits);
    ll += d * std::log(q) + v * std::log(v / e.waiting_s * resolution_s) - v;
  }
  e.log_likelihood = ll;
  e.valid = true;
  return e;
}

// The wait check (fit.h): `draws` logs of the fitted visits over the log's fault starts. Only
// the visits that close a deferred fault are drawn: the visits being a Poisson process, the
// first after a start that no earlier deferred fault waits past is that start plus an
// exponential gap, whatever visits came before. So a draw costs one step per fault, however
// short the fitted interval (visits every second over a year would otherwise be 3e7 a draw).
void check_waits(std::vector<double> starts, double span_s, int draws, uint64_t seed,
                 DeferredRepairFit& f) {
  std::sort(starts.begin(), starts.end());
  std::vector<double> means, members;
  int at_least = 0, at_most = 0;
  for (int b = 0; b < draws; ++b) {
    Stream s(seed, static_cast<uint64_t>(b), "fit.deferred.waits");
    double wait = 0.0;
    int64_t seen = 0;
    double visit = -kInf;  // the visit the deferred faults in `members` wait for
    members.clear();
    // A visit inside the log closes its faults; it is seen by the candidate rule.
    auto close = [&] {
      if (visit < span_s && members.size() >= 2 && seen_from(members, visit) < visit) {
        for (const double start : members) wait += visit - start;
        seen += static_cast<int64_t>(members.size());
      }
      members.clear();
    };
    for (const double start : starts) {
      if (!s.bernoulli(f.share)) continue;
      if (!(start < visit)) {
        close();
        visit = start + s.exponential(f.visit_interval_s);
      }
      members.push_back(start);
    }
    close();
    if (seen == 0) continue;
    const double mean = wait / static_cast<double>(seen);
    means.push_back(mean);
    at_least += mean >= f.mean_wait_s ? 1 : 0;
    at_most += mean <= f.mean_wait_s ? 1 : 0;
  }
  f.wait_draws = static_cast<int>(means.size());
  if (draws <= 0) return;
  // Over every draw: one that sees no visit is as far from the log (which saw some) either way.
  f.wait_p = std::min(1.0, 2.0 * (1.0 + std::min(at_least, at_most)) / (draws + 1.0));
  f.waits_fit = f.wait_p >= 0.05;
  if (means.empty()) return;
  std::sort(means.begin(), means.end());
  const auto quantile = [&](double q) {
    const double at = q * static_cast<double>(means.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(at));
    const size_t hi = std::min(lo + 1, means.size() - 1);
    return means[lo] + (at - static_cast<double>(lo)) * (means[hi] - means[lo]);
  };
  f.model_wait_s = std::accumulate(means.begin(), means.end(), 0.0) /
                   static_cast<double>(means.size());
  f.model_wait_lo_s = quantile(0.025);
  f.model_wait_hi_s = quantile(0.975);
}

}  // namespace

DeferredRepairFit fit_deferred_repairs(const std::vector<double>& starts_s,
                                       const std::vector<Interval>& repairs, double span_s,
                                       int draws, uint64_t seed) {
  DeferredRepairFit out;
  const size_t n = std::min(starts_s.size(), repairs.size());
  out.is_deferred.assign(n, 0);
  if (n < 10) {
    out.not_fitted = "fewer than 10 repairs";
    return out;
  }
  const RepairMixture all = fit_repair_mixture(repairs);
  if (!all.converged) {
    out.not_fitted = "one two-lognormal law for every repair did not converge";
    return out;
  }
  // Ends closer than the log's time unit cannot be told apart: the resolution is the coarser.
  const double resolution = end_resolution_s(std::span<const double>(starts_s.data(), n));
  out.resolution_s = resolution;
  const Mixture base = working(all);
  std::vector<double> own(n);
  for (size_t i = 0; i < n; ++i) own[i] = own_term(base, repairs[i], resolution);
  const double own_total = std::accumulate(own.begin(), own.end(), 0.0);

  // Candidate visits: runs of closed repairs' ends within the resolution of one another.
  std::vector<size_t> by_end;
  auto end_of = [&](size_t i) { return starts_s[i] + repairs[i].t_s; };
  // Ends at the log's end are where it stopped looking (a log may write the span as the end of
  // every repair still open), not visits.
  for (size_t i = 0; i < n; ++i) {
    if (repairs[i].failed && end_of(i) < span_s - resolution) by_end.push_back(i);
  }
  std::sort(by_end.begin(), by_end.end(),
            [&](size_t a, size_t b) { return end_of(a) < end_of(b); });
  std::vector<Candidate> candidates;
  for (size_t k = 0; k < by_end.size();) {
    size_t j = k + 1;
    while (j < by_end.size() &&
           end_of(by_end[j]) - end_of(by_end[j - 1]) <= resolution) {
      ++j;
    }
    Candidate c;
    c.at_s = end_of(by_end[k]);
    double first = kInf, last = -kInf;
    for (size_t m = k; m < j; ++m) {
      c.faults.push_back(by_end[m]);
      first = std::min(first, starts_s[by_end[m]]);
      last = std::max(last, starts_s[by_end[m]]);
    }
    if (c.faults.size() >= 2 && last - first > RepairBatches::kBatchSpreadS) {
      candidates.push_back(std::move(c));
    }
    k = j;
  }
  out.candidates = static_cast<int>(candidates.size());
  // The greedy search costs candidates x visits evaluations: only the largest candidates (the
  // most faults ending together; the earlier on ties) are considered.
  if (candidates.size() > static_cast<size_t>(DeferredRepairFit::kMaxCandidates)) {
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) {
                       return a.faults.size() > b.faults.size();
                     });
    candidates.resize(static_cast<size_t>(DeferredRepairFit::kMaxCandidates));
  }

  // Greedy: add the visit that raises the likelihood most, while one does.
  std::vector<size_t> chosen;
  Evaluation best = evaluate(candidates, chosen, starts_s, own, own_total, resolution);
  for (;;) {
    size_t pick = candidates.size();
    Evaluation top;
    for (size_t c = 0; c < candidates.size(); ++c) {
      if (std::find(chosen.begin(), chosen.end(), c) != chosen.end()) continue;
      std::vector<size_t> trial = chosen;
      trial.push_back(c);
      Evaluation e = evaluate(candidates, trial, starts_s, own, own_total, resolution);
      if (e.valid && e.log_likelihood > best.log_likelihood + 1e-9 &&
          (pick == candidates.size() || e.log_likelihood > top.log_likelihood)) {
        pick = c;
        top = std::move(e);
      }
    }
    if (pick == candidates.size()) break;
    chosen.push_back(pick);
    best = std::move(top);
  }

  // Without visits: one mixture for every repair. With them: the others' mixture refitted.
  const double iid = own_total;
  out.iid_log_likelihood = iid;
  out.log_likelihood = iid;
  if (best.visits == 0) return out;
  std::vector<Interval> rest;
  for (size_t i = 0; i < n; ++i) {
    if (best.deferred[i] == 0) rest.push_back(repairs[i]);
  }
  out.rest = fit_repair_mixture(rest);
  if (!out.rest.converged) {
    out.not_fitted = "the other repairs' law did not converge";
    return out;
  }
  const Mixture x = working(out.rest);
  std::vector<double> own_rest(n);
  for (size_t i = 0; i < n; ++i) own_rest[i] = own_term(x, repairs[i], resolution);
  const double rest_total = std::accumulate(own_rest.begin(), own_rest.end(), 0.0);
  const Evaluation final_eval =
      evaluate(candidates, chosen, starts_s, own_rest, rest_total, resolution);
  if (!final_eval.valid) return out;

  out.is_deferred = final_eval.deferred;
  out.visits = final_eval.visits;
  out.deferred = final_eval.deferred_count;
  out.watched_s = final_eval.watched_s;
  out.log_likelihood = final_eval.log_likelihood;
  out.delta_aic = 2.0 * 2.0 - 2.0 * (out.log_likelihood - iid);
  double wait = 0.0;
  for (size_t i = 0; i < n; ++i) {
    if (out.is_deferred[i] != 0) wait += repairs[i].t_s;
  }
  const double d = static_cast<double>(out.deferred), nd = static_cast<double>(n);
  out.mean_wait_s = wait / d;
  out.share = d / nd;
  std::tie(out.share_lo, out.share_hi) = clopper_pearson_95(out.deferred, static_cast<int64_t>(n));
  // The unbiased interval (fit.h): visits over the watched stretches, not over the waiting.
  const RateEstimate visits = poisson_rate(out.visits, out.watched_s);
  out.visit_interval_s = 1.0 / visits.per_s;
  out.visit_interval_lo_s = 1.0 / visits.hi_per_s;
  out.visit_interval_hi_s = visits.lo_per_s > 0.0 ? 1.0 / visits.lo_per_s : kInf;
  out.supported = out.visits >= DeferredRepairFit::kMinVisits && out.delta_aic < 0.0;
  check_waits(std::vector<double>(starts_s.begin(), starts_s.begin() + static_cast<ptrdiff_t>(n)),
              span_s, draws, seed, out);
  return out;
}

}  // namespace ntpsim::sim
