#include "sim/io/results_table.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/io/results_json.h"
#include "sim/metrics/aggregate.h"
#include "sim/scenario/recovery_costs.h"

namespace ntpsim::sim {
namespace {

Stat stat_of(const StrategyRun& run, Metric m) {
  std::vector<double> v;
  v.reserve(run.replications.size());
  for (const auto& rep : run.replications) v.push_back(at(rep, m));
  return summarize(v);
}

std::string pct(double f) { return fmt::format("{:.2f}%", 100.0 * f); }

constexpr Metric kBadput[] = {Metric::kBadputCheckpoint, Metric::kBadputRollback,
                              Metric::kBadputRecovery,   Metric::kBadputStall,
                              Metric::kBadputDegraded,   Metric::kBadputReshard};

std::string badput_header() {
  return fmt::format("{:>8} {:>8} {:>8} {:>8} {:>8} {:>8}", "ckpt", "rollbk", "recov", "stall",
                     "degr", "reshard");
}

// The strategy column: 20 characters, or the longest label (a chain's own name may be longer).
size_t label_width(const std::vector<StrategyRun>& runs, size_t width = 20) {
  for (const auto& st : runs) width = std::max(width, st.label.size());
  return width;
}

std::string strategy_cells(const RunResult& r, const StrategyRun& st, bool budget, size_t width) {
  const Stat g = stat_of(st, Metric::kGoodput);
  std::string row =
      fmt::format("{:<{}} {:>7} ±{:>6}", st.label, width, pct(g.mean), pct(g.ci95_halfwidth()));
  for (Metric m : kBadput) row += fmt::format(" {:>8}", pct(stat_of(st, m).mean));
  row += fmt::format(" {:>9.1f} {:>8.1f}/{:<6.0f}", stat_of(st, Metric::kInterruptions).mean,
                     stat_of(st, Metric::kFailedGpusMean).mean,
                     stat_of(st, Metric::kFailedGpusPeak).max);
  row += fmt::format(" {:>8}", pct(stat_of(st, Metric::kPerGpuGoodput).mean));
  std::vector<double> tokens;
  for (const auto& rep : st.replications)
    tokens.push_back(tokens_per_s_per_gpu(r, at(rep, Metric::kPerGpuGoodput)));
  row += fmt::format(" {:>10.1f}", summarize(tokens).mean);
  if (budget) row += fmt::format(" {:>8.2f}", stat_of(st, Metric::kTimeToTrainDays).mean);
  return row;
}

std::string strategy_header(bool budget, size_t width) {
  std::string h = fmt::format("{:<{}} {:>16} {} {:>9} {:>15} {:>8} {:>10}", "strategy", width,
                              "goodput (95% CI)", badput_header(), "interrupt", "failed mean/peak",
                              "per-GPU", "tok/s/GPU");
  if (budget) h += fmt::format(" {:>8}", "TTT days");
  return h;
}

}  // namespace

// Whether the strategies ran at different checkpoint intervals (then each row shows its own).
static bool intervals_differ(const RunResult& r) {
  for (const auto& st : r.strategies) {
    if (st.checkpoint_interval_s != r.strategies.front().checkpoint_interval_s) return true;
  }
  return false;
}

// A strategy's interval for the table: seconds, or "none" when it is the horizon (no checkpoint
// is written inside the run).
static std::string interval_cell(const RunResult& r, const StrategyRun& st) {
  return st.checkpoint_interval_s >= r.horizon_s ? std::string("none")
                                                 : fmt::format("{:.0f}", st.checkpoint_interval_s);
}

std::string run_table(const Scenario& s, const RunResult& r) {
  const bool per_strategy = intervals_differ(r);
  const std::string degrees =
      r.layout.cp > 1 ? fmt::format("TP {} x CP {} x PP {} x DP {}", r.layout.tp, r.layout.cp,
                                    r.layout.pp / r.layout.cp, r.layout.dp)
                      : fmt::format("TP {} x PP {} x DP {}", r.layout.tp, r.layout.pp, r.layout.dp);
  std::string out = fmt::format(
      "{}: {} GPUs ({} in the job: {}), {} model, {:.1f} days x {} "
      "replications, {}\n",
      s.name, r.layout.cluster_gpus, r.layout.job_gpus, degrees, r.step_model,
      r.horizon_s / 86400.0, r.replications,
      per_strategy ? std::string("checkpoint interval per strategy (ckpt s; none: no rollback, "
                                 "none written)")
                   : fmt::format("checkpoint every {:.0f} s", r.checkpoint_interval_s));
  if (auto v = run_verdict(s, r)) out += verdict_text(*v);
  // The costs the ranking rests on, and where to read their sources.
  out += "costs: " + recovery_cost_summary(s, static_cast<double>(r.layout.job_gpus)) + "\n";
  const bool budget = s.train_tokens > 0;
  const size_t width = label_width(r.strategies);
  out += strategy_header(budget, width) + (per_strategy ? fmt::format(" {:>8}", "ckpt s") : "") +
         "\n";
  for (const auto& st : r.strategies) {
    out += strategy_cells(r, st, budget, width) +
           (per_strategy ? fmt::format(" {:>8}", interval_cell(r, st)) : "") + "\n";
  }
  for (const auto& w : r.warnings) out += "warning: " + w + "\n";
  return out;
}

namespace {

// A sweep point's varied values as "a=1, b=2".
template <typename Values>
std::string point_setting(const Values& values) {
  std::string out;
  for (const auto& [k, v] : values) out += fmt::format("{}{}={}", out.empty() ? "" : ", ", k, v);
  return out;
}

}  // namespace

std::string sweep_table(const SweepRun& sweep) {
  std::string out;
  // The verdict of the best point first (the same choice as the sweep document's "verdict").
  std::optional<Verdict> best;
  std::string where;
  for (const auto& p : sweep.points) {
    auto v = run_verdict(p.scenario, p.result);
    if (v && (!best || v->winner_stat.mean > best->winner_stat.mean)) {
      best = std::move(v);
      where = point_setting(p.values);
    }
  }
  if (best) {
    best->setting = where + "; " + best->setting;
    out += verdict_text(*best);
  }
  std::string values_header;
  for (const auto& p : sweep.parameters) values_header += fmt::format("{:<24} ", p);
  const bool budget = !sweep.points.empty() && sweep.points.front().scenario.train_tokens > 0;
  size_t width = 20;
  for (const auto& p : sweep.points) width = label_width(p.result.strategies, width);
  out += values_header + strategy_header(budget, width) + "\n";
  for (const auto& p : sweep.points) {
    std::string vals;
    for (const auto& [k, v] : p.values) vals += fmt::format("{:<24} ", v);
    for (const auto& st : p.result.strategies)
      out += vals + strategy_cells(p.result, st, budget, width) + "\n";
  }
  if (sweep.points.size() > 1) {
    // Each strategy's own best point (over checkpoint.interval: its best interval).
    out += "best point per strategy (mean goodput):\n";
    for (const auto& b : best_point_per_strategy(sweep)) {
      out += fmt::format("  {:<{}} {:<40} {:.2f}%\n", b.label, width,
                         point_setting(sweep.points[b.point].values), b.goodput * 100);
    }
  }
  return out;
}

}  // namespace ntpsim::sim
