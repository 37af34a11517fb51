#include "sim/io/results_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <variant>

#include "models/base/atomic_file.h"
#include "models/base/build_info.h"
#include "models/base/check.h"
#include "models/base/json_writer.h"
#include "sim/metrics/aggregate.h"
#include "sim/scenario/printer.h"
#include "sim/scenario/recovery_costs.h"

namespace ntpsim::sim {
namespace {

using ojson = nlohmann::ordered_json;

bool has_budget(const Scenario& s) { return s.train_tokens > 0; }

// Metric indices written for this scenario, in display order.
std::vector<size_t> metric_indices(const Scenario& s) {
  std::vector<size_t> out;
  for (size_t k = 0; k < kMetricCount; ++k) {
    if (k == static_cast<size_t>(Metric::kTimeToTrainDays) && !has_budget(s)) continue;
    out.push_back(k);
  }
  return out;
}

ojson number(double v) { return std::isfinite(v) ? ojson(v) : ojson(nullptr); }

// The metric the writer derives from the engine's (not a sim::Metric): absolute throughput.
constexpr const char* kTokensKey = "tokens_per_s_per_gpu";

std::vector<double> tokens_column(const RunResult& r, const StrategyRun& run) {
  std::vector<double> v;
  v.reserve(run.replications.size());
  for (const auto& rep : run.replications)
    v.push_back(tokens_per_s_per_gpu(r, at(rep, Metric::kPerGpuGoodput)));
  return v;
}

ojson stat_json(const Stat& st) {
  ojson j;
  j["mean"] = number(st.mean);
  j["sd"] = number(st.sd);
  j["ci95_lo"] = number(st.ci95_lo);
  j["ci95_hi"] = number(st.ci95_hi);
  j["p5"] = number(st.p5);
  j["p50"] = number(st.p50);
  j["p95"] = number(st.p95);
  j["min"] = number(st.min);
  j["max"] = number(st.max);
  j["n"] = st.n;
  return j;
}

std::vector<double> column(const StrategyRun& run, size_t k) {
  std::vector<double> v;
  v.reserve(run.replications.size());
  for (const auto& rep : run.replications) v.push_back(rep[k]);
  return v;
}

ojson diff_json(const PairedDiff& d) {
  ojson j;
  j["mean"] = number(d.mean);
  j["ci95_lo"] = number(d.ci95_lo);
  j["ci95_hi"] = number(d.ci95_hi);
  j["n"] = d.n;
  return j;
}

// Every pair (i < j) of strategies, as strategies[j] - strategies[i]: the pairs against the
// first strategy come first, in the order the document always had them.
ojson paired_json(const Scenario& s, const RunResult& r) {
  ojson out = ojson::array();
  std::vector<Metric> keys = {Metric::kGoodput, Metric::kPerGpuGoodput};
  if (has_budget(s)) keys.push_back(Metric::kTimeToTrainDays);
  for (size_t i = 0; i + 1 < r.strategies.size(); ++i) {
    const StrategyRun& base = r.strategies[i];
    for (size_t j = i + 1; j < r.strategies.size(); ++j) {
      for (Metric m : keys) {
        const size_t k = static_cast<size_t>(m);
        ojson one;
        one["strategy"] = r.strategies[j].name;
        one["baseline"] = base.name;
        // Labels are unique where names may repeat (e.g. ntp and ntp in place).
        one["strategy_label"] = r.strategies[j].label;
        one["baseline_label"] = base.label;
        one["metric"] = metric_infos()[k].key;
        one.update(diff_json(paired_difference(column(r.strategies[j], k), column(base, k))));
        out.push_back(std::move(one));
      }
    }
  }
  return out;
}

ojson verdict_json(const Scenario& s, const Verdict& v) {
  ojson j;
  j["metric"] = v.metric;
  j["winner"] = v.winner;
  j["winner_label"] = v.winner_label;
  j["winner_mean"] = number(v.winner_stat.mean);
  j["winner_ci95_lo"] = number(v.winner_stat.ci95_lo);
  j["winner_ci95_hi"] = number(v.winner_stat.ci95_hi);
  if (!v.runner_up.empty()) {
    j["runner_up"] = v.runner_up;
    j["runner_up_label"] = v.runner_up_label;
    j["margin"] = diff_json(v.margin);
  }
  j["tied"] = v.tied;
  j["tied_with"] = v.tied_with;
  j["tied_with_labels"] = v.tied_with_labels;
  j[kTokensKey] = number(v.tokens_per_s_per_gpu);
  if (has_budget(s)) j["time_to_train_days"] = number(v.time_to_train_days);
  j["setting"] = v.setting;
  return j;
}

std::string param_text(const ParamValue& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* t = std::get_if<std::string>(&v)) return *t;
  return fmt::format("{:.6g}", std::get<double>(v));
}

// The "timeline" object, written through a JsonWriter (streamed: a year of a large job holds
// hundreds of thousands of entries, which as a tree would cost far more memory and time than
// the text) or a JsonTreeWriter (for code that reads trees); one function, so both agree.
template <typename Writer>
void write_timeline(Writer& w, const RunResult& r) {
  w.begin_object();
  w.field("replication", 0).field("horizon_s", r.horizon_s);
  w.field("domains", r.layout.domains()).field("gpus_per_domain", r.layout.gpus_per_domain);
  w.key("failures").begin_array();
  for (const auto& f : r.failures) {
    w.begin_object().field("t_s", f.t_s).field("end_s", f.end_s).field("domain", f.domain);
    w.field("gpus", f.gpus).field("kind", f.kind).field("component", f.component);
    w.field("interrupts", f.interrupts).end_object();
  }
  w.end_array();
  // Keyed by label: labels are unique in a run, names are not (the same strategy may run twice
  // with different parameters).
  w.key("strategies").begin_object();
  for (size_t i = 0; i < r.strategies.size(); ++i) {
    const StrategyRun& st = r.strategies[i];
    for (size_t j = 0; j < i; ++j) {
      NTPSIM_CHECK_MSG(r.strategies[j].label != st.label, "strategy labels are unique in a run");
    }
    const StrategyTimeline& tl = st.timeline;
    w.key(st.label).begin_object();
    w.key("segments").begin_array();
    for (const auto& g : tl.segments) {
      w.begin_object().field("t_s", g.t_s).field("end_s", g.end_s).field("state", g.state);
      w.field("throughput", g.throughput).field("usable_gpus", g.usable_gpus);
      w.field("failed_gpus", g.failed_gpus).end_object();
    }
    w.end_array().key("marks").begin_array();
    for (const auto& m : tl.marks) {
      w.begin_object().field("t_s", m.t_s).field("type", m.type);
      if (m.duration_s > 0) w.field("duration_s", m.duration_s);
      w.end_object();
    }
    w.end_array().key("domains").begin_array();
    for (const auto& d : tl.domains) {
      w.begin_object().field("domain", d.domain).field("t_s", d.t_s).field("state", d.state);
      w.field("tp", d.tp).field("power_ratio", d.power_ratio).end_object();
    }
    w.end_array();
    w.field("truncated", tl.truncated);
    w.field("recorded_until_s", tl.truncated          ? tl.recorded_until_s
                                : tl.segments.empty() ? 0.0
                                                      : tl.segments.back().end_s);
    w.end_object();
  }
  w.end_object();
  w.end_object();
}

ojson metrics_list(const Scenario& s) {
  ojson out = ojson::array();
  for (size_t k : metric_indices(s)) {
    ojson j;
    j["key"] = metric_infos()[k].key;
    j["label"] = metric_infos()[k].label;
    j["unit"] = metric_infos()[k].unit;
    out.push_back(std::move(j));
  }
  ojson tokens;
  tokens["key"] = kTokensKey;
  tokens["label"] = "Tokens/s per GPU";
  tokens["unit"] = "tokens/s/GPU";
  out.push_back(std::move(tokens));
  return out;
}

ojson scenario_json(const Scenario& s) { return ojson::parse(to_json(s).dump()); }

}  // namespace

double tokens_per_s_per_gpu(const RunResult& r, double per_gpu_goodput) {
  if (!(r.ideal_tokens_per_s > 0.0) || r.layout.job_gpus <= 0) return std::nan("");
  return per_gpu_goodput * r.ideal_tokens_per_s / static_cast<double>(r.layout.job_gpus);
}

std::optional<Verdict> run_verdict(const Scenario& s, const RunResult& r) {
  const size_t k = static_cast<size_t>(Metric::kGoodput);
  std::vector<Stat> stats;
  for (const auto& st : r.strategies) stats.push_back(summarize(column(st, k)));
  // Highest mean first; ties in the mean keep the document's order (deterministic).
  std::vector<size_t> order;
  for (size_t i = 0; i < stats.size(); ++i) {
    if (std::isfinite(stats[i].mean)) order.push_back(i);
  }
  if (order.empty()) return std::nullopt;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return stats[a].mean > stats[b].mean; });
  const StrategyRun& w = r.strategies[order[0]];
  Verdict v;
  v.winner = w.name;
  v.winner_label = w.label;
  v.winner_stat = stats[order[0]];
  auto contains_zero = [](const PairedDiff& d) {
    return d.n < 2 || !(d.ci95_lo > 0.0 || d.ci95_hi < 0.0);
  };
  for (size_t n = 1; n < order.size(); ++n) {
    const StrategyRun& other = r.strategies[order[n]];
    const PairedDiff d = paired_difference(column(w, k), column(other, k));
    if (n == 1) {
      v.runner_up = other.name;
      v.runner_up_label = other.label;
      v.margin = d;
      v.tied = contains_zero(d);
    }
    if (contains_zero(d)) {
      v.tied_with.push_back(other.name);
      v.tied_with_labels.push_back(other.label);
    }
  }
  v.tokens_per_s_per_gpu = summarize(tokens_column(r, w)).mean;
  if (s.train_tokens > 0)
    v.time_to_train_days = summarize(column(w, static_cast<size_t>(Metric::kTimeToTrainDays))).mean;
  // With per-strategy intervals the winner may write no checkpoint inside the run (its interval
  // is the horizon: it is never rolled back).
  const bool no_checkpoint = s.checkpoint.auto_interval && !s.checkpoint.shared_auto_interval &&
                             w.checkpoint_interval_s >= r.horizon_s;
  v.setting =
      fmt::format("{}; {} spare domain{}",
                  no_checkpoint ? std::string("no checkpoint in the run (never rolled back)")
                                : fmt::format("checkpoint every {:.0f} s", w.checkpoint_interval_s),
                  r.layout.spare_domains, r.layout.spare_domains == 1 ? "" : "s");
  for (const auto& cfg : s.strategies) {
    if (cfg.name != w.name || cfg.label != w.label) continue;
    for (const auto& [name, value] : cfg.params)
      v.setting += fmt::format("; {}={}", name, param_text(value));
    // A policy chain: its actions in order, each with its options.
    for (size_t i = 0; i < cfg.chain.size(); ++i) {
      const ChainStep& step = cfg.chain[i];
      v.setting += fmt::format("{}{}", i == 0 ? "; chain: " : " -> ", step.action);
      std::string opts;
      for (const auto& [name, value] : step.params) {
        if (!opts.empty()) opts += ", ";
        opts += fmt::format("{}={}", name, param_text(value));
      }
      if (!opts.empty()) v.setting += " (" + opts + ")";
    }
  }
  return v;
}

std::string verdict_text(const Verdict& v) {
  auto pts = [](double f) { return fmt::format("{:+.2f}", 100.0 * f); };
  std::string out;
  if (v.runner_up.empty()) {
    out = fmt::format("verdict: {} (the only strategy): goodput {:.2f}%", v.winner_label,
                      100.0 * v.winner_stat.mean);
  } else if (v.tied) {
    out = fmt::format(
        "verdict: statistically tied: {} and {} (goodput difference {} pts, 95% CI [{}, {}], "
        "paired over {} replications)",
        v.winner_label, v.runner_up_label, pts(v.margin.mean), pts(v.margin.ci95_lo),
        pts(v.margin.ci95_hi), v.margin.n);
  } else {
    out = fmt::format(
        "verdict: {} wins: goodput {:.2f}%, {} pts over {} (95% CI [{}, {}], paired over {} "
        "replications)",
        v.winner_label, 100.0 * v.winner_stat.mean, pts(v.margin.mean), v.runner_up_label,
        pts(v.margin.ci95_lo), pts(v.margin.ci95_hi), v.margin.n);
  }
  if (std::isfinite(v.tokens_per_s_per_gpu))
    out += fmt::format("; {:.1f} tokens/s/GPU", v.tokens_per_s_per_gpu);
  if (std::isfinite(v.time_to_train_days))
    out += fmt::format("; time to train {:.2f} days", v.time_to_train_days);
  out += "\n         setting: " + v.setting + "\n";
  return out;
}

ojson results_context(const Scenario& s, const RunResult& r) {
  const BuildInfo& b = build_info();
  ojson c;
  c["tool"] = "ntpsim";
  c["version"] = b.version;
  c["git_sha"] = b.git_sha;
  c["build_type"] = b.build_type;
  c["sanitized"] = b.sanitized;
  c["scenario_name"] = s.name;
  c["scenario_file"] = s.file;
  c["scenario_hash"] = scenario_hash(s);
  c["seed"] = s.seed;
  c["replications"] = r.replications;
  c["hardware_profile"] = s.hardware.name;
  c["profile_origin"] = s.hardware.origin;
  c["step_model"] = r.step_model;
  c["gpus"] = r.layout.cluster_gpus;
  c["job_gpus"] = r.layout.job_gpus;
  c["horizon_s"] = r.horizon_s;
  c["train_tokens"] = s.train_tokens;
  // One interval for all strategies, or null when each has its own (strategies[].checkpoint_
  // interval_s).
  const bool per_strategy = s.checkpoint.auto_interval && !s.checkpoint.shared_auto_interval;
  c["checkpoint_interval_s"] = per_strategy ? ojson(nullptr) : ojson(r.checkpoint_interval_s);
  c["checkpoint_interval_mode"] = !s.checkpoint.auto_interval         ? "fixed"
                                  : s.checkpoint.shared_auto_interval ? "auto_shared"
                                                                      : "auto_per_strategy";
  c["failures_during_pause"] = to_string(s.recovery.failures_during_pause);
  c["ideal_tokens_per_s"] = r.ideal_tokens_per_s;
  c["ideal_tokens_per_s_per_gpu"] =
      r.layout.job_gpus > 0 ? r.ideal_tokens_per_s / r.layout.job_gpus : 0.0;
  // Each recovery and checkpoint cost as used, with its plausible range and source, so a report
  // can say where the numbers that decide the ranking come from.
  c["recovery_profile"] = recovery_profile_of(s);
  ojson costs = ojson::array();
  for (const auto& row : recovery_cost_ranges()) {
    ojson e;
    e["field"] = row.field;
    e["value"] = recovery_cost_value(s, row.field).value_or(row.value);
    e["low"] = row.low;
    e["high"] = row.high;
    e["unit"] = row.unit;
    e["source"] = row.source;
    costs.push_back(std::move(e));
  }
  c["recovery_costs"] = std::move(costs);
  return c;
}

ojson strategies_json(const Scenario& s, const RunResult& r, bool with_replications) {
  ojson out = ojson::array();
  const auto keys = metric_indices(s);
  for (const auto& st : r.strategies) {
    ojson j;
    j["name"] = st.name;
    j["label"] = st.label;
    j["checkpoint_interval_s"] = st.checkpoint_interval_s;
    if (!st.resume.empty()) j["resume"] = st.resume;
    ojson summary;
    for (size_t k : keys) summary[metric_infos()[k].key] = stat_json(summarize(column(st, k)));
    const std::vector<double> tokens = tokens_column(r, st);
    summary[kTokensKey] = stat_json(summarize(tokens));
    j["summary"] = std::move(summary);
    if (with_replications) {
      ojson reps = ojson::array();
      for (size_t i = 0; i < st.replications.size(); ++i) {
        const auto& rep = st.replications[i];
        ojson row;
        for (size_t k : keys) row[metric_infos()[k].key] = number(rep[k]);
        row[kTokensKey] = number(tokens[i]);
        reps.push_back(std::move(row));
      }
      j["replications"] = std::move(reps);
    }
    out.push_back(std::move(j));
  }
  return out;
}

ojson run_document(const Scenario& s, const RunResult& r, bool with_timeline) {
  ojson d;
  d["schema"] = "ntpsim-results/1";
  d["kind"] = "run";
  d["context"] = results_context(s, r);
  d["warnings"] = r.warnings;
  d["scenario"] = scenario_json(s);
  d["metrics"] = metrics_list(s);
  d["strategies"] = strategies_json(s, r, true);
  d["paired"] = paired_json(s, r);
  if (auto v = run_verdict(s, r)) d["verdict"] = verdict_json(s, *v);
  if (with_timeline) {
    JsonTreeWriter<ojson> w;
    write_timeline(w, r);
    d["timeline"] = std::move(w).take();
  }
  return d;
}

nlohmann::json report_document(const Scenario& s, const RunResult& r) {
  nlohmann::json d = run_document(s, r, false);
  JsonTreeWriter<nlohmann::json> w;
  write_timeline(w, r);
  d["timeline"] = std::move(w).take();
  return d;
}

std::string run_document_text(const Scenario& s, const RunResult& r) {
  const ojson head = run_document(s, r, false);
  std::string out;
  JsonWriter w(out, 1);
  w.begin_object();
  for (const auto& [key, value] : head.items()) w.key(key).value(value);
  w.key("timeline");
  write_timeline(w, r);
  w.end_object();
  NTPSIM_CHECK(w.complete());
  out += '\n';
  return out;
}

ojson sweep_document(const SweepRun& sweep) {
  ojson d;
  d["schema"] = "ntpsim-results/1";
  d["kind"] = "sweep";
  const auto& points = sweep.points;
  const Scenario& first = points.empty() ? sweep.base : points.front().scenario;
  if (!points.empty()) d["context"] = results_context(first, points.front().result);
  std::vector<std::string> warnings;
  for (const auto& p : points) {
    std::string where;
    for (const auto& [k, v] : p.values) where += (where.empty() ? "" : ", ") + k + "=" + v;
    for (const auto& w : p.result.warnings) warnings.push_back(fmt::format("[{}] {}", where, w));
  }
  d["warnings"] = warnings;
  d["scenario"] = scenario_json(sweep.base);
  d["metrics"] = metrics_list(first);
  d["strategies"] = points.empty() ? ojson::array()
                                   : strategies_json(first, points.front().result, false);
  d["paired"] = points.empty() ? ojson::array() : paired_json(first, points.front().result);
  // The sweep's verdict: the point whose winner has the highest mean goodput, with that point's
  // paired margin (pairs exist only within a point: points differ in their scenario).
  std::optional<Verdict> best;
  size_t best_point = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    auto v = run_verdict(points[i].scenario, points[i].result);
    if (v && (!best || v->winner_stat.mean > best->winner_stat.mean)) {
      best = std::move(v);
      best_point = i;
    }
  }
  if (best) {
    ojson v = verdict_json(points[best_point].scenario, *best);
    v["point"] = best_point;
    ojson values;
    for (const auto& [k, val] : points[best_point].values) values[k] = val;
    v["values"] = std::move(values);
    d["verdict"] = std::move(v);
  }
  ojson sw;
  sw["parameters"] = sweep.parameters;
  ojson pts = ojson::array();
  for (const auto& p : points) {
    ojson one;
    ojson values;
    for (const auto& [k, v] : p.values) values[k] = v;
    one["values"] = std::move(values);
    one["strategies"] = strategies_json(p.scenario, p.result, false);
    one["paired"] = paired_json(p.scenario, p.result);
    if (auto v = run_verdict(p.scenario, p.result)) one["verdict"] = verdict_json(p.scenario, *v);
    pts.push_back(std::move(one));
  }
  sw["points"] = std::move(pts);
  ojson best_each = ojson::array();
  for (const auto& b : best_point_per_strategy(sweep)) {
    ojson one;
    one["strategy"] = b.name;
    one["label"] = b.label;
    one["point"] = b.point;
    ojson values;
    for (const auto& [k, v] : points[b.point].values) values[k] = v;
    one["values"] = std::move(values);
    one["goodput"] = b.goodput;
    for (const auto& st : points[b.point].result.strategies) {
      if (st.label == b.label) one["checkpoint_interval_s"] = st.checkpoint_interval_s;
    }
    best_each.push_back(std::move(one));
  }
  sw["best_per_strategy"] = std::move(best_each);
  d["sweep"] = std::move(sw);
  return d;
}

}  // namespace ntpsim::sim
