// The back-test section of docs/VALIDATION.md: a failure model fitted from the InfiniteHBD log by
// `ntpsim trace --fit` (sim/failures/fit.h), run by the failure source over the log's horizon,
// against the log's own statistics and against the plain exponential model at the same rates.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "models/base/statistics.h"
#include "tools/validate/claims.h"
#include "tools/validate/doc_builder.h"
#include "tools/validate/studies.h"

namespace ntpsim::validate {
namespace pub = published;

namespace {

const std::vector<double>& kThresholds = kBacktestThresholds;
constexpr double kWeekS = 7 * 86400.0;

std::string verdict(bool ok) {
  return ok ? "agrees" : "**differs**";
}

bool within_rel(double model, double log, double tol) {
  return std::abs(model - log) <= tol * std::abs(log);
}

std::string model_text(const sim::TraceFit& f, const sim::KindFit& k) {
  if (f.pooled.chosen_scales > 0) {
    return fmt::format("one process for every kind (below), share {:.2f}",
                       f.pooled.shares[static_cast<size_t>(&k - f.kinds.data())]);
  }
  if (k.hawkes.chosen) {
    return fmt::format("Hawkes, branching {:.2f} (95% CI {:.2f}-{:.2f}), mean delay {:.3g} h",
                       k.hawkes.branching, k.hawkes.branching_lo, k.hawkes.branching_hi,
                       k.hawkes.mean_delay_s / 3600.0);
  }
  if (k.lifetime_choice < 0) return "exponential (too few faults for a law)";
  if (k.lemons.supported) return fmt::format("exponential with lemons");
  const sim::LawFit& l = k.lifetime[static_cast<size_t>(k.lifetime_choice)];
  std::string t =
      l.law == "exponential" ? "exponential" : fmt::format("{} shape {:.2f}", l.law, l.a);
  if (k.bursts.bursty) t += fmt::format(", bursts of {}", sim::burst_size_text(k.bursts));
  return t;
}

// The log's busiest stretch of `window_s` (the most pooled faults starting in it) against the
// rest: where it starts, its faults per day and the rest's, the mean repair of its faults and of
// the others', and the share of all down node-time due to its faults.
struct Episode {
  size_t first = 0, count = 0;  // its faults: pf.times_s[first, first + count)
  double start_s = 0.0, rate_per_day = 0.0, rest_rate_per_day = 0.0;
  double repair_mean_days = 0.0, rest_repair_mean_days = 0.0, down_share = 0.0;
};
Episode busiest(const sim::PooledFit& pf, double span_s, double window_s) {
  const std::vector<double>& t = pf.times_s;
  size_t best = 0, best_count = 0;
  for (size_t i = 0, j = 0; i < t.size(); ++i) {
    while (j < t.size() && t[j] < t[i] + window_s) ++j;
    if (j - i > best_count) {
      best_count = j - i;
      best = i;
    }
  }
  Episode e;
  e.first = best;
  e.count = best_count;
  e.start_s = t.empty() ? 0.0 : t[best];
  double in_sum = 0, out_sum = 0, all = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const double r = pf.repairs[i].t_s;
    all += r;
    (i >= best && i < best + best_count ? in_sum : out_sum) += r;
  }
  const auto in = static_cast<double>(best_count), out = static_cast<double>(t.size()) - in;
  e.rate_per_day = in / (window_s / 86400.0);
  e.rest_rate_per_day = out / ((span_s - window_s) / 86400.0);
  e.repair_mean_days = in > 0 ? in_sum / in / 86400.0 : 0.0;
  e.rest_repair_mean_days = out > 0 ? out_sum / out / 86400.0 : 0.0;
  e.down_share = all > 0 ? in_sum / all : 0.0;
  return e;
}

// The most repairs of the episode's faults that end within a minute of one another, and when.
std::pair<int, double> largest_batch_of_closures(const sim::PooledFit& pf, const Episode& ep) {
  std::vector<double> ends;
  for (size_t i = ep.first; i < ep.first + ep.count; ++i) {
    if (pf.repairs[i].failed) ends.push_back(pf.times_s[i] + pf.repairs[i].t_s);
  }
  std::sort(ends.begin(), ends.end());
  std::pair<int, double> best{0, 0.0};
  for (size_t i = 0, j = 0; i < ends.size(); ++i) {
    while (j < ends.size() && ends[j] <= ends[i] + 60.0) ++j;
    if (static_cast<int>(j - i) > best.first) best = {static_cast<int>(j - i), ends[i]};
  }
  return best;
}

// What the fit's deferred repairs (repairs that wait for a maintenance visit) find in the log.
std::string deferred_text(const sim::PooledFit& pf, const sim::RepairBatches& rb) {
  const sim::DeferredRepairFit& d = pf.deferred;
  if (!d.not_fitted.empty()) {
    return "The fit's deferred repairs (repairs that wait for a maintenance visit) were not "
           "fitted: " + d.not_fitted + ".";
  }
  if (d.visits == 0) {
    return fmt::format(
        "The fit's deferred repairs (repairs that wait for a maintenance visit, "
        "docs/trace-format.md) find no visit among {} candidates that raises the likelihood, so "
        "every repair law of the fit draws each repair on its own.",
        d.candidates);
  }
  const std::string check =
      std::isnan(d.wait_p)
          ? std::string("They were not checked against the waits.")
      : d.wait_draws == 0
          ? fmt::format("No log drawn from the fitted visits over the log's fault starts sees a "
                        "visit (p {:.2g}).",
                        d.wait_p)
          : fmt::format(
                "Drawn again from the fitted visits over the log's own fault starts ({} of the "
                "drawn logs see a visit), the deferred faults of the visits seen wait {:.1f} d on "
                "average (95% of the draws {:.1f}-{:.1f} d; p {:.2g} for the log's {:.1f} d).",
                d.wait_draws, d.model_wait_s / 86400.0, d.model_wait_lo_s / 86400.0,
                d.model_wait_hi_s / 86400.0, d.wait_p, d.mean_wait_s / 86400.0);
  const char* outcome =
      pf.deferred_chosen
          ? "The model above has them (deferred_repairs), and its replayed repairs per state "
            "leave out the deferred faults' own. The engine defers faults whenever they start, so "
            "its waiting faults are spread over the year, while the log's batches gather faults "
            "of its busy weeks."
      : !d.supported ? "Too few to claim, they are not written."
      : !d.waits_fit && d.mean_wait_s > d.model_wait_s
          ? "The log's visits are therefore not a Poisson process: its batches become visible "
            "shortly before their visits (so visits look frequent) yet close faults that had "
            "waited for weeks. Visits as frequent as the fit finds would cut the deferred faults' "
            "down time short, so the model above does not have them: their repairs are replayed "
            "with the others', which keeps the log's repair mean and p90 but draws them one by "
            "one, so the batched weeks above are not reproduced."
      : !d.waits_fit
          ? "The log's visits are therefore not a Poisson process: visits as rare as the fit "
            "finds would hold the deferred faults longer than the log's waited, so the model "
            "above does not have them and replays their repairs with the others'."
          : "They are not written: only the regime's laws per state replay the log's repairs "
            "without the deferred faults' own.";
  return fmt::format(
      "The fit's deferred repairs (a share of the faults wait for the next maintenance visit, a "
      "Poisson process, and every waiting fault ends at it; docs/trace-format.md) find {} "
      "visits among {} candidates that close {} faults (the largest batch, above, of faults from "
      "days {:.1f} to {:.1f}): a share of {:.3f} (95% CI {:.3f}-{:.3f}) waits, and visits come "
      "every {:.1f} d (95% CI {:.1f}-{:.1f}; timed from when each visit's batch could first be "
      "told from repairs of their own: a visit that closes fewer faults is not seen, so the "
      "visits seen are the long gaps), while the deferred faults waited {:.1f} d on average; AIC "
      "gain {:.1f} over one law for every repair. {} {}",
      d.visits, d.candidates, d.deferred, rb.largest_first_start_s / 86400.0,
      rb.largest_last_start_s / 86400.0, d.share, d.share_lo, d.share_hi,
      d.visit_interval_s / 86400.0, d.visit_interval_lo_s / 86400.0,
      d.visit_interval_hi_s / 86400.0, d.mean_wait_s / 86400.0, d.delta_aic, check, outcome);
}

// What the fit's shared repairs (faults of one incident that come back together) find in the log.
std::string shared_text(const sim::PooledFit& pf, const std::vector<sim::KindFit>& kinds) {
  const sim::SharedRepairFit& s = pf.shared;
  if (s.candidates == 0) {
    return "No pooled fault starts within the burst window of the previous one while it is in "
           "repair, so the fit looks for no shared repairs.";
  }
  std::vector<std::string> by_kind;
  for (const sim::KindFit& k : kinds) {
    if (k.shared_chosen) {
      by_kind.push_back(fmt::format("{} {:.3f} ({} of {})", k.name, k.shared.probability,
                                    k.shared.shared, k.shared.candidates));
    }
  }
  const std::string outcome =
      pf.chosen_scales == 0
          ? (by_kind.empty()
                 ? std::string("The kinds apart, chosen, find too few among their own faults "
                               "to write.")
                 : fmt::format("The model above has them in each kind's own process, among the "
                               "kind's faults (shared with chance {}), and their repair laws "
                               "leave out the shared faults' own.",
                               fmt::join(by_kind, ", ")))
      : pf.shared_chosen
          ? fmt::format("The model above has them (`shared_repairs: {{window: {:.3g} h, "
                        "probability: {:.3f}}}`), and its replayed repairs per state leave out "
                        "the {} shared faults' own: in the engine a fault within the window of "
                        "the previous one, still down, comes back with it with that chance.",
                        s.window_s / 3600.0, s.probability, s.shared)
      : !s.supported ? std::string("Too few beyond chance to claim, they are not written.")
                     : std::string("They are not written: only the regime's laws per state "
                                   "replay the log's repairs without the shared ones.");
  return fmt::format(
      "Faults of one incident share a repair (docs/trace-format.md): of the {} pooled faults "
      "that start within {:.3g} h of the previous one while it is still in repair, {} end within "
      "{:.0f} s of it, a share of {:.3f} (95% CI {:.3f}-{:.3f}), where repairs drawn on their own "
      "would end that close {:.2g} times (Poisson p {:.2g}); they hold {} of the log's down "
      "node-time. {}",
      s.candidates, s.window_s / 3600.0, s.shared, s.resolution_s, s.probability,
      s.probability_lo, s.probability_hi, s.expected, s.p_value, pct(s.down_share, 0), outcome);
}

// How the model's incidents compare with the log's: faults close to the previous one, and the
// largest group of them.
std::string groups_text(const FailureModelStats& log, const FailureModelStats& fit, int reps) {
  const auto log_largest = static_cast<int64_t>(log.largest_group);
  return fmt::format(
      "The fitted arrivals have {:.0f} faults per replication within {:.0f} h of the previous one "
      "(the log {:.0f}); the largest run of faults each within {:.0f} h of the previous holds {} "
      "faults in the log and {:.1f} in a replication on average, {}.",
      fit.close_starts, FailureModelStats::kGroupWindowS / 3600.0, log.close_starts,
      FailureModelStats::kGroupWindowS / 3600.0, log_largest, fit.largest_group,
      fit.largest_group_any < log_largest
          ? fmt::format("at most {} in any of the {}: the model's incidents take fewer servers "
                        "down together than the log's largest",
                        fit.largest_group_any, reps)
          : fmt::format("and {} in the largest of the {}", fit.largest_group_any, reps));
}

// Whether the fit reads the pooled faults as incidents (their first faults, with sizes and
// delays as marks) or as every fault, and by how much.
std::string incidents_text(const sim::PooledFit& pf) {
  const sim::PooledIncidents& inc = pf.incidents;
  if (!inc.fitted) return "";
  const std::string sizes =
      inc.sizes.empty() ? std::string("none")
                        : fmt::format("{}-{} nodes, mean {:.2g}", inc.sizes.front(),
                                      inc.sizes.back(), inc.mean_size);
  return fmt::format(
      " Read as incidents instead (the faults each within the window of the previous, on "
      "distinct nodes, as one incident: {} incidents, {} of several nodes ({}); of the {} "
      "partners {:.0f}% start within the log's {:.0f} s resolution of the fault before them, the "
      "others {:.3g} min after it on average), the incidents' first faults with their sizes and "
      "delays as marks gain {:.1f} over independent faults at best, against {:.1f} for every "
      "fault's best arrival candidate (lemons aside in both): AIC {}.",
      inc.incidents, inc.multi, sizes, inc.partners, 100.0 * inc.marks.at_once_share,
      inc.marks.resolution_s, inc.marks.later_mean_s / 60.0, inc.best_leaders_gain,
      inc.best_faults_gain,
      inc.chosen ? "chooses the incidents, written as the engine's bursts with the log's sizes"
      : pf.chosen_scales > 0
          ? "keeps every fault, so the model's bursts are the Hawkes process's cascades, not the "
            "log's sizes"
          : "keeps every fault for the pooled candidates; the kinds apart, chosen, take the "
            "log's sizes as their own bursts");
}

}  // namespace

Status backtest_section(Doc& doc) {
  const uint64_t seed = kBacktestFitSeed;
  auto bt = fitted_backtest(doc.scenario(kHbd), seed);
  if (!bt.ok()) return bt.error();
  const int reps = doc.samples(kBacktestReps, 8);
  const int64_t nodes = bt->fit.nodes;
  const FailureModelStats log = failure_model_stats(*bt->log, nodes, kThresholds, 1);
  const FailureModelStats fit = failure_model_stats(*bt->fitted, nodes, kThresholds, reps);
  const FailureModelStats exp = failure_model_stats(*bt->exponential, nodes, kThresholds, reps);

  std::string& b = doc.body;
  b += "## Back-test: a failure model fitted from the InfiniteHBD log\n\n";
  b += fmt::format(
      "`ntpsim trace --fit --nodes {}` on the log of `{}` (seed {}), then the failure source "
      "running the fitted model on the same {} servers over the same {:.0f} days, {} "
      "replications, against the replayed log and against the plain exponential model "
      "({}, the same repair laws, no lemons, bursts or clustering). The fitted processes:\n\n",
      nodes, kHbd, seed, nodes, bt->log->engine_config().end.seconds() / 86400.0, reps,
      bt->fit.pooled.chosen_scales > 0
          ? "one process of every kind at the log's rate per node up, kinds by their shares"
          : "each kind at its observed rate per node up");
  b += "| kind | faults | rate per 1000 node-days (95% CI) | arrivals chosen by AIC | repairs |\n"
       "|---|---|---|---|---|\n";
  for (const sim::KindFit& k : bt->fit.kinds) {
    b += fmt::format("| {} | {} | {:.2f} ({:.2f}-{:.2f}) | {} | {} |\n", k.name, k.faults,
                     k.rate.per_s * 86400e3, k.rate.lo_per_s * 86400e3, k.rate.hi_per_s * 86400e3,
                     model_text(bt->fit, k), k.repair_law);
  }
  const sim::PooledFit& pf = bt->fit.pooled;
  b += fmt::format(
      "\nAIC gains over independent exponential faults (lower is better): the kinds fitted apart "
      "(each kind's own choice) {:.1f}; one marked Hawkes process of the {} pooled faults (a "
      "fault of any kind excites all), one time scale {:.1f}, two time scales {:.1f}, two time "
      "scales with regimes of the arrivals (a two-state Markov-modulated immigrant rate) {:.1f}, "
      "the same with a repair law per state (two lognormal parts in each; its gain is over "
      "independent faults with independent repairs of one such law) {:.1f}, "
      "each plus {:.1f} for which node a fault hits ({})",
      pf.apart_gain, pf.events, pf.one.delta_aic + pf.lemon_gain, pf.two.delta_aic + pf.lemon_gain,
      pf.regime.converged ? pf.regime.kernels.delta_aic + pf.lemon_gain : 0.0,
      pf.regime_repairs.converged ? pf.regime_repairs.kernels.delta_aic + pf.lemon_gain : 0.0,
      pf.lemon_gain,
      pf.lemons.supported ? fmt::format("{:.0f}% of the nodes fail {:.1f}x as often",
                                        pf.lemons.fraction * 100, pf.lemons.multiplier)
                          : std::string("no lemons"));
  if (pf.regime_chosen || pf.regime_repairs_chosen) {
    const sim::RegimeFit& g = pf.regime_repairs_chosen ? pf.regime_repairs : pf.regime;
    const sim::HawkesFit& h = g.kernels;
    b += fmt::format(
        ". AIC chooses the pooled process with two time scales and regimes{}: a fault triggers "
        "{:.2f} (95% CI {:.2f}-{:.2f}) faults after {:.3g} min on average and {:.2f} "
        "({:.2f}-{:.2f}) after {:.3g} h ({:.3g}-{:.3g} h); the immigrant faults arrive {:.3g}x "
        "({:.3g}-{:.3g}) as often in the busy state, which holds {:.0f}% ({:.0f}-{:.0f}%) of the "
        "time in spells of {:.3g} d ({:.3g}-{:.3g} d)",
        pf.regime_repairs_chosen ? " and a repair law per state" : "", h.branching, h.branching_lo,
        h.branching_hi, h.mean_delay_s / 60.0, h.slow_branching, h.slow_branching_lo,
        h.slow_branching_hi, h.slow_mean_delay_s / 3600.0, h.slow_mean_delay_lo_s / 3600.0,
        h.slow_mean_delay_hi_s / 3600.0, g.rate_ratio, g.rate_ratio_lo, g.rate_ratio_hi,
        g.high_share * 100, g.high_share_lo * 100, g.high_share_hi * 100, g.high_mean_s / 86400.0,
        g.high_mean_lo_s / 86400.0, g.high_mean_hi_s / 86400.0);
    if (pf.regime_repairs_chosen) {
      const sim::RepairMixture& lo = g.state_repair[0];
      const sim::RepairMixture& hi = g.state_repair[1];
      b += fmt::format(
          "; the busy state's repairs are {:.0f}% ({:.0f}-{:.0f}%) short (median {:.3g} min) and "
          "average {:.3g} d ({:.3g}-{:.3g} d), the quiet state's {:.0f}% short (median {:.3g} "
          "min), averaging {:.3g} d; the engine replays the log's repairs of each state ({} and "
          "{}, each in the state more probable for it{})",
          hi.short_share * 100, hi.short_share_lo * 100, hi.short_share_hi * 100,
          hi.short_median_s / 60.0, hi.mean_s / 86400.0, hi.mean_lo_s / 86400.0,
          hi.mean_hi_s / 86400.0, lo.short_share * 100, lo.short_median_s / 60.0,
          lo.mean_s / 86400.0, g.state_values_s[1].size(), g.state_values_s[0].size(),
          (pf.deferred_chosen
               ? fmt::format("; the {} faults that waited for maintenance visits aside, below",
                             pf.deferred.deferred)
               : std::string()) +
              (pf.shared_chosen
                   ? fmt::format("; the {} faults that share the previous fault's repair aside, "
                                 "below",
                                 pf.shared.shared)
                   : std::string()));
    }
    b += ".\n";
  } else if (pf.chosen_scales == 2) {
    const sim::HawkesFit& h = pf.two;
    b += fmt::format(
        ". AIC chooses the pooled process with two time scales: a fault triggers {:.2f} (95% CI "
        "{:.2f}-{:.2f}) faults after {:.3g} min on average and {:.2f} ({:.2f}-{:.2f}) after {:.3g} "
        "h "
        "({:.3g}-{:.3g} h); time-rescaled KS {:.3f}.\n",
        h.branching, h.branching_lo, h.branching_hi, h.mean_delay_s / 60.0, h.slow_branching,
        h.slow_branching_lo, h.slow_branching_hi, h.slow_mean_delay_s / 3600.0,
        h.slow_mean_delay_lo_s / 3600.0, h.slow_mean_delay_hi_s / 3600.0, h.ks_distance);
  } else if (pf.chosen_scales == 1) {
    b += fmt::format(
        ". AIC chooses the pooled process with one time scale: branching {:.2f} (95% CI "
        "{:.2f}-{:.2f}), mean delay {:.3g} h.\n",
        pf.one.branching, pf.one.branching_lo, pf.one.branching_hi, pf.one.mean_delay_s / 3600.0);
  } else {
    std::vector<std::string> bursts;
    for (const sim::KindFit& k : bt->fit.kinds) {
      if (!k.bursts.bursty || k.hawkes.chosen || k.lifetime_choice < 0) continue;
      const sim::IncidentMarks& m = k.bursts.marks;
      bursts.push_back(fmt::format(
          "{} takes bursts of {} nodes in {:.0f}% of its events ({:.0f}% of the partners within "
          "the log's {:.0f} s resolution of the fault before them, the others {:.3g} min after "
          "it on average), gaining {:.1f} against its Hawkes process's {:.1f}",
          k.name, sim::burst_size_text(k.bursts), k.bursts.probability * 100,
          m.at_once_share * 100, m.resolution_s, m.later_mean_s / 60.0, k.aic_gain,
          k.hawkes.delta_aic));
    }
    b += bursts.empty() ? std::string(". AIC keeps the kinds apart.\n")
                        : fmt::format(". AIC keeps the kinds apart: {}.\n",
                                      fmt::join(bursts, "; "));
  }
  b += fmt::format(
      "\nStatistics of the events (model: mean of the replications); tolerances stated before "
      "measuring: rate ±{:.0f}%, repair quantiles ±{:.0f}%, gap CV ±{}, time shares ±{} "
      "(absolute), peak ±{:.0f}%.\n\n",
      pub::kBacktestRateTol * 100, pub::kBacktestRepairTol * 100, pub::kBacktestCvTol,
      pub::kBacktestShareTol, pub::kBacktestPeakTol * 100);
  b += "| statistic | log | fitted model | plain exponential | fitted | exponential | fitted "
       "replications, 5th-95th percentile | the log among them |\n"
       "|---|---|---|---|---|---|---|---|\n";
  // `of` picks one statistic out of a replication of the fitted model.
  using Of = std::function<double(const FailureModelStats::Replication&)>;
  std::vector<std::string> outside;  // statistics the log lies beyond every replication on
  auto row = [&](const std::string& what, double l, double f, double e, int decimals, bool ok_f,
                 bool ok_e, const Of& of) {
    std::vector<double> v;
    for (const auto& r : fit.by_rep) v.push_back(of(r));
    const Place pl = place_among(l, v);
    if (pl.beyond_all) outside.push_back(what);
    b += fmt::format("| {} | {:.{}f} | {:.{}f} | {:.{}f} | {} | {} | {:.{}f}-{:.{}f} | {} |\n",
                     what, l, decimals, f, decimals, e, decimals, verdict(ok_f), verdict(ok_e),
                     pl.p5, decimals, pl.p95, decimals, pl.text);
  };
  auto rel = [&](const std::string& what, double l, double f, double e, int decimals, double tol,
                 const Of& of) {
    row(what, l, f, e, decimals, within_rel(f, l, tol), within_rel(e, l, tol), of);
  };
  using Rep = FailureModelStats::Replication;
  rel("faults per 1000 node-days", log.rate_per_1000_unit_days, fit.rate_per_1000_unit_days,
      exp.rate_per_1000_unit_days, 3, pub::kBacktestRateTol,
      [](const Rep& r) { return r.rate_per_1000_unit_days; });
  rel("repair median (days)", log.repair_median_days, fit.repair_median_days,
      exp.repair_median_days, 2, pub::kBacktestRepairTol,
      [](const Rep& r) { return r.repair_median_days; });
  rel("repair mean (days)", log.repair_mean_days, fit.repair_mean_days, exp.repair_mean_days, 2,
      pub::kBacktestRepairTol, [](const Rep& r) { return r.repair_mean_days; });
  rel("repair p90 (days)", log.repair_p90_days, fit.repair_p90_days, exp.repair_p90_days, 2,
      pub::kBacktestRepairTol, [](const Rep& r) { return r.repair_p90_days; });
  row("CV of the gaps between faults", log.gap_cv, fit.gap_cv, exp.gap_cv, 2,
      std::abs(fit.gap_cv - log.gap_cv) <= pub::kBacktestCvTol,
      std::abs(exp.gap_cv - log.gap_cv) <= pub::kBacktestCvTol,
      [](const Rep& r) { return r.gap_cv; });
  for (size_t i = 0; i < kThresholds.size(); ++i) {
    const double l = log.share_above[i], f = fit.share_above[i], e = exp.share_above[i];
    row(fmt::format("time share above {:.1f}% failed GPUs", kThresholds[i] * 100), l, f, e, 3,
        std::abs(f - l) <= pub::kBacktestShareTol, std::abs(e - l) <= pub::kBacktestShareTol,
        [i](const Rep& r) { return r.share_above[i]; });
  }
  rel("peak concurrent failed GPUs", log.peak_failed_gpus, fit.peak_failed_gpus,
      exp.peak_failed_gpus, 1, pub::kBacktestPeakTol,
      [](const Rep& r) { return r.peak_failed_gpus; });
  b += fmt::format(
      "\nThe last two columns read the log as one draw of the process it came from: the "
      "fitted model's {} replications give each statistic a range, and the log's place among "
      "them (the share of replications below the log's value, ties counted half) says whether "
      "the model could have produced the log. A mean within tolerance with the log inside the "
      "range is an agreement; the log beyond every replication is a feature of the log the model "
      "does not produce{}.\n\n",
      fit.by_rep.size(),
      outside.empty() ? std::string(" (none here)")
                      : fmt::format(" (here: {})", fmt::join(outside, "; ")));
  // What the log's high failed counts come from: its busiest four weeks against the rest, and
  // the repairs closed together.
  constexpr double kEpisodeS = 4 * kWeekS;
  const Episode ep = busiest(pf, bt->fit.span_s, kEpisodeS);
  const auto [batch, batch_at_s] = largest_batch_of_closures(pf, ep);
  // The regimes with the repairs too (one lognormal, its median scaled by the state): not a
  // candidate, because the log's repairs are bimodal and the states then split them instead.
  const sim::RegimeFit with_repairs =
      sim::fit_hawkes_regime(pf.times_s, pf.repairs, bt->fit.span_s, 60.0, pf.two, true);
  if (!with_repairs.converged) {
    return Error::runtime("back-test: the regime fit with repairs did not converge");
  }
  // The candidate with a law per state (two lognormal parts, so both the short and the long
  // repairs): what its states are, and whether it reaches the episode.
  std::string state_text;
  const sim::RegimeFit& sr = pf.regime_repairs;
  if (!sr.converged) {
    state_text = "A repair law per state (two lognormal parts in each) did not converge.";
  } else {
    // Faults by the state more probable for them (the replayed repairs leave out deferred ones).
    const auto lo_faults = static_cast<double>(std::count_if(
        sr.high_posterior.begin(), sr.high_posterior.end(), [](double h) { return h <= 0.5; }));
    state_text = fmt::format(
        "A repair law per state with two lognormal parts in each (the states inferred from the "
        "arrivals and the repairs together, forward-backward) describes the short and the long "
        "repairs and gains {:.1f} over independent faults with one such law for every repair, "
        "against {:.1f} for the regimes of the arrivals alone, so AIC {}. Its states still do not "
        "isolate the busy weeks: the quiet state ({} of the time, immigrants {:.3g}x rarer) holds "
        "{:.0f} faults, {:.0f}% of its repairs short with a median of {:.2g} min (the repairs the "
        "log records as under a minute), while the busy state holds {} of the time and the "
        "other {:.0f} faults, so the rows above that differ still differ.",
        sr.kernels.delta_aic, pf.regime.kernels.delta_aic,
        pf.regime_repairs_chosen ? "chooses it" : "keeps the regimes of the arrivals alone",
        pct(1.0 - sr.high_share, 0), sr.rate_ratio, lo_faults, sr.state_repair[0].short_share * 100,
        sr.state_repair[0].short_median_s / 60.0, pct(sr.high_share, 0),
        static_cast<double>(sr.high_posterior.size()) - lo_faults);
  }
  double short_repairs = 0;
  for (const sim::Interval& r : pf.repairs) short_repairs += r.t_s < 3600.0 ? 1 : 0;
  short_repairs /= std::max<double>(1.0, static_cast<double>(pf.repairs.size()));
  int largest_burst = 0;
  for (const sim::KindFit& k : bt->fit.kinds) {
    if (k.bursts.bursty && !k.hawkes.chosen && !k.bursts.sizes.empty()) {
      largest_burst = std::max(largest_burst, k.bursts.sizes.back());
    }
  }
  if (pf.chosen_scales == 0) {
    b += fmt::format(
        "\nThe fitted model keeps the log's rate, repairs and the share of time with any server "
        "down; with the kinds' bursts of the log's sizes (up to {} servers at once) and their "
        "lifetime laws it brings the gap CV from {:.2f} (exponential) to {:.2f} (log {:.2f}), the "
        "time above 1%, 2% and 4% failed to {:.3f}, {:.3f} and {:.3f} (the log {:.3f}, {:.3f} and "
        "{:.3f}) and the peak to {:.0f} failed GPUs (the log {:.0f}). The log's busiest four "
        "weeks (from day {:.0f}) have {:.1f} faults a day against {:.1f} in the rest of the log, "
        "and their repairs average {:.1f} d against {:.1f} d, so these {:.0f}% of the span hold "
        "{} of all down node-time; {} of their repairs end within one minute on day {:.1f} (a "
        "batch closed together). The pooled candidates (above) gain less over independent "
        "faults than the kinds apart with their bursts.\n\n",
        largest_burst, exp.gap_cv, fit.gap_cv, log.gap_cv, fit.share_above[1],
        fit.share_above[2], fit.share_above[3], log.share_above[1], log.share_above[2],
        log.share_above[3], fit.peak_failed_gpus, log.peak_failed_gpus, ep.start_s / 86400.0,
        ep.rate_per_day, ep.rest_rate_per_day, ep.repair_mean_days, ep.rest_repair_mean_days,
        kEpisodeS / bt->fit.span_s * 100, pct(ep.down_share, 0), batch, batch_at_s / 86400.0);
  } else {
  b += fmt::format(
      "\nThe fitted model keeps the log's rate (the engine places each of the cluster's faults "
      "on a node that is up, so none is lost to repairs), repairs and the share of time with any "
      "server down, and its regimes bring the gap CV from {:.2f} (exponential) to {:.2f} (log "
      "{:.2f}). The share of time above 2% failed is {:.3f} (log {:.3f}, the exponential model "
      "{:.3f}; tolerance ±{}). The failed count is spread otherwise than the log's: the model is "
      "above 1% failed {} of the time (the log {}) and above 4% {} (the log {}), and peaks at "
      "{:.0f} failed GPUs (the log {:.0f}): the log's months of high failed counts come from one "
      "episode: the log's busiest four weeks (from day {:.0f}) have {:.1f} faults a day against "
      "{:.1f} in the rest of the log, and their repairs average {:.1f} d against {:.1f} d, so "
      "these {:.0f}% of the span hold {} of all down node-time; {} of their repairs end within "
      "one minute on day {:.1f} (a batch closed together). The episode is both more arrivals and "
      "longer "
      "repairs; regimes of the arrivals alone change the arrivals only, and a busy spell with the "
      "log's "
      "own repairs, most of them short, does not hold {} servers down for weeks. Letting the "
      "repairs depend on the state as well (one lognormal, its median scaled in the busy state) "
      "gains {:.1f} over independent faults and independent lognormal repairs (the chosen model "
      "{:.1f} over independent faults, both without the node choice), but its states split the "
      "repairs, not "
      "the busy weeks: {} of the log's repairs are under an hour, which one lognormal does not "
      "describe, and the fit puts a state {} of the time whose repairs are {:.3g}x as long as the "
      "other's; that model is therefore not a candidate. {}\n\n",
      exp.gap_cv, fit.gap_cv, log.gap_cv, fit.share_above[2], log.share_above[2],
      exp.share_above[2], pub::kBacktestShareTol, pct(fit.share_above[1], 0),
      pct(log.share_above[1], 0), pct(fit.share_above[3], 1), pct(log.share_above[3], 0),
      fit.peak_failed_gpus, log.peak_failed_gpus, ep.start_s / 86400.0, ep.rate_per_day,
      ep.rest_rate_per_day, ep.repair_mean_days, ep.rest_repair_mean_days,
      kEpisodeS / bt->fit.span_s * 100, pct(ep.down_share, 0), batch, batch_at_s / 86400.0,
      static_cast<int64_t>(std::floor(kThresholds.back() * static_cast<double>(nodes))) + 1,
      with_repairs.kernels.delta_aic, pf.regime.kernels.delta_aic, pct(short_repairs, 0),
      pct(with_repairs.high_share, 0), with_repairs.repair_scale, state_text);
  }
  // What the log's batches of repairs closed together contribute: the log's own arrivals with
  // the batched faults' repairs drawn from its other repairs instead.
  const sim::RepairBatches& rb = bt->fit.batches;
  if (rb.batches > 0) {
    constexpr int kDraws = 200;
    auto direct = log_failed_gpus(*bt->log, kThresholds);
    if (!direct.ok()) return direct.error();
    auto redrawn = log_failed_gpus(*bt->log, kThresholds, rb.members, kDraws, seed);
    if (!redrawn.ok()) return redrawn.error();
    b += fmt::format(
        "Repairs closed in batches (`ntpsim trace --fit` reports them): {} runs of at least {} "
        "repair ends within {:.0f} s of one another, of faults that started over more than a "
        "day, hold {} faults ({:.1f}% of them) and {} of the log's down node-time; the largest "
        "closes {} repairs on day {:.2f} of faults from day {:.1f} to {:.1f}. Counted directly "
        "from the log's faults, its failed GPUs are above 1%, 2% and 4% of the cluster {:.3f}, "
        "{:.3f} and {:.3f} of the time and peak at {:.0f} (the log column above). With the "
        "repairs of the batched faults drawn instead from the log's other repairs (mean of {} "
        "draws, seed {}), the same arrivals give {:.3f}, {:.3f} and {:.3f} and a peak of {:.0f}: "
        "the batches make most of the time above 4% and {:.0f} of the peak's {:.0f} failed GPUs. "
        "{}\n\n",
        rb.batches, sim::RepairBatches::kMinBatch, sim::RepairBatches::kBatchGapS, rb.faults,
        100.0 * static_cast<double>(rb.faults) / static_cast<double>(bt->fit.faults),
        pct(rb.down_share, 0), rb.largest, rb.largest_at_s / 86400.0,
        rb.largest_first_start_s / 86400.0, rb.largest_last_start_s / 86400.0,
        direct->share_above[1], direct->share_above[2], direct->share_above[3],
        direct->peak_failed_gpus, kDraws, seed, redrawn->share_above[1], redrawn->share_above[2],
        redrawn->share_above[3], redrawn->peak_failed_gpus,
        direct->peak_failed_gpus - redrawn->peak_failed_gpus, direct->peak_failed_gpus,
        deferred_text(pf, rb));
  }
  b += shared_text(pf, bt->fit.kinds) + " " + groups_text(log, fit, reps) + incidents_text(pf);
  // How much the incidents as the log has them would give: its incidents, whole, at
  // independent times, against its faults one by one at independent times.
  {
    constexpr int kDraws = 200;
    auto alone = log_incidents_redrawn(*bt->log, kThresholds, 0.0, kDraws, seed);
    if (!alone.ok()) return alone.error();
    auto whole = log_incidents_redrawn(*bt->log, kThresholds, FailureModelStats::kGroupWindowS,
                                       kDraws, seed);
    if (!whole.ok()) return whole.error();
    auto draws_text = [](const IncidentDraws& d) {
      return fmt::format("{:.3f}, {:.3f} and {:.3f} of the time and a peak of {:.0f} (5th-95th "
                         "percentile {:.0f}-{:.0f})",
                         d.failed.share_above[1], d.failed.share_above[2],
                         d.failed.share_above[3], d.failed.peak_failed_gpus, d.peak_p5,
                         d.peak_p95);
    };
    // The time-share rows the incidents at independent times leave beyond tolerance.
    std::vector<std::string> rows_far;
    for (size_t k = 1; k < kThresholds.size(); ++k) {
      if (std::fabs(whole->failed.share_above[k] - log.share_above[k]) > pub::kBacktestShareTol) {
        rows_far.push_back(fmt::format("{:g}%", kThresholds[k] * 100));
      }
    }
    std::string far;
    for (size_t i = 0; i < rows_far.size(); ++i) {
      far += (i == 0 ? "" : i + 1 == rows_far.size() ? " and " : ", ") + rows_far[i];
    }
    b += fmt::format(
        " Drawn at independent (Poisson) times, {} draws, seed {}: the log's faults one by one, "
        "each with its own repair, are above 1%, 2% and 4% failed {}; its {} incidents whole "
        "(each run of faults within {:.0f} h of the previous, with their offsets and repairs) "
        "{}. The log's incidents as they are thus raise the peak {}; {}",
        kDraws, seed, draws_text(*alone), whole->incidents,
        FailureModelStats::kGroupWindowS / 3600.0, draws_text(*whole),
        whole->peak_p95 >= log.peak_failed_gpus
            ? fmt::format("to where the log's {:.0f} lies inside the draws' range",
                          log.peak_failed_gpus)
            : fmt::format("but not to the log's {:.0f}", log.peak_failed_gpus),
        far.empty() ? std::string("and the time shares come within tolerance of the log's.")
                    : fmt::format("the time above {} failed stays beyond the tolerance (±{}) "
                                  "from the log's: {} come from when the log's faults came "
                                  "(the episode above), not from its incidents.",
                                  far, pub::kBacktestShareTol,
                                  far.find(',') != std::string::npos || far.find(" and ") !=
                                          std::string::npos
                                      ? "those rows"
                                      : "that row"));
  }
  b += "\n\n";
  doc.seeds.push_back(fmt::format("Back-test ({}; fitted with seed {}) | seed {}, {} replications",
                                  kHbd, seed, bt->fitted->scenario().seed, reps));
  return Status::Ok();
}

}  // namespace ntpsim::validate
