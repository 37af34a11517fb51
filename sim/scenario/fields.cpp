// The scenario field table (fields.h): the row builders and one table per plain section.
#include "sim/scenario/fields.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "models/base/units.h"
#include "sim/scenario/recovery_costs.h"
#include "sim/scenario/sections.h"
#include "sim/scenario/vocabulary.h"

namespace ntpsim::sim::scenario_internal {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// ---- Row builders -------------------------------------------------------------------------

// A row whose value prints as one YAML value under `key` and one JSON value under `json_key`:
// `yaml_value` gives the YAML scalar (or node), `json_value` the JSON value.
template <class S, class Read, class Yaml, class Json>
Field<S> scalar_row(std::string key, std::string json_key, Read read, Yaml yaml_value,
                    Json json_value) {
  Field<S> f;
  f.key = key;
  f.read = std::move(read);
  f.yaml = [key, yaml_value](const S& s, YAML::Node& map, const PrintContext&) {
    map[key] = yaml_value(s);
  };
  f.json = [json_key, json_value](const S& s, json& object, const PrintContext&) {
    object[json_key] = json_value(s);
  };
  return f;
}

// A whole number in [min, max].
template <class S>
Field<S> integer(std::string key, int S::*m, bool required, int min, int max) {
  return scalar_row<S>(
      key, key,
      [key, m, required, min, max](MapReader& r, S& s) {
        return r.integer(key, s.*m, required, min, max);
      },
      [m](const S& s) { return s.*m; }, [m](const S& s) { return json(s.*m); });
}

// A duration ("90s", "3d") in [min_s, max_s], printed in its exact readable form; JSON in
// seconds under key + "_s". With kIfPositive the YAML leaves out 0 (unset).
template <class S>
Field<S> duration(std::string key, double S::*m, bool required, double min_s, double max_s,
                  Shown shown = Shown::kAlways) {
  Field<S> f = scalar_row<S>(
      key, key + "_s",
      [key, m, required, min_s, max_s](MapReader& r, S& s) {
        return read_duration(r, key, s.*m, required, min_s, max_s);
      },
      [m](const S& s) { return units::format_duration_exact(s.*m); },
      [m](const S& s) { return json(s.*m); });
  if (shown == Shown::kIfPositive) {
    f.yaml = [key, m](const S& s, YAML::Node& map, const PrintContext&) {
      if (s.*m > 0) map[key] = units::format_duration_exact(s.*m);
    };
  }
  f.number = m;
  return f;
}

// A fraction ("30%", 0.3) in [min, max].
template <class S>
Field<S> fraction(std::string key, double S::*m, bool required, double min, double max) {
  Field<S> f = scalar_row<S>(
      key, key,
      [key, m, required, min, max](MapReader& r, S& s) {
        return read_fraction(r, key, s.*m, required, min, max);
      },
      [m](const S& s) { return units::format_fraction_exact(s.*m); },
      [m](const S& s) { return json(s.*m); });
  f.number = m;
  return f;
}

// A plain number in [min, max], printed with as many digits as reading it back needs.
template <class S>
Field<S> number(std::string key, double S::*m, bool required, double min, double max) {
  Field<S> f = scalar_row<S>(
      key, key,
      [key, m, required, min, max](MapReader& r, S& s) {
        return r.number(key, s.*m, required, min, max);
      },
      [m](const S& s) { return units::format_number_exact(s.*m); },
      [m](const S& s) { return json(s.*m); });
  f.number = m;
  return f;
}

// true or false (optional).
template <class S>
Field<S> boolean(std::string key, bool S::*m) {
  return scalar_row<S>(
      key, key, [key, m](MapReader& r, S& s) { return r.boolean(key, s.*m, false); },
      [m](const S& s) { return s.*m; }, [m](const S& s) { return json(s.*m); });
}

// Free text (optional); YAML shows it only when not empty.
template <class S>
Field<S> text(std::string key, std::string S::*m) {
  Field<S> f = scalar_row<S>(
      key, key, [key, m](MapReader& r, S& s) { return r.string(key, s.*m, false); },
      [m](const S& s) { return s.*m; }, [m](const S& s) { return json(s.*m); });
  f.yaml = [key, m](const S& s, YAML::Node& map, const PrintContext&) {
    if (!(s.*m).empty()) map[key] = s.*m;
  };
  return f;
}

// One of a list of names, stored as text. `choices` is called when the field is read, so a list
// provided from above (trace formats) is read after static initialisation.
template <class S>
Field<S> choice(std::string key, std::string S::*m,
                std::function<std::vector<std::string>()> choices, bool required) {
  return scalar_row<S>(
      key, key,
      [key, m, choices, required](MapReader& r, S& s) {
        return r.choice(key, s.*m, choices(), required);
      },
      [m](const S& s) { return s.*m; }, [m](const S& s) { return json(s.*m); });
}

template <class S>
Field<S> choice(std::string key, std::string S::*m, std::vector<std::string> choices) {
  return choice<S>(
      key, m, [choices] { return choices; }, false);
}

// One of a list of names, stored as an enum (optional). `names` lists each value's name in the
// order messages give them.
template <class S, class E>
Field<S> enumeration(std::string key, E S::*m, std::vector<std::pair<std::string, E>> names) {
  const auto name_of = [names](E v) {
    for (const auto& [n, e] : names) {
      if (e == v) return n;
    }
    return names.front().first;
  };
  return scalar_row<S>(
      key, key,
      [key, m, names, name_of](MapReader& r, S& s) -> Status {
        std::string value = name_of(s.*m);
        std::vector<std::string> choices;
        for (const auto& entry : names) choices.push_back(entry.first);
        NTPSIM_RETURN_IF_ERROR(r.choice(key, value, choices, false));
        for (const auto& [n, e] : names) {
          if (n == value) s.*m = e;
        }
        return Status::Ok();
      },
      [m, name_of](const S& s) { return name_of(s.*m); },
      [m, name_of](const S& s) { return json(name_of(s.*m)); });
}

// A duration that may also be "auto" (unset: derived from the model where it is used).
template <class S>
Field<S> auto_duration(std::string key, std::optional<double> S::*m, double min_s, double max_s) {
  return scalar_row<S>(
      key, key + "_s",
      [key, m, min_s, max_s](MapReader& r, S& s) {
        return read_auto_duration(r, key, s.*m, min_s, max_s);
      },
      [m](const S& s) {
        return (s.*m) ? units::format_duration_exact(*(s.*m)) : std::string("auto");
      },
      [m](const S& s) { return (s.*m) ? json(*(s.*m)) : json("auto"); });
}

// A cost's scaling with the job size (CostScaling): "none" or {reference_gpus, exponent}.
template <class S>
Field<S> cost_scaling(std::string key, CostScaling S::*m) {
  return scalar_row<S>(
      key, key, [key, m](MapReader& r, S& s) { return read_cost_scaling(r, key, s.*m); },
      [m](const S& s) {
        const CostScaling& c = s.*m;
        if (!c.scales()) return YAML::Node("none");
        YAML::Node n(YAML::NodeType::Map);
        n["reference_gpus"] = units::format_number_exact(c.reference_gpus);
        n["exponent"] = units::format_number_exact(c.exponent);
        return n;
      },
      [m](const S& s) {
        const CostScaling& c = s.*m;
        return json{{"reference_gpus", c.reference_gpus}, {"exponent", c.exponent}};
      });
}

// A row written by hand: its reader, its YAML and its JSON.
template <class S>
Field<S> custom(std::string key, std::function<Status(MapReader&, S&)> read,
                std::function<void(const S&, YAML::Node&, const PrintContext&)> yaml,
                std::function<void(const S&, json&, const PrintContext&)> json_out) {
  Field<S> f;
  f.key = std::move(key);
  f.read = std::move(read);
  f.yaml = std::move(yaml);
  f.json = std::move(json_out);
  return f;
}

// ---- Hand-written rows --------------------------------------------------------------------

// checkpoint.interval: "auto", "auto_per_strategy", "auto_shared" or a duration. `auto` prints
// when it means what the scenario chose, else the explicit spelling.
Status read_checkpoint_interval(MapReader& r, CheckpointConfig& out) {
  const YAML::Node interval = r.node()["interval"];
  const std::string auto_value =
      interval.IsDefined() && interval.IsScalar() ? interval.Scalar() : "";
  if (auto_value == "auto" || auto_value == "auto_per_strategy" || auto_value == "auto_shared") {
    r.mark_used("interval");
    out.auto_interval = true;
    out.shared_auto_interval =
        auto_value == "auto" ? kAutoIntervalShared : auto_value == "auto_shared";
  } else if (interval.IsDefined() && !interval.IsNull()) {
    const auto parse = [](std::string_view t) -> Result<double> {
      auto d = units::parse_duration_s(t);
      if (!d.ok()) {
        return Error::bad_input(
            fmt::format("expected \"auto\", \"auto_per_strategy\", \"auto_shared\" or a "
                        "duration such as \"30min\", "
                        "got \"{}\"",
                        t));
      }
      if (!(*d >= 1.0 && *d <= kMaxCostS)) {
        return Error::bad_input(fmt::format("\"{}\" is out of range: must be between 1s and {}", t,
                                            units::format_duration(kMaxCostS)));
      }
      return d;
    };
    NTPSIM_RETURN_IF_ERROR(
        r.quantity("interval", out.interval_s, parse, false, -HUGE_VAL, HUGE_VAL));
    out.auto_interval = false;
  }
  return Status::Ok();
}

Field<CheckpointConfig> checkpoint_interval() {
  return custom<CheckpointConfig>(
      "interval", &read_checkpoint_interval,
      [](const CheckpointConfig& c, YAML::Node& map, const PrintContext&) {
        map["interval"] = !c.auto_interval ? units::format_duration_exact(c.interval_s)
                          : c.shared_auto_interval == kAutoIntervalShared ? "auto"
                          : c.shared_auto_interval                        ? "auto_shared"
                                                                          : "auto_per_strategy";
      },
      [](const CheckpointConfig& c, json& object, const PrintContext&) {
        object["auto_interval"] = c.auto_interval;
        object["auto_interval_per_strategy"] = c.auto_interval && !c.shared_auto_interval;
        object["interval_s"] = c.interval_s;
      });
}

// checkpoint.memory: in-memory snapshots {interval, exposed, restore}.
Field<CheckpointConfig> checkpoint_memory() {
  return custom<CheckpointConfig>(
      "memory",
      [](MapReader& r, CheckpointConfig& c) -> Status {
        const YAML::Node memory = r.child("memory");
        if (!memory.IsDefined() || memory.IsNull()) return Status::Ok();
        return read_memory_snapshots(memory, join_path(r.path(), "memory"), r.context(), c.memory);
      },
      [](const CheckpointConfig& c, YAML::Node& map, const PrintContext&) {
        YAML::Node mem;
        const auto& m = c.memory;
        mem["interval"] = m.auto_interval ? "auto" : units::format_duration_exact(m.interval_s);
        mem["exposed"] = units::format_duration_exact(m.exposed_s);
        mem["restore"] = m.restore_s ? units::format_duration_exact(*m.restore_s) : "auto";
        map["memory"] = mem;
      },
      [](const CheckpointConfig& c, json& object, const PrintContext&) {
        const auto& m = c.memory;
        object["memory"] = {{"auto_interval", m.auto_interval},
                            {"interval_s", m.interval_s},
                            {"exposed_s", m.exposed_s},
                            {"restore_s", m.restore_s ? json(*m.restore_s) : json("auto")}};
      });
}

// Lexically (symlinks are not resolved), so a ../shared that is a link prints as written.
std::string relative_to_scenario(const std::string& file, const std::string& scenario_file) {
  std::error_code ec;
  const fs::path target = fs::absolute(file, ec).lexically_normal();
  const fs::path folder = fs::absolute(scenario_file, ec).parent_path().lexically_normal();
  if (ec) return file;
  const fs::path rel = target.lexically_relative(folder);
  return rel.empty() ? file : rel.generic_string();
}

// failures.trace.file: relative to the folder of the file that names the trace; must exist.
Status read_trace_file(MapReader& r, TraceConfig& out) {
  NTPSIM_RETURN_IF_ERROR(r.string("file", out.file, true));
  const std::string holder = r.context().file_for(join_path(r.path(), "file"));
  fs::path file(out.file);
  if (file.is_relative() && !holder.empty() && !holder.starts_with("--set")) {
    file = fs::path(holder).parent_path() / file;
  }
  std::error_code ec;
  if (const fs::file_status st = fs::status(file, ec); !fs::is_regular_file(st)) {
    const std::string shown = clip_for_message(out.file);
    if (!fs::exists(st)) return r.error("file", fmt::format("trace file \"{}\" not found", shown));
    return r.error("file",
                   fmt::format("trace file \"{}\" is {}, not a trace file", shown, file_kind(st)));
  }
  out.file = file.lexically_normal().string();
  return Status::Ok();
}

Field<TraceConfig> trace_file() {
  return custom<TraceConfig>(
      "file", &read_trace_file,
      [](const TraceConfig& t, YAML::Node& map, const PrintContext& ctx) {
        map["file"] = relative_to_scenario(t.file, ctx.scenario_file);
      },
      [](const TraceConfig& t, json& object, const PrintContext& ctx) {
        object["file"] = relative_to_scenario(t.file, ctx.scenario_file);
      });
}

// recovery.profile: applied before the checkpoint section is read (loader.cpp); here its name is
// checked, at its line. Not printed: the resolved values are.
Field<RecoveryConfig> recovery_profile() {
  return custom<RecoveryConfig>(
      "profile",
      [](MapReader& r, RecoveryConfig&) {
        std::string profile;
        return r.choice(
            "profile", profile,
            std::vector<std::string>(std::begin(kRecoveryProfiles), std::end(kRecoveryProfiles)),
            false);
      },
      [](const RecoveryConfig&, YAML::Node&, const PrintContext&) {},
      [](const RecoveryConfig&, json&, const PrintContext&) {});
}

std::vector<std::pair<std::string, Component>> component_values() {
  return {{"gpu", Component::kGpu},
          {"node", Component::kNode},
          {"domain", Component::kDomain},
          {"pod", Component::kPod}};
}

}  // namespace

// ---- The tables ---------------------------------------------------------------------------

const FieldTable<ClusterConfig>& cluster_fields() {
  using C = ClusterConfig;
  static const FieldTable<C> kFields = {
      integer("domains", &C::domains, true, 1, 10'000'000),
      integer("gpus_per_domain", &C::gpus_per_domain, true, 1, 4096),
      integer("spare_domains", &C::spare_domains, false, 0, 10'000'000),
      integer("gpus_per_node", &C::gpus_per_node, false, 0, 4096),
      integer("domains_per_pod", &C::domains_per_pod, false, 0, 10'000'000),
  };
  return kFields;
}

const FieldTable<CheckpointConfig>& checkpoint_fields() {
  using C = CheckpointConfig;
  static const FieldTable<C> kFields = {
      checkpoint_interval(),
      duration("max_interval", &C::max_interval_s, false, 1.0, kMaxCostS, Shown::kIfPositive),
      duration("write", &C::write_s, false, 0.0, kMaxCostS),
      fraction("async_exposed_fraction", &C::async_exposed_fraction, false, 0.0, 1.0),
      fraction("async_slowdown", &C::async_slowdown, false, 0.0, 1.0),
      duration("restore", &C::restore_s, false, 0.0, kMaxCostS),
      // Every field, scalings included ("none"): the resolved scenario reloads to the same
      // values whatever profile a file starts from.
      cost_scaling("restore_scaling", &C::restore_scaling),
      checkpoint_memory(),
  };
  return kFields;
}

const FieldTable<RecoveryConfig>& recovery_fields() {
  using R = RecoveryConfig;
  static const FieldTable<R> kFields = {
      recovery_profile(),
      duration("detection", &R::detection_s, false, 0.0, kMaxCostS),
      duration("restart", &R::restart_s, false, 0.0, kMaxCostS),
      cost_scaling("restart_scaling", &R::restart_scaling),
      duration("reconfigure", &R::reconfigure_s, false, 0.0, kMaxCostS),
      duration("spare_swap", &R::spare_swap_s, false, 0.0, kMaxCostS),
      auto_duration("state_transfer", &R::state_transfer_s, 0.0, kMaxCostS),
      enumeration<R, PauseFailures>(
          "failures_during_pause", &R::failures_during_pause,
          {{"restart", PauseFailures::kRestart}, {"ignore", PauseFailures::kIgnore}}),
  };
  return kFields;
}

const FieldTable<ReplicationConfig>& replication_fields() {
  using R = ReplicationConfig;
  static const FieldTable<R> kFields = {
      fraction("target_ci_halfwidth", &R::target_ci_halfwidth, true, 1e-6, 0.5),
      integer("min", &R::min, false, 2, 1'000'000),
      integer("max", &R::max, false, 2, 1'000'000),
  };
  return kFields;
}

const FieldTable<OutputConfig>& output_fields() {
  using O = OutputConfig;
  static const FieldTable<O> kFields = {
      text("results", &O::results_json),
      text("csv", &O::results_csv),
      text("report", &O::report),
      text("timeline", &O::timeline),
  };
  return kFields;
}

const FieldTable<TraceConfig>& trace_fields() {
  using T = TraceConfig;
  static const FieldTable<T> kFields = {
      choice<T>(
          "format", &T::format, [] { return trace_vocabulary().format_names(); }, true),
      trace_file(),
      choice<T>("mapping", &T::mapping, {"modulo", "random"}),
      enumeration<T, Component>("component", &T::component, component_values()),
      number("time_scale", &T::time_scale, false, 1e-6, 1e6),
      boolean("loop", &T::loop),
      boolean("interrupts", &T::interrupts),
  };
  return kFields;
}

const FieldTable<FailureProcess>& lemon_fields() {
  using P = FailureProcess;
  static const FieldTable<P> kFields = {
      fraction("fraction", &P::lemon_fraction, true, 0.0, 1.0),
      number("multiplier", &P::lemon_multiplier, true, 1.0, 1e6),
  };
  return kFields;
}

// burst.size and burst.sizes: exactly one of them. `sizes` (a list of whole numbers, each a
// burst's size, drawn uniformly) is printed only when given, and `size` only when it is not, so
// a process without `sizes` reads, prints and hashes as before it existed.
constexpr int kMaxBurstSize = 1'000'000;

Status read_burst_size(MapReader& r, FailureProcess& p) {
  if (!r.has("sizes")) return r.integer("size", p.burst_size, true, 1, kMaxBurstSize);
  if (r.has("size")) return r.error("size", "give size or sizes, not both");
  return Status::Ok();
}

Status read_burst_sizes(MapReader& r, FailureProcess& p) {
  if (!r.has("sizes")) return Status::Ok();
  const YAML::Node list = r.child("sizes");
  if (!list.IsSequence() || list.size() == 0) {
    return r.error("sizes", fmt::format("expected a non-empty list of whole numbers, got {}",
                                        yaml_kind(list)));
  }
  p.burst_sizes.clear();
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("{}[{}]", join_path(r.path(), "sizes"), i);
    const auto at = [&](const std::string& what) {
      return Error::at(r.context().locate(list[i], path), path, what);
    };
    if (!list[i].IsScalar()) {
      return at(fmt::format("expected a whole number, got {}", yaml_kind(list[i])));
    }
    auto v = parse_exact_integer(list[i].Scalar());
    if (!v.ok()) return at(v.error().message);
    if (*v < 1 || *v > kMaxBurstSize) {
      return at(fmt::format("{} is out of range [1, {}]", list[i].Scalar(), kMaxBurstSize));
    }
    p.burst_sizes.push_back(static_cast<int>(*v));
  }
  return Status::Ok();
}

const FieldTable<FailureProcess>& burst_fields() {
  using P = FailureProcess;
  static const FieldTable<P> kFields = {
      fraction("probability", &P::burst_probability, true, 0.0, 1.0),
      custom<P>(
          "size", read_burst_size,
          [](const P& p, YAML::Node& map, const PrintContext&) {
            if (p.burst_sizes.empty()) map["size"] = p.burst_size;
          },
          [](const P& p, json& object, const PrintContext&) {
            if (p.burst_sizes.empty()) object["size"] = p.burst_size;
          }),
      custom<P>(
          "sizes", read_burst_sizes,
          [](const P& p, YAML::Node& map, const PrintContext&) {
            if (p.burst_sizes.empty()) return;
            YAML::Node list(YAML::NodeType::Sequence);
            for (const int size : p.burst_sizes) list.push_back(size);
            list.SetStyle(YAML::EmitterStyle::Flow);
            map["sizes"] = list;
          },
          [](const P& p, json& object, const PrintContext&) {
            if (!p.burst_sizes.empty()) object["sizes"] = p.burst_sizes;
          }),
  };
  return kFields;
}

const FieldTable<FailureProcess>& deferred_repair_fields() {
  using P = FailureProcess;
  // At least a second between visits (the scenario's time resolution), at most a century.
  static const FieldTable<P> kFields = {
      fraction("share", &P::deferred_share, true, 0.0, 1.0),
      duration("visit_interval", &P::visit_interval_s, true, 1.0, 100 * 365.25 * 86400.0),
  };
  return kFields;
}

const FieldTable<FailureProcess>& partner_delay_fields() {
  using P = FailureProcess;
  // Delays from none to a year; the mean at least a second (the scenario's time resolution).
  static const FieldTable<P> kFields = {
      fraction("at_once", &P::partner_at_once_share, true, 0.0, 1.0),
      duration("after", &P::partner_delay_after_s, true, 0.0, 365.25 * 86400.0),
      duration("mean", &P::partner_delay_mean_s, true, 1.0, 365.25 * 86400.0),
  };
  return kFields;
}

const FieldTable<FailureProcess>& shared_repair_fields() {
  using P = FailureProcess;
  // A window of at least a second (the scenario's time resolution), at most a year.
  static const FieldTable<P> kFields = {
      duration("window", &P::shared_repair_window_s, true, 1.0, 365.25 * 86400.0),
      fraction("probability", &P::shared_repair_probability, true, 0.0, 1.0),
  };
  return kFields;
}

}  // namespace ntpsim::sim::scenario_internal
