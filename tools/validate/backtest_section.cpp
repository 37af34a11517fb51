// The back-test section of docs/VALIDATION.md: a failure model fitted from the InfiniteHBD log by
// `ntpsim trace --fit` (sim/failures/fit.h), run by the failure source over the log's horizon,
// against the log's own statistics and against the plain exponential model at the same rates.
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

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
  if (k.bursts.bursty) t += fmt::format(", bursts of {}", k.bursts.size);
  return t;
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
      "fault of any kind excites all), one time scale {:.1f}, two time scales {:.1f}, each "
      "plus {:.1f} for which node a fault hits ({})",
      pf.apart_gain, pf.events, pf.one.delta_aic + pf.lemon_gain, pf.two.delta_aic + pf.lemon_gain,
      pf.lemon_gain,
      pf.lemons.supported ? fmt::format("{:.0f}% of the nodes fail {:.1f}x as often",
                                        pf.lemons.fraction * 100, pf.lemons.multiplier)
                          : std::string("no lemons"));
  if (pf.chosen_scales == 2) {
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
    b += ". AIC keeps the kinds apart.\n";
  }
  b += fmt::format(
      "\nStatistics of the events (model: mean of the replications); tolerances stated before "
      "measuring: rate ±{:.0f}%, repair quantiles ±{:.0f}%, gap CV ±{}, time shares ±{} "
      "(absolute), peak ±{:.0f}%.\n\n",
      pub::kBacktestRateTol * 100, pub::kBacktestRepairTol * 100, pub::kBacktestCvTol,
      pub::kBacktestShareTol, pub::kBacktestPeakTol * 100);
  b += "| statistic | log | fitted model | plain exponential | fitted | exponential |\n"
       "|---|---|---|---|---|---|\n";
  auto row = [&](const std::string& what, double l, double f, double e, int decimals, bool ok_f,
                 bool ok_e) {
    b += fmt::format("| {} | {:.{}f} | {:.{}f} | {:.{}f} | {} | {} |\n", what, l, decimals, f,
                     decimals, e, decimals, verdict(ok_f), verdict(ok_e));
  };
  auto rel = [&](const std::string& what, double l, double f, double e, int decimals, double tol) {
    row(what, l, f, e, decimals, within_rel(f, l, tol), within_rel(e, l, tol));
  };
  rel("faults per 1000 node-days", log.rate_per_1000_unit_days, fit.rate_per_1000_unit_days,
      exp.rate_per_1000_unit_days, 3, pub::kBacktestRateTol);
  rel("repair median (days)", log.repair_median_days, fit.repair_median_days,
      exp.repair_median_days, 2, pub::kBacktestRepairTol);
  rel("repair mean (days)", log.repair_mean_days, fit.repair_mean_days, exp.repair_mean_days, 2,
      pub::kBacktestRepairTol);
  rel("repair p90 (days)", log.repair_p90_days, fit.repair_p90_days, exp.repair_p90_days, 2,
      pub::kBacktestRepairTol);
  row("CV of the gaps between faults", log.gap_cv, fit.gap_cv, exp.gap_cv, 2,
      std::abs(fit.gap_cv - log.gap_cv) <= pub::kBacktestCvTol,
      std::abs(exp.gap_cv - log.gap_cv) <= pub::kBacktestCvTol);
  for (size_t i = 0; i < kThresholds.size(); ++i) {
    const double l = log.share_above[i], f = fit.share_above[i], e = exp.share_above[i];
    row(fmt::format("time share above {:.1f}% failed GPUs", kThresholds[i] * 100), l, f, e, 3,
        std::abs(f - l) <= pub::kBacktestShareTol, std::abs(e - l) <= pub::kBacktestShareTol);
  }
  rel("peak concurrent failed GPUs", log.peak_failed_gpus, fit.peak_failed_gpus,
      exp.peak_failed_gpus, 1, pub::kBacktestPeakTol);
  const double slow_h = pf.chosen_scales == 2 ? pf.two.slow_mean_delay_s / 3600.0 : 0.0;
  // A slow kernel alone: the one-scale fit with its delay held at a week or more.
  const sim::HawkesFit weekly = sim::fit_hawkes(pf.times_s, bt->fit.span_s, kWeekS, 0, seed, "");
  b += fmt::format(
      "\nThe fitted model keeps the log's rate (the engine places each of the cluster's faults "
      "on a node that is up, so none is lost to repairs), repairs and the share of "
      "time with any server down. Its clustering moves the gap CV from {:.2f} (exponential) to "
      "{:.2f} and the peak from "
      "{:.0f} to {:.0f} failed GPUs, but not to the log's {:.2f} and {:.0f}. The likelihood "
      "places the second time scale at {:.3g} h: faults of one event and the hours after it, not "
      "the weeks over which the log's failed count swings (above 1% failed {} of the time, above "
      "4% {}). A slow kernel alone does find those waves: held at a week or more, the one-scale "
      "fit gives branching {:.2f} after {:.3g} d, an AIC gain of {:.1f} over independent faults, "
      "but as the second of two kernels the hour scale gains more, so AIC does not keep it. The "
      "candidates have at most two kernels; the chosen stationary model at the log's mean rate "
      "does not reach the log's months of high failure counts, which may need a third, slow "
      "kernel or a change of the cluster's state (batches of bad parts, maintenance campaigns) "
      "rather than self-excitation alone. "
      "These differences are expected failures in tests/validation "
      "(`KnownDifference.Backtest*`).\n\n",
      exp.gap_cv, fit.gap_cv, exp.peak_failed_gpus, fit.peak_failed_gpus, log.gap_cv,
      log.peak_failed_gpus, slow_h, pct(log.share_above[1], 0), pct(log.share_above[3], 0),
      weekly.branching, weekly.mean_delay_s / 86400.0, weekly.delta_aic);
  doc.seeds.push_back(fmt::format("Back-test ({}; fitted with seed {}) | seed {}, {} replications",
                                  kHbd, seed, bt->fitted->scenario().seed, reps));
  return Status::Ok();
}

}  // namespace ntpsim::validate
