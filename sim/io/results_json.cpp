#include "sim/io/results_json.h"

#include "models/base/atomic_file.h"

#include <cmath>
#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "models/base/build_info.h"
#include "sim/metrics/aggregate.h"
#include "sim/scenario/printer.h"

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

ojson paired_json(const Scenario& s, const RunResult& r) {
  ojson out = ojson::array();
  if (r.strategies.size() < 2) return out;
  const StrategyRun& base = r.strategies.front();
  std::vector<Metric> keys = {Metric::kGoodput, Metric::kPerGpuGoodput};
  if (has_budget(s)) keys.push_back(Metric::kTimeToTrainDays);
  for (size_t i = 1; i < r.strategies.size(); ++i) {
    for (Metric m : keys) {
      const size_t k = static_cast<size_t>(m);
      const PairedDiff d = paired_difference(column(r.strategies[i], k), column(base, k));
      ojson j;
      j["strategy"] = r.strategies[i].name;
      j["baseline"] = base.name;
      j["metric"] = metric_infos()[k].key;
      j["mean"] = number(d.mean);
      j["ci95_lo"] = number(d.ci95_lo);
      j["ci95_hi"] = number(d.ci95_hi);
      j["n"] = d.n;
      out.push_back(std::move(j));
    }
  }
  return out;
}

ojson timeline_json(const RunResult& r) {
  ojson t;
  t["replication"] = 0;
  t["horizon_s"] = r.horizon_s;
  t["domains"] = r.layout.domains();
  t["gpus_per_domain"] = r.layout.gpus_per_domain;
  ojson failures = ojson::array();
  for (const auto& f : r.failures) {
    ojson j;
    j["t_s"] = f.t_s;
    j["end_s"] = f.end_s;
    j["domain"] = f.domain;
    j["gpus"] = f.gpus;
    j["kind"] = f.kind;
    j["component"] = f.component;
    j["interrupts"] = f.interrupts;
    failures.push_back(std::move(j));
  }
  t["failures"] = std::move(failures);
  ojson strategies = ojson::object();
  for (const auto& st : r.strategies) {
    ojson segs = ojson::array(), marks = ojson::array(), domains = ojson::array();
    for (const auto& g : st.timeline.segments) {
      ojson j;
      j["t_s"] = g.t_s;
      j["end_s"] = g.end_s;
      j["state"] = g.state;
      j["throughput"] = g.throughput;
      j["usable_gpus"] = g.usable_gpus;
      j["failed_gpus"] = g.failed_gpus;
      segs.push_back(std::move(j));
    }
    for (const auto& m : st.timeline.marks) {
      ojson j;
      j["t_s"] = m.t_s;
      j["type"] = m.type;
      marks.push_back(std::move(j));
    }
    for (const auto& d : st.timeline.domains) {
      ojson j;
      j["domain"] = d.domain;
      j["t_s"] = d.t_s;
      j["state"] = d.state;
      j["tp"] = d.tp;
      j["power_ratio"] = d.power_ratio;
      domains.push_back(std::move(j));
    }
    ojson one;
    one["segments"] = std::move(segs);
    one["marks"] = std::move(marks);
    one["domains"] = std::move(domains);
    one["truncated"] = st.timeline.truncated;
    strategies[st.name] = std::move(one);
  }
  t["strategies"] = std::move(strategies);
  return t;
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
  return out;
}

ojson scenario_json(const Scenario& s) { return ojson::parse(to_json(s).dump()); }

}  // namespace

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
  c["checkpoint_interval_s"] = r.checkpoint_interval_s;
  c["ideal_tokens_per_s"] = r.ideal_tokens_per_s;
  c["ideal_tokens_per_s_per_gpu"] =
      r.layout.job_gpus > 0 ? r.ideal_tokens_per_s / r.layout.job_gpus : 0.0;
  return c;
}

ojson strategies_json(const Scenario& s, const RunResult& r, bool with_replications) {
  ojson out = ojson::array();
  const auto keys = metric_indices(s);
  for (const auto& st : r.strategies) {
    ojson j;
    j["name"] = st.name;
    j["label"] = st.label;
    ojson summary;
    for (size_t k : keys) summary[metric_infos()[k].key] = stat_json(summarize(column(st, k)));
    j["summary"] = std::move(summary);
    if (with_replications) {
      ojson reps = ojson::array();
      for (const auto& rep : st.replications) {
        ojson row;
        for (size_t k : keys) row[metric_infos()[k].key] = number(rep[k]);
        reps.push_back(std::move(row));
      }
      j["replications"] = std::move(reps);
    }
    out.push_back(std::move(j));
  }
  return out;
}

ojson run_document(const Scenario& s, const RunResult& r) {
  ojson d;
  d["schema"] = "ntpsim-results/1";
  d["kind"] = "run";
  d["context"] = results_context(s, r);
  d["warnings"] = r.warnings;
  d["scenario"] = scenario_json(s);
  d["metrics"] = metrics_list(s);
  d["strategies"] = strategies_json(s, r, true);
  d["paired"] = paired_json(s, r);
  d["timeline"] = timeline_json(r);
  return d;
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
  ojson sw;
  sw["parameters"] = sweep.parameters;
  ojson pts = ojson::array();
  for (const auto& p : points) {
    ojson one;
    ojson values;
    for (const auto& [k, v] : p.values) values[k] = v;
    one["values"] = std::move(values);
    one["strategies"] = strategies_json(p.scenario, p.result, false);
    pts.push_back(std::move(one));
  }
  sw["points"] = std::move(pts);
  d["sweep"] = std::move(sw);
  return d;
}

std::string results_csv(const Scenario& s, const RunResult& r) {
  std::string out;
  const ojson ctx = results_context(s, r);
  for (const auto& [k, v] : ctx.items()) {
    out += fmt::format("# {}: {}\n", k, v.is_string() ? v.get<std::string>() : v.dump());
  }
  const auto keys = metric_indices(s);
  out += "strategy,replication";
  for (size_t k : keys) out += fmt::format(",{}", metric_infos()[k].key);
  out += "\n";
  auto cell = [](double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string(); };
  for (const auto& st : r.strategies) {
    for (size_t i = 0; i < st.replications.size(); ++i) {
      out += fmt::format("{},{}", st.name, i);
      for (size_t k : keys) out += "," + cell(st.replications[i][k]);
      out += "\n";
    }
  }
  for (const auto& st : r.strategies) {
    std::vector<Stat> stats;
    for (size_t k : keys) stats.push_back(summarize(column(st, k)));
    const std::pair<const char*, double Stat::*> rows[] = {
        {"mean", &Stat::mean}, {"ci95_lo", &Stat::ci95_lo}, {"ci95_hi", &Stat::ci95_hi}};
    for (const auto& [name, field] : rows) {
      out += fmt::format("{},{}", st.name, name);
      for (const auto& stat : stats) out += "," + cell(stat.*field);
      out += "\n";
    }
  }
  return out;
}

Status write_file_atomic(const std::string& path, const std::string& text) {
  return ntpsim::write_file_atomic(path, std::string_view(text));  // models/base/atomic_file.h
}

}  // namespace ntpsim::sim
