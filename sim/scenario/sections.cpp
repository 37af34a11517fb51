// Section readers: cluster, failures, checkpoint, recovery, replications, outputs (sections.h).
#include "sim/scenario/sections.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <utility>

#include "models/base/units.h"
#include "sim/scenario/fields.h"

namespace ntpsim::sim::scenario_internal {
namespace {

const std::vector<std::string>& component_names() {
  static const std::vector<std::string> kNames = {"gpu", "node", "domain", "pod"};
  return kNames;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Field path of list element `i` under `path`.
std::string element(const std::string& path, size_t i) {
  return fmt::format("{}[{}]", path, i);
}

Error list_error(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                 const std::string& what) {
  return Error::at(ctx.locate(node, path), path, what);
}

Status read_repair(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                   RepairDist& out) {
  NTPSIM_RETURN_IF_ERROR(
      reject_unknown_keys(node, path, ctx, {"distribution", "mean", "sigma", "shape", "values"}));
  auto r = MapReader::make(node, path, ctx);
  if (!r.ok()) return r.error();
  NTPSIM_RETURN_IF_ERROR(r->choice("distribution", out.distribution,
                                   {"fixed", "exponential", "lognormal", "weibull", "empirical"},
                                   false));
  const bool empirical = out.distribution == "empirical";
  NTPSIM_RETURN_IF_ERROR(read_duration(*r, "mean", out.mean_s, !empirical, 1.0, kMaxCostS * 10));
  if (r->has("sigma") && out.distribution != "lognormal") {
    return r->error("sigma", "sigma applies only to distribution: lognormal");
  }
  NTPSIM_RETURN_IF_ERROR(r->number("sigma", out.sigma, false, 1e-6, 10.0));
  if (r->has("shape") && out.distribution != "weibull") {
    return r->error("shape", "shape applies only to distribution: weibull");
  }
  NTPSIM_RETURN_IF_ERROR(r->number("shape", out.shape, false, 0.05, 100.0));
  const YAML::Node values = r->child("values");
  if (values.IsDefined() && !empirical) {
    return r->error("values", "values apply only to distribution: empirical");
  }
  if (empirical) {
    if (r->has("mean"))
      return r->error("mean", "an empirical distribution takes values, not a mean");
    if (!values.IsDefined() || !values.IsSequence() || values.size() == 0) {
      return values.IsDefined()
                 ? r->error("values",
                            fmt::format("expected a list of durations, got {}", yaml_kind(values)))
                 : r->error_here("missing required field \"values\" (a list of durations)");
    }
    out.values_s.clear();
    double sum = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      const std::string p = element(join_path(path, "values"), i);
      if (!values[i].IsScalar()) {
        return list_error(values[i], p, ctx,
                          fmt::format("expected a duration, got {}", yaml_kind(values[i])));
      }
      auto d = units::parse_duration_s(values[i].Scalar());
      if (!d.ok()) return list_error(values[i], p, ctx, d.error().message);
      if (!(*d >= 1.0 && *d <= kMaxCostS * 10)) {
        return list_error(
            values[i], p, ctx,
            fmt::format("\"{}\" is out of range: must be between 1s and 10y", values[i].Scalar()));
      }
      out.values_s.push_back(*d);
      sum += *d;
    }
    out.mean_s = sum / static_cast<double>(out.values_s.size());
  }
  return r->finish();
}

Status read_kinds(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                  std::vector<FailureKind>& out) {
  if (!node.IsSequence() || node.size() == 0) {
    return list_error(node, path, ctx,
                      fmt::format("expected a list of failure kinds, got {}", yaml_kind(node)));
  }
  double total = 0;
  std::set<std::string> names;
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string p = element(path, i);
    NTPSIM_RETURN_IF_ERROR(
        reject_unknown_keys(node[i], p, ctx, {"name", "share", "interrupts", "repair"}));
    auto r = MapReader::make(node[i], p, ctx);
    if (!r.ok()) return r.error();
    FailureKind k;
    NTPSIM_RETURN_IF_ERROR(r->string("name", k.name, true));
    if (!names.insert(k.name).second) {
      return r->error("name", fmt::format("kind \"{}\" appears twice", k.name));
    }
    NTPSIM_RETURN_IF_ERROR(read_fraction(*r, "share", k.share, false, 0.0, 1.0));
    NTPSIM_RETURN_IF_ERROR(r->boolean("interrupts", k.interrupts, false));
    const YAML::Node repair = r->child("repair");
    if (!repair.IsDefined()) return r->error_here("missing required field \"repair\"");
    NTPSIM_RETURN_IF_ERROR(read_repair(repair, join_path(p, "repair"), ctx, k.repair));
    NTPSIM_RETURN_IF_ERROR(r->finish());
    total += k.share;
    out.push_back(std::move(k));
  }
  if (std::fabs(total - 1.0) > kShareTolerance) {
    return list_error(node, path, ctx,
                      fmt::format("kind shares sum to {:.6g}, expected 1 (tolerance {:g})", total,
                                  kShareTolerance));
  }
  return Status::Ok();
}

Status read_process(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                    FailureProcess& out) {
  NTPSIM_RETURN_IF_ERROR(reject_unknown_keys(node, path, ctx,
                                             {"component", "rate", "mtbf", "distribution", "shape",
                                              "kinds", "lemon", "burst", "excitation", "regime",
                                              "partner_delays", "deferred_repairs", "shared_repairs"}));
  auto r = MapReader::make(node, path, ctx);
  if (!r.ok()) return r.error();
  std::string component = "gpu";
  NTPSIM_RETURN_IF_ERROR(r->choice("component", component, component_names(), false));
  out.component = component_from(component);

  const bool has_rate = r->has("rate");
  const bool has_mtbf = r->has("mtbf");
  if (has_rate && has_mtbf) return r->error("mtbf", "give either rate or mtbf, not both");
  if (!has_rate && !has_mtbf) {
    return r->error_here("missing required field \"rate\" (or \"mtbf\")");
  }
  if (has_rate) {
    const YAML::Node n = r->child("rate");
    if (!n.IsScalar()) {
      return r->error("rate",
                      fmt::format("expected a rate such as \"1.97e-5/h\", got {}", yaml_kind(n)));
    }
    auto rate = units::parse_rate(n.Scalar());
    if (!rate.ok()) return r->error("rate", rate.error().message);
    const std::string noun = lower(rate->unit_noun);
    const bool noun_ok = noun.empty() || noun == component ||
                         (component == "domain" && noun == "rack") ||
                         (component == "node" && noun == "tray");
    if (!noun_ok) {
      return r->error("rate", fmt::format("the rate is per {} but the component is {}",
                                          rate->unit_noun, component));
    }
    if (!(rate->per_second > 0 && rate->per_second <= 1.0)) {
      return r->error("rate", fmt::format("\"{}\" is out of range: a unit must fail more than "
                                          "never and at most once a second",
                                          n.Scalar()));
    }
    out.rate_per_unit_s = rate->per_second;
  } else {
    double mtbf_s = 0;
    NTPSIM_RETURN_IF_ERROR(read_duration(*r, "mtbf", mtbf_s, true, 1.0, kMaxHorizonS * 1e3));
    out.rate_per_unit_s = 1.0 / mtbf_s;
  }

  NTPSIM_RETURN_IF_ERROR(r->choice("distribution", out.distribution,
                                   {"exponential", "weibull", "lognormal", "hawkes"}, false));
  if (r->has("shape") && (out.distribution == "exponential" || out.distribution == "hawkes")) {
    return r->error("shape", "shape applies only to distribution: weibull or lognormal");
  }
  NTPSIM_RETURN_IF_ERROR(r->number("shape", out.shape, false, 0.05, 100.0));
  const YAML::Node excitation = r->child("excitation");
  if (out.distribution == "hawkes") {
    if (!excitation.IsDefined()) {
      return r->error("distribution",
                      "distribution: hawkes needs excitation: {branching, mean_delay}");
    }
    auto e = MapReader::make(excitation, join_path(path, "excitation"), ctx);
    if (!e.ok()) return e.error();
    NTPSIM_RETURN_IF_ERROR(e->number("branching", out.branching, true, 0.0, 0.99));
    // At least a second (the scenario's time resolution), at most a century.
    NTPSIM_RETURN_IF_ERROR(
        read_duration(*e, "mean_delay", out.excitation_mean_s, true, 1.0, 100 * 365.25 * 86400.0));
    // The slow component comes whole or not at all, and the two together must settle.
    const bool slow_n = e->has("slow_branching"), slow_d = e->has("slow_mean_delay");
    if (slow_n != slow_d) {
      return e->error(slow_n ? "slow_branching" : "slow_mean_delay",
                      "a slow excitation needs both slow_branching and slow_mean_delay");
    }
    if (slow_n) {
      NTPSIM_RETURN_IF_ERROR(e->number("slow_branching", out.slow_branching, true, 0.0, 0.99));
      NTPSIM_RETURN_IF_ERROR(read_duration(*e, "slow_mean_delay", out.slow_excitation_mean_s, true,
                                           1.0, 100 * 365.25 * 86400.0));
      if (!(out.branching + out.slow_branching <= 0.99)) {
        return e->error("slow_branching",
                        fmt::format("branching + slow_branching is {:.6g}; it must be at most "
                                    "0.99 (1 or more never settles)",
                                    out.branching + out.slow_branching));
      }
    }
    NTPSIM_RETURN_IF_ERROR(e->finish());
  } else if (excitation.IsDefined()) {
    return r->error("excitation", "excitation applies only to distribution: hawkes");
  }
  const YAML::Node regime = r->child("regime");
  if (regime.IsDefined()) {
    if (out.distribution != "hawkes") {
      return r->error("regime", "regime applies only to distribution: hawkes");
    }
    auto g = MapReader::make(regime, join_path(path, "regime"), ctx);
    if (!g.ok()) return g.error();
    // A share of 0 or 1 is one state, not two; the ratio orders the states (high over low).
    NTPSIM_RETURN_IF_ERROR(g->number("high_share", out.regime_high_share, true, 1e-6, 0.999999));
    NTPSIM_RETURN_IF_ERROR(g->number("rate_ratio", out.regime_rate_ratio, true, 1.0, 1e6));
    NTPSIM_RETURN_IF_ERROR(read_duration(*g, "high_mean_duration", out.regime_high_mean_s, true,
                                         1.0, 100 * 365.25 * 86400.0));
    NTPSIM_RETURN_IF_ERROR(
        g->number("low_repair_scale", out.regime_low_repair_scale, false, 1e-6, 1e6));
    NTPSIM_RETURN_IF_ERROR(
        g->number("high_repair_scale", out.regime_high_repair_scale, false, 1e-6, 1e6));
    // Repair laws per state come as a pair: a law for one state only would leave the other's
    // repairs undefined.
    const bool low = g->has("low_repair"), high = g->has("high_repair");
    if (low != high) {
      return g->error(low ? "low_repair" : "high_repair",
                      "repair laws per state need both low_repair and high_repair");
    }
    if (low) {
      out.regime_state_repairs = true;
      const char* keys[2] = {"low_repair", "high_repair"};
      for (int st = 0; st < 2; ++st) {
        NTPSIM_RETURN_IF_ERROR(read_repair(g->child(keys[st]),
                                           join_path(join_path(path, "regime"), keys[st]), ctx,
                                           out.regime_repair[st]));
      }
    }
    NTPSIM_RETURN_IF_ERROR(g->finish());
  }

  const YAML::Node kinds = r->child("kinds");
  if (!kinds.IsDefined()) return r->error_here("missing required field \"kinds\"");
  NTPSIM_RETURN_IF_ERROR(read_kinds(kinds, join_path(path, "kinds"), ctx, out.kinds));

  // The optional maps of plain fields, each all-or-nothing (every key of its table).
  const std::pair<const char*, const FieldTable<FailureProcess>*> maps[] = {
      {"lemon", &lemon_fields()},
      {"burst", &burst_fields()},
      {"partner_delays", &partner_delay_fields()},
      {"deferred_repairs", &deferred_repair_fields()},
      {"shared_repairs", &shared_repair_fields()},
  };
  for (const auto& [key, table] : maps) {
    const YAML::Node node_of_map = r->child(key);
    if (!node_of_map.IsDefined()) continue;
    auto m = MapReader::make(node_of_map, join_path(path, key), ctx);
    if (!m.ok()) return m.error();
    NTPSIM_RETURN_IF_ERROR(read_fields(*m, *table, out));
    NTPSIM_RETURN_IF_ERROR(m->finish());
  }
  return r->finish();
}

Status read_trace(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                  TraceConfig& out) {
  const auto& fields = trace_fields();
  NTPSIM_RETURN_IF_ERROR(reject_unknown_keys(node, path, ctx, field_keys(fields)));
  auto r = MapReader::make(node, path, ctx);
  if (!r.ok()) return r.error();
  NTPSIM_RETURN_IF_ERROR(read_fields(*r, fields, out));
  for (const auto& f : fields) out.field_at[f.key] = r->location(f.key);
  return r->finish();
}

}  // namespace

Status read_duration(MapReader& r, std::string_view key, double& out_s, bool required, double min_s,
                     double max_s) {
  const auto parse = [&](std::string_view text) -> Result<double> {
    auto d = units::parse_duration_s(text);
    if (!d.ok()) return d;
    if (!(*d >= min_s && *d <= max_s)) {
      return Error::bad_input(fmt::format("\"{}\" is out of range: must be between {} and {}", text,
                                          units::format_duration(min_s),
                                          units::format_duration(max_s)));
    }
    return d;
  };
  return r.quantity(key, out_s, parse, required, -HUGE_VAL, HUGE_VAL);
}

Status read_fraction(MapReader& r, std::string_view key, double& out, bool required, double min,
                     double max) {
  const auto parse = [&](std::string_view text) -> Result<double> {
    auto f = units::parse_fraction(text);
    if (!f.ok()) return f;
    if (!(*f >= min && *f <= max)) {
      return Error::bad_input(fmt::format("\"{}\" is out of range: must be between {} and {}", text,
                                          units::format_fraction(min),
                                          units::format_fraction(max)));
    }
    return f;
  };
  return r.quantity(key, out, parse, required, -HUGE_VAL, HUGE_VAL);
}

// A duration that may also be "auto" (left unset: derived from the model where it is used).
Status read_auto_duration(MapReader& r, std::string_view key, std::optional<double>& out_s,
                          double min_s, double max_s) {
  const YAML::Node n = r.node()[std::string(key)];
  if (n.IsDefined() && n.IsScalar() && n.Scalar() == "auto") {
    r.mark_used(key);
    out_s.reset();
    return Status::Ok();
  }
  const auto parse = [&](std::string_view text) -> Result<double> {
    auto d = units::parse_duration_s(text);
    if (!d.ok()) {
      return Error::bad_input(
          fmt::format("expected \"auto\" or a duration such as \"30s\", got \"{}\"", text));
    }
    if (!(*d >= min_s && *d <= max_s)) {
      return Error::bad_input(fmt::format("\"{}\" is out of range: must be between {} and {}", text,
                                          units::format_duration(min_s),
                                          units::format_duration(max_s)));
    }
    return d;
  };
  if (!r.has(key)) return Status::Ok();
  double v = out_s.value_or(0.0);
  NTPSIM_RETURN_IF_ERROR(r.quantity(key, v, parse, false, -HUGE_VAL, HUGE_VAL));
  out_s = v;
  return Status::Ok();
}

// `{reference_gpus: N, exponent: a}`: the cost above was measured at N GPUs and scales as
// (job GPUs / N)^a; exponent 0: the same at every size; `none`: no scaling (the same at every
// size, whatever a profile gave).
Status read_cost_scaling(MapReader& parent, std::string_view key, CostScaling& out) {
  if (!parent.has(key)) return Status::Ok();
  const YAML::Node node = parent.child(key);
  if (node.IsScalar() && node.Scalar() == "none") {
    out = CostScaling{};
    return Status::Ok();
  }
  auto r = MapReader::make(node, join_path(parent.path(), key), parent.context());
  if (!r.ok()) return r.error();
  // Keys the map leaves out keep their value (a profile's scaling, or an earlier file's); a new
  // scaling needs its reference size.
  NTPSIM_RETURN_IF_ERROR(r->number("reference_gpus", out.reference_gpus, !out.scales(), 1.0, 1e9));
  NTPSIM_RETURN_IF_ERROR(r->number("exponent", out.exponent, false, -1.0, 1.0));
  return r->finish();
}

Status read_memory_snapshots(const YAML::Node& node, const std::string& path,
                             const YamlContext& ctx, CheckpointConfig::Memory& out) {
  auto r = MapReader::make(node, path, ctx);
  if (!r.ok()) return r.error();
  std::optional<double> interval;
  if (!out.auto_interval) interval = out.interval_s;
  NTPSIM_RETURN_IF_ERROR(read_auto_duration(*r, "interval", interval, 1.0, kMaxCostS));
  out.auto_interval = !interval.has_value();
  if (interval) out.interval_s = *interval;
  NTPSIM_RETURN_IF_ERROR(read_duration(*r, "exposed", out.exposed_s, false, 0.0, kMaxCostS));
  NTPSIM_RETURN_IF_ERROR(read_auto_duration(*r, "restore", out.restore_s, 0.0, kMaxCostS));
  NTPSIM_RETURN_IF_ERROR(r->finish());
  if (!out.auto_interval && out.exposed_s >= out.interval_s) {
    return r->error("interval", fmt::format("a snapshot every {} cannot take {} of pause",
                                            units::format_duration(out.interval_s),
                                            units::format_duration(out.exposed_s)));
  }
  return Status::Ok();
}

Status reject_unknown_keys(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                           const std::vector<std::string>& valid) {
  if (!node.IsMap()) return Status::Ok();
  auto r = MapReader::make(node, path, ctx);
  if (!r.ok()) return r.error();
  for (const auto& k : valid) r->mark_used(k);
  return r->finish();
}

Component component_from(const std::string& name) {
  if (name == "node") return Component::kNode;
  if (name == "domain") return Component::kDomain;
  if (name == "pod") return Component::kPod;
  return Component::kGpu;
}

Status read_cluster(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                    ClusterConfig& out) {
  NTPSIM_RETURN_IF_ERROR(reject_unknown_keys(node, path, ctx, field_keys(cluster_fields())));
  auto r = MapReader::make(node, path, ctx);
  if (!r.ok()) return r.error();
  NTPSIM_RETURN_IF_ERROR(read_fields(*r, cluster_fields(), out));
  NTPSIM_RETURN_IF_ERROR(r->finish());
  if (out.total_gpus() > kMaxGpus) {
    return r->error_here(
        fmt::format("{} domains of {} GPUs (with spares) is {} GPUs, more than "
                    "the {} this simulator accepts",
                    out.total_domains(), out.gpus_per_domain, out.total_gpus(), kMaxGpus));
  }
  if (out.gpus_per_node > 0 && out.gpus_per_domain % out.gpus_per_node != 0) {
    return r->error("gpus_per_node",
                    fmt::format("{} GPUs per node do not divide the {} GPUs of a domain",
                                out.gpus_per_node, out.gpus_per_domain));
  }
  if (out.domains_per_pod > out.total_domains()) {
    return r->error("domains_per_pod",
                    fmt::format("{} domains per pod exceed the cluster's {} domains",
                                out.domains_per_pod, out.total_domains()));
  }
  return Status::Ok();
}

Status read_failures(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                     FailureConfig& out) {
  auto r = MapReader::make(node, path, ctx);
  if (!r.ok()) return r.error();
  const YAML::Node processes = r->child("processes");
  if (processes.IsDefined() && !processes.IsNull()) {
    const std::string p = join_path(path, "processes");
    if (!processes.IsSequence()) {
      return list_error(processes, p, ctx,
                        fmt::format("expected a list of failure processes, "
                                    "got {}",
                                    yaml_kind(processes)));
    }
    for (size_t i = 0; i < processes.size(); ++i) {
      FailureProcess fp;
      NTPSIM_RETURN_IF_ERROR(read_process(processes[i], element(p, i), ctx, fp));
      out.processes.push_back(std::move(fp));
    }
  }
  const YAML::Node trace = r->child("trace");
  if (trace.IsDefined() && !trace.IsNull()) {
    TraceConfig t;
    NTPSIM_RETURN_IF_ERROR(read_trace(trace, join_path(path, "trace"), ctx, t));
    out.trace = std::move(t);
  }
  return r->finish();
}

Status read_checkpoint(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                       CheckpointConfig& out) {
  auto r = MapReader::make(node, path, ctx);
  if (!r.ok()) return r.error();
  NTPSIM_RETURN_IF_ERROR(read_fields(*r, checkpoint_fields(), out));
  NTPSIM_RETURN_IF_ERROR(r->finish());
  if (!out.auto_interval && out.write_s * out.async_exposed_fraction >= out.interval_s) {
    return r->error("interval",
                    fmt::format("a checkpoint every {} cannot take {} of blocking "
                                "write time",
                                units::format_duration(out.interval_s),
                                units::format_duration(out.write_s * out.async_exposed_fraction)));
  }
  return Status::Ok();
}

Status read_recovery(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                     RecoveryConfig& out) {
  auto r = MapReader::make(node, path, ctx);
  if (!r.ok()) return r.error();
  NTPSIM_RETURN_IF_ERROR(read_fields(*r, recovery_fields(), out));
  return r->finish();
}

Status read_replications(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                         ReplicationConfig& out) {
  if (node.IsScalar()) {
    auto n = units::parse_count(node.Scalar());
    if (!n.ok() || *n != std::floor(*n) || *n < 1 || *n > 1'000'000) {
      return Error::at(ctx.locate(node, path), path,
                       fmt::format("expected a whole number of replications in [1, 1000000] or "
                                   "a map with target_ci_halfwidth, got \"{}\"",
                                   node.Scalar()));
    }
    out = ReplicationConfig{};
    out.fixed = static_cast<int>(*n);
    return Status::Ok();
  }
  NTPSIM_RETURN_IF_ERROR(reject_unknown_keys(node, path, ctx, field_keys(replication_fields())));
  auto r = MapReader::make(node, path, ctx);
  if (!r.ok()) return r.error();
  out.fixed = 0;
  NTPSIM_RETURN_IF_ERROR(read_fields(*r, replication_fields(), out));
  NTPSIM_RETURN_IF_ERROR(r->finish());
  if (out.min > out.max) {
    return r->error(r->has("max") ? "max" : "min",
                    fmt::format("min {} exceeds max {}", out.min, out.max));
  }
  return Status::Ok();
}

Status read_outputs(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                    OutputConfig& out) {
  auto r = MapReader::make(node, path, ctx);
  if (!r.ok()) return r.error();
  NTPSIM_RETURN_IF_ERROR(read_fields(*r, output_fields(), out));
  return r->finish();
}

}  // namespace ntpsim::sim::scenario_internal

namespace ntpsim::sim {
const bool kAutoIntervalShared = false;
}  // namespace ntpsim::sim
