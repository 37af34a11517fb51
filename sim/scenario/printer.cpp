// Resolved-scenario printers and the scenario hash (printer.h).
#include "sim/scenario/printer.h"

#include <fmt/format.h>

#include "models/base/random.h"
#include "models/base/units.h"
#include "sim/scenario/fields.h"
#include "sim/scenario/recovery_costs.h"
#include "sim/scenario/strategy_entry.h"
#include "sim/scenario/vocabulary.h"

namespace ntpsim::sim {
namespace {

using nlohmann::json;
using scenario_internal::fields_json;
using scenario_internal::fields_yaml;
using scenario_internal::PrintContext;

// Doubles as short text so the YAML is the same on every platform; as many digits as reading
// the text back needs to give the same double (the resolved output reloads exactly).
std::string num(double v) {
  return units::format_number_exact(v);
}

YAML::Node repair_yaml(const RepairDist& r) {
  YAML::Node n(YAML::NodeType::Map);
  n["distribution"] = r.distribution;
  if (r.distribution == "empirical") {
    YAML::Node values(YAML::NodeType::Sequence);
    for (const double v : r.values_s) values.push_back(units::format_duration_exact(v));
    values.SetStyle(YAML::EmitterStyle::Flow);
    n["values"] = values;
    return n;
  }
  n["mean"] = units::format_duration_exact(r.mean_s);
  if (r.distribution == "lognormal") n["sigma"] = num(r.sigma);
  if (r.distribution == "weibull") n["shape"] = num(r.shape);
  return n;
}

YAML::Node process_yaml(const FailureProcess& p) {
  YAML::Node n(YAML::NodeType::Map);
  n["component"] = to_string(p.component);
  n["rate"] = units::format_rate_exact(p.rate_per_unit_s);
  n["distribution"] = p.distribution;
  if (p.distribution == "weibull" || p.distribution == "lognormal") n["shape"] = num(p.shape);
  if (p.distribution == "hawkes") {
    YAML::Node e(YAML::NodeType::Map);
    e["branching"] = num(p.branching);
    e["mean_delay"] = units::format_duration_exact(p.excitation_mean_s);
    if (p.slow_branching > 0.0) {  // absent: the one-scale form, unchanged
      e["slow_branching"] = num(p.slow_branching);
      e["slow_mean_delay"] = units::format_duration_exact(p.slow_excitation_mean_s);
    }
    n["excitation"] = e;
    if (p.regime_high_share > 0.0) {  // absent: no regimes, the form above unchanged
      YAML::Node g(YAML::NodeType::Map);
      g["high_share"] = num(p.regime_high_share);
      g["rate_ratio"] = num(p.regime_rate_ratio);
      g["high_mean_duration"] = units::format_duration_exact(p.regime_high_mean_s);
      g["low_repair_scale"] = num(p.regime_low_repair_scale);
      g["high_repair_scale"] = num(p.regime_high_repair_scale);
      if (p.regime_state_repairs) {  // absent: the kinds' laws, the form above unchanged
        g["low_repair"] = repair_yaml(p.regime_repair[0]);
        g["high_repair"] = repair_yaml(p.regime_repair[1]);
      }
      n["regime"] = g;
    }
  }
  YAML::Node kinds(YAML::NodeType::Sequence);
  for (const auto& k : p.kinds) {
    YAML::Node kn(YAML::NodeType::Map);
    kn["name"] = k.name;
    kn["share"] = units::format_fraction_exact(k.share);
    kn["interrupts"] = k.interrupts;
    kn["repair"] = repair_yaml(k.repair);
    kinds.push_back(kn);
  }
  n["kinds"] = kinds;
  n["lemon"] = fields_yaml(scenario_internal::lemon_fields(), p);
  n["burst"] = fields_yaml(scenario_internal::burst_fields(), p);
  if (p.has_partner_delays()) {  // absent: the form above unchanged
    n["partner_delays"] = fields_yaml(scenario_internal::partner_delay_fields(), p);
  }
  if (p.deferred_share > 0.0) {  // absent: the form above unchanged
    n["deferred_repairs"] = fields_yaml(scenario_internal::deferred_repair_fields(), p);
  }
  if (p.shared_repair_probability > 0.0) {  // absent: the form above unchanged
    n["shared_repairs"] = fields_yaml(scenario_internal::shared_repair_fields(), p);
  }
  return n;
}

// A parameter value as a user writes it, in the unit `spec` gives (none when null).
std::string value_text(const ParamSpec* spec, const ParamValue& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  const double d = std::get<double>(v);
  if (spec != nullptr && spec->kind == ParamKind::kFraction) return units::format_fraction_exact(d);
  if (spec != nullptr && spec->kind == ParamKind::kDuration) return units::format_duration_exact(d);
  return num(d);
}

// A policy chain as a user writes it: each action with its options in the action's order.
YAML::Node chain_yaml(const std::vector<ChainStep>& chain) {
  YAML::Node list(YAML::NodeType::Sequence);
  for (const auto& step : chain) {
    const ChainActionInfo* info = strategy_vocabulary().chain_action(step.action);
    if (step.params.empty() || info == nullptr) {
      list.push_back(step.action);
      continue;
    }
    YAML::Node opts(YAML::NodeType::Map);
    for (const auto& spec : info->params) {
      const auto it = step.params.find(spec.name);
      if (it != step.params.end()) opts[spec.name] = value_text(&spec, it->second);
    }
    YAML::Node item(YAML::NodeType::Map);
    item[step.action] = opts;
    list.push_back(item);
  }
  return list;
}

json param_json(const ParamValue& v) {
  return std::visit([](const auto& x) { return json(x); }, v);
}

// Hardware profiles print through models::to_yaml; the JSON form mirrors that tree, with numbers
// as numbers and unit strings kept as written.
json yaml_to_json(const YAML::Node& n) {
  if (n.IsMap()) {
    json j = json::object();
    for (const auto& kv : n) j[kv.first.Scalar()] = yaml_to_json(kv.second);
    return j;
  }
  if (n.IsSequence()) {
    json j = json::array();
    for (const auto& e : n) j.push_back(yaml_to_json(e));
    return j;
  }
  if (!n.IsScalar()) return nullptr;
  const std::string& s = n.Scalar();
  if (s == "true") return true;
  if (s == "false") return false;
  if (auto v = units::parse_number(s); v.ok()) return *v;
  return s;
}

// Rewrites long decimal scalars such as "0.57999999999999996" (a double emitted at full
// precision) as their 15-digit form ("0.58") when that reads back as the same double, else as the
// shortest text that does, so resolved output reads as it was written and reloads exactly.
void tidy_decimals(YAML::Node n) {
  if (n.IsMap()) {
    for (auto kv : n) tidy_decimals(kv.second);
  } else if (n.IsSequence()) {
    for (auto e : n) tidy_decimals(e);
  } else if (n.IsScalar() && n.Scalar().size() > 12 && n.Scalar().find('.') != std::string::npos) {
    if (auto v = units::parse_number(n.Scalar()); v.ok()) {
      std::string text = fmt::format("{:.15g}", *v);
      if (auto back = units::parse_number(text); !back.ok() || *back != *v) {
        text = fmt::format("{}", *v);
      }
      n = text;
    }
  }
}

}  // namespace

const char* to_string(Component c) {
  switch (c) {
    case Component::kGpu:
      return "gpu";
    case Component::kNode:
      return "node";
    case Component::kDomain:
      return "domain";
    case Component::kPod:
      return "pod";
  }
  return "gpu";
}

const char* to_string(PauseFailures f) {
  return f == PauseFailures::kIgnore ? "ignore" : "restart";
}

namespace {

// One strategies entry: name, label, parameters in registry order (the order `ntpsim strategies`
// documents them; a chain's are its resume parameters, in their order), then a chain's actions.
YAML::Node strategy_node(const StrategyConfig& st) {
  YAML::Node sn(YAML::NodeType::Map);
  sn["name"] = st.name;
  sn["label"] = st.label;
  const StrategyVocabulary& vocabulary = strategy_vocabulary();
  std::vector<ParamSpec> chain_specs;
  const std::vector<ParamSpec>* specs = vocabulary.strategy_params(st.name);
  if (specs == nullptr) {
    std::vector<std::string> actions;
    for (const auto& step : st.chain) actions.push_back(step.action);
    chain_specs = vocabulary.chain_resume_params(actions);
    specs = &chain_specs;
  }
  for (const auto& spec : *specs) {
    const auto it = st.params.find(spec.name);
    if (it != st.params.end()) sn[spec.name] = value_text(&spec, it->second);
  }
  if (!st.chain.empty()) sn["chain"] = chain_yaml(st.chain);
  return sn;
}

}  // namespace

std::string strategy_entry_yaml(const StrategyConfig& s) {
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << strategy_node(s);
  return out.c_str();
}

YAML::Node to_yaml(const Scenario& s) {
  YAML::Node n(YAML::NodeType::Map);
  n["name"] = s.name;
  if (!s.description.empty()) n["description"] = s.description;
  const PrintContext ctx{s.file};
  n["cluster"] = fields_yaml(scenario_internal::cluster_fields(), s.cluster);
  n["workload"] = models::to_yaml(s.workload);
  n["layout"] = models::to_yaml(s.layout);
  YAML::Node hardware = models::to_yaml(s.hardware);
  tidy_decimals(hardware);
  n["hardware"] = hardware;
  n["model"] = s.step_model;

  YAML::Node failures(YAML::NodeType::Map);
  YAML::Node processes(YAML::NodeType::Sequence);
  for (const auto& p : s.failures.processes) processes.push_back(process_yaml(p));
  failures["processes"] = processes;
  if (s.failures.trace) {
    failures["trace"] = fields_yaml(scenario_internal::trace_fields(), *s.failures.trace, ctx);
  }
  n["failures"] = failures;

  n["checkpoint"] = fields_yaml(scenario_internal::checkpoint_fields(), s.checkpoint);
  n["recovery"] = fields_yaml(scenario_internal::recovery_fields(), s.recovery);

  YAML::Node strategies(YAML::NodeType::Sequence);
  for (const auto& st : s.strategies) strategies.push_back(strategy_node(st));
  n["strategies"] = strategies;

  if (s.train_tokens > 0) {
    YAML::Node train(YAML::NodeType::Map);
    train["tokens"] = units::format_count_exact(s.train_tokens);
    train["max_time"] = units::format_duration_exact(s.max_time_s);
    n["train"] = train;
  } else {
    n["horizon"] = units::format_duration_exact(s.horizon_s);
  }
  if (s.replications.fixed > 0) {
    n["replications"] = s.replications.fixed;
  } else {
    n["replications"] = fields_yaml(scenario_internal::replication_fields(), s.replications);
  }
  n["seed"] = s.seed;
  // Only the paths that are set; no section when none is.
  if (YAML::Node out = fields_yaml(scenario_internal::output_fields(), s.outputs); out.size() > 0) {
    n["outputs"] = out;
  }
  return n;
}

std::string to_yaml_text(const Scenario& s) {
  YAML::Emitter e;
  e << to_yaml(s);
  return std::string(e.c_str()) + "\n";
}

json layout_json(const models::Layout& l) {
  json j = {{"tp", l.tp},
            {"pp", l.pp},
            {"dp", l.dp},
            {"virtual_stages", l.virtual_stages},
            {"gpus", l.gpus()}};
  if (l.cp > 1) j["cp"] = l.cp;
  // Megatron-LM's split options, only where set (layouts without them print as before).
  if (l.account_for_embedding) j["account_for_embedding_in_pipeline_split"] = true;
  if (l.account_for_loss) j["account_for_loss_in_pipeline_split"] = true;
  if (l.first_stage_layers > 0) j["decoder_first_pipeline_num_layers"] = l.first_stage_layers;
  if (l.last_stage_layers > 0) j["decoder_last_pipeline_num_layers"] = l.last_stage_layers;
  return j;
}

json to_json(const Scenario& s) {
  json j = json::object();
  j["name"] = s.name;
  j["description"] = s.description;
  const PrintContext ctx{s.file};
  j["cluster"] = fields_json(scenario_internal::cluster_fields(), s.cluster);
  j["cluster"]["total_gpus"] = s.cluster.total_gpus();
  const auto& w = s.workload;
  j["workload"] = {{"name", w.name},
                   {"layers", w.layers},
                   {"hidden", w.hidden},
                   {"heads", w.heads},
                   {"kv_heads", w.kv_heads},
                   {"ffn", w.ffn},
                   {"gated_ffn", w.gated_ffn},
                   {"vocab", w.vocab},
                   {"seq_len", w.seq_len},
                   {"global_batch", w.global_batch},
                   {"micro_batch", w.micro_batch},
                   {"dtype", models::to_string(w.dtype)},
                   {"recompute", models::to_string(w.recompute)},
                   {"sequence_parallel", w.sequence_parallel},
                   {"dropout", w.dropout},
                   {"parameters", w.parameters()},
                   {"tokens_per_iteration", w.tokens_per_iteration()}};
  j["layout"] = layout_json(s.layout);
  j["hardware"] = yaml_to_json(models::to_yaml(s.hardware));
  j["step_model"] = s.step_model;

  json processes = json::array();
  for (const auto& p : s.failures.processes) {
    json kinds = json::array();
    for (const auto& k : p.kinds) {
      kinds.push_back({{"name", k.name},
                       {"share", k.share},
                       {"interrupts", k.interrupts},
                       {"repair",
                        {{"distribution", k.repair.distribution},
                         {"mean_s", k.repair.mean_s},
                         {"sigma", k.repair.sigma},
                         {"shape", k.repair.shape},
                         {"values_s", k.repair.values_s}}}});
    }
    json process = {{"component", to_string(p.component)},
                    {"rate_per_unit_s", p.rate_per_unit_s},
                    {"distribution", p.distribution},
                    {"shape", p.shape},
                    {"kinds", kinds}};
    // lemon.fraction -> lemon_fraction, burst.size -> burst_size, ...
    const json lemon = fields_json(scenario_internal::lemon_fields(), p);
    for (const auto& [key, value] : lemon.items()) process["lemon_" + key] = value;
    const json burst = fields_json(scenario_internal::burst_fields(), p);
    for (const auto& [key, value] : burst.items()) process["burst_" + key] = value;
    if (p.has_partner_delays()) {  // only then: the other processes' form is unchanged
      const json delays = fields_json(scenario_internal::partner_delay_fields(), p);
      for (const auto& [key, value] : delays.items()) process["partner_delay_" + key] = value;
    }
    if (p.deferred_share > 0.0) {  // only then: the other processes' form is unchanged
      const json deferred = fields_json(scenario_internal::deferred_repair_fields(), p);
      for (const auto& [key, value] : deferred.items()) process["deferred_" + key] = value;
    }
    if (p.shared_repair_probability > 0.0) {  // only then: the other processes' form is unchanged
      const json shared = fields_json(scenario_internal::shared_repair_fields(), p);
      for (const auto& [key, value] : shared.items()) process["shared_repair_" + key] = value;
    }
    processes.push_back(std::move(process));
    if (p.distribution == "hawkes") {  // only then: the other processes' form is unchanged
      processes.back()["branching"] = p.branching;
      processes.back()["excitation_mean_s"] = p.excitation_mean_s;
      if (p.slow_branching > 0.0) {
        processes.back()["slow_branching"] = p.slow_branching;
        processes.back()["slow_excitation_mean_s"] = p.slow_excitation_mean_s;
      }
      if (p.regime_high_share > 0.0) {
        processes.back()["regime_high_share"] = p.regime_high_share;
        processes.back()["regime_rate_ratio"] = p.regime_rate_ratio;
        processes.back()["regime_high_mean_s"] = p.regime_high_mean_s;
        processes.back()["regime_low_repair_scale"] = p.regime_low_repair_scale;
        processes.back()["regime_high_repair_scale"] = p.regime_high_repair_scale;
        if (p.regime_state_repairs) {
          json laws = json::array();
          for (const RepairDist& r : p.regime_repair) {
            laws.push_back({{"distribution", r.distribution},
                            {"mean_s", r.mean_s},
                            {"sigma", r.sigma},
                            {"shape", r.shape},
                            {"values_s", r.values_s}});
          }
          processes.back()["regime_state_repairs"] = laws;
        }
      }
    }
  }
  json trace = nullptr;
  if (s.failures.trace) {
    trace = fields_json(scenario_internal::trace_fields(), *s.failures.trace, ctx);
  }
  j["failures"] = {{"processes", processes}, {"trace", trace}};
  j["checkpoint"] = fields_json(scenario_internal::checkpoint_fields(), s.checkpoint);
  j["recovery"] = fields_json(scenario_internal::recovery_fields(), s.recovery);
  json strategies = json::array();
  for (const auto& st : s.strategies) {
    json params = json::object();
    for (const auto& [k, v] : st.params) params[k] = param_json(v);
    json one = {{"name", st.name}, {"label", st.label}, {"params", params}};
    if (!st.chain.empty()) {
      json chain = json::array();
      for (const auto& step : st.chain) {
        json opts = json::object();
        for (const auto& [k, v] : step.params) opts[k] = param_json(v);
        chain.push_back({{"action", step.action}, {"params", opts}});
      }
      one["chain"] = chain;
    }
    strategies.push_back(one);
  }
  j["strategies"] = strategies;
  j["horizon_s"] = s.horizon_s;
  j["train_tokens"] = s.train_tokens;
  j["max_time_s"] = s.max_time_s;
  j["replications"] = fields_json(scenario_internal::replication_fields(), s.replications);
  j["replications"]["fixed"] = s.replications.fixed;
  j["seed"] = s.seed;
  j["outputs"] = fields_json(scenario_internal::output_fields(), s.outputs);
  return j;
}

std::string scenario_hash(const Scenario& s) {
  return fmt::format("fnv1a64:{:016x}", fnv1a64(to_yaml_text(s)));
}

std::string check_text(const Scenario& s) {
  const auto& cl = s.cluster;
  const auto& l = s.layout;
  const int64_t job_gpus = l.gpus();
  std::string out;
  out += fmt::format("# ntpsim check: scenario \"{}\" is valid\n", s.name);
  out += fmt::format("# hash: {}\n", scenario_hash(s));
  out += fmt::format("# cluster: {} GPUs ({} domains + {} spare domains, {} GPUs each)\n",
                     cl.total_gpus(), cl.domains, cl.spare_domains, cl.gpus_per_domain);
  out += fmt::format(
      "# job: {} GPUs = TP {}{} x PP {} x DP {}; per domain {} TP group(s) and {} "
      "idle GPU(s)\n",
      job_gpus, l.tp, l.cp > 1 ? fmt::format(" x CP {}", l.cp) : std::string(), l.pp, l.dp,
      cl.gpus_per_domain / l.tp, cl.gpus_per_domain % l.tp);
  out += fmt::format("# workload: {} parameters, {} tokens per iteration\n",
                     units::format_count(s.workload.parameters()),
                     units::format_count(s.workload.tokens_per_iteration()));
  out += fmt::format("# recovery costs ({}): value [plausible range], source\n",
                     recovery_profile_of(s));
  const std::string lines = recovery_cost_lines(s);
  for (size_t b = 0; b < lines.size();) {
    const size_t e = lines.find('\n', b);
    out += "#   " + lines.substr(b, e - b) + "\n";
    b = e + 1;
  }
  return out + to_yaml_text(s);
}

}  // namespace ntpsim::sim
