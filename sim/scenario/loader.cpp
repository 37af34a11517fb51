// The scenario loader: the top-level map, defaults, and checks across sections (loader.h).
#include "sim/scenario/loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

#include "models/base/units.h"
#include "sim/scenario/recovery_costs.h"
#include "sim/scenario/sections.h"
#include "sim/scenario/tree.h"

#ifndef NTPSIM_DEFAULT_DATA_DIR
#define NTPSIM_DEFAULT_DATA_DIR "."
#endif

namespace ntpsim::sim {
namespace {

namespace fs = std::filesystem;
using namespace scenario_internal;

// Beyond kMaxFailuresPerReplication (loader.h) one replication would not finish in reasonable
// time (docs/limits.md: 9.5e6 failures of a 10^7-GPU cluster take 47 CPU-seconds and 2.4 GB);
// beyond kMaxFailuresPerRun over all replications a run takes hours.
constexpr int kDefaultReplications = 100;

const std::vector<std::string>& top_keys() {
  static const std::vector<std::string> kKeys = {
      "name",     "description", "include",      "cluster",    "workload", "layout",
      "hardware", "model",       "failures",     "checkpoint", "recovery", "strategies",
      "horizon",  "train",       "replications", "seed",       "outputs",
      // Read by `ntpsim sensitivity` (sim/sensitivity/sensitivity.h); every other command
      // ignores it.
      "uncertain"};
  return kKeys;
}

// Locates `path` (dot/bracket field path) in the merged tree; falls back to the deepest node that
// exists, so a defaulted field still points at its section.
SourceLocation locate(const YAML::Node& root, const YamlContext& ctx, const std::string& path) {
  YAML::Node cur;
  cur.reset(root);
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find_first_of(".[", i);
    if (j == std::string::npos) j = path.size();
    YAML::Node next;
    if (j > i) {
      const YAML::Node& c = cur;
      if (!c.IsMap()) break;
      next.reset(c[path.substr(i, j - i)]);
    }
    if (j < path.size() && path[j] == '[') {
      const size_t close = path.find(']', j);
      const size_t index = std::stoul(path.substr(j + 1, close - j - 1));
      const YAML::Node& n = next;
      if (!n.IsDefined() || !n.IsSequence() || index >= n.size()) break;
      next.reset(n[index]);
      j = close + 1;
    }
    if (!next.IsDefined()) break;
    cur.reset(next);
    i = j < path.size() && path[j] == '.' ? j + 1 : j;
  }
  SourceLocation loc = ctx.locate(cur, path);
  return loc;
}

Error cross(const YAML::Node& root, const YamlContext& ctx, const std::string& path,
            const std::string& what) {
  return Error::at(locate(root, ctx, path), path, what);
}

int64_t units_of(Component c, const ClusterConfig& cl) { return cl.units(c); }

Status check_component(const YAML::Node& root, const YamlContext& ctx, const std::string& path,
                       Component c, const ClusterConfig& cl) {
  if (c == Component::kNode && cl.gpus_per_node == 0) {
    return cross(root, ctx, path, "component node needs cluster.gpus_per_node");
  }
  if (c == Component::kPod && cl.domains_per_pod == 0) {
    return cross(root, ctx, path, "component pod needs cluster.domains_per_pod");
  }
  return Status::Ok();
}

Status check_layout(const YAML::Node& root, const YamlContext& ctx, const Scenario& s) {
  const auto& l = s.layout;
  const auto& w = s.workload;
  const auto& cl = s.cluster;
  if (l.tp > cl.gpus_per_domain) {
    return cross(
        root, ctx, "layout.tp",
        fmt::format("TP {} does not fit in a domain of {} GPUs", l.tp, cl.gpus_per_domain));
  }
  if (l.tp > w.heads) {
    return cross(root, ctx, "layout.tp",
                 fmt::format("TP {} exceeds the workload's {} attention heads", l.tp, w.heads));
  }
  if (l.tp > w.ffn) {
    return cross(root, ctx, "layout.tp",
                 fmt::format("TP {} exceeds the workload's FFN size {}", l.tp, w.ffn));
  }
  const int64_t per_domain = cl.gpus_per_domain / l.tp;
  const int64_t needed = static_cast<int64_t>(l.pp) * l.cp * l.dp;
  const int64_t available = per_domain * cl.domains;
  if (needed > available && l.cp > 1) {
    return cross(root, ctx, "layout.dp",
                 fmt::format("CP {} x PP {} x DP {} needs {} TP groups of {} GPUs; the cluster's "
                             "{} non-spare domains of {} GPUs hold {} ({} per domain)",
                             l.cp, l.pp, l.dp, needed, l.tp, cl.domains, cl.gpus_per_domain,
                             available, per_domain));
  }
  if (needed > available) {
    return cross(root, ctx, "layout.dp",
                 fmt::format("PP {} x DP {} needs {} TP groups of {} GPUs; the cluster's {} "
                             "non-spare domains of {} GPUs hold {} ({} per domain)",
                             l.pp, l.dp, needed, l.tp, cl.domains, cl.gpus_per_domain, available,
                             per_domain));
  }
  if (const models::SplitError e = models::check_pipeline_split(w, l); !e.field.empty()) {
    return cross(root, ctx, "layout." + e.field, e.message);
  }
  if (const models::SplitError e = models::check_context_split(w, l); !e.field.empty()) {
    return cross(root, ctx, "layout." + e.field, e.message);
  }
  if (static_cast<int64_t>(l.dp) * w.micro_batch > w.global_batch) {
    return cross(root, ctx, "layout.dp",
                 fmt::format("DP {} replicas need at least {} sequences per iteration (one "
                             "micro-batch of {} each); the global batch is {}",
                             l.dp, static_cast<int64_t>(l.dp) * w.micro_batch, w.micro_batch,
                             w.global_batch));
  }
  if (s.hardware.gpus_per_domain > 0 && cl.gpus_per_domain > s.hardware.gpus_per_domain) {
    return cross(root, ctx, "cluster.gpus_per_domain",
                 fmt::format("{} GPUs per domain exceed the {} GPUs of the hardware profile's "
                             "scale-up domain ({})",
                             cl.gpus_per_domain, s.hardware.gpus_per_domain, s.hardware.name));
  }
  return Status::Ok();
}

double run_length_s(const Scenario& s) {
  return s.horizon_s > 0 ? s.horizon_s : s.max_time_s;
}

// Failure events process `p` is expected to draw in one replication (a burst is its size in events).
double expected_failures(const FailureProcess& p, const Scenario& s) {
  const int64_t units = units_of(p.component, s.cluster);
  return p.mean_rate_per_unit_s(units) * static_cast<double>(units) * p.mean_units_per_event() *
         run_length_s(s);
}

Status check_failures(const YAML::Node& root, const YamlContext& ctx, const Scenario& s) {
  double expected = 0;
  for (size_t i = 0; i < s.failures.processes.size(); ++i) {
    const auto& p = s.failures.processes[i];
    const std::string path = fmt::format("failures.processes[{}]", i);
    NTPSIM_RETURN_IF_ERROR(check_component(root, ctx, path + ".component", p.component, s.cluster));
    const int64_t units = units_of(p.component, s.cluster);
    if (p.largest_burst_size() > units) {
      return cross(root, ctx, path + (p.burst_sizes.empty() ? ".burst.size" : ".burst.sizes"),
                   fmt::format("a burst of {} exceeds the cluster's {} units of component {}",
                               p.largest_burst_size(), units, to_string(p.component)));
    }
    if (p.has_partner_delays()) {
      if (!(p.burst_probability > 0.0 && p.largest_burst_size() > 1)) {
        return cross(root, ctx, path + ".partner_delays",
                     "partner delays need a burst (a burst map with a probability above 0 and "
                     "sizes above 1)");
      }
      if (!(p.partner_delay_mean_s > p.partner_delay_after_s)) {
        return cross(root, ctx, path + ".partner_delays.mean",
                     fmt::format("the mean delay ({}) must exceed `after` ({}): the delays are "
                                 "`after` plus an exponential delay",
                                 units::format_duration(p.partner_delay_mean_s),
                                 units::format_duration(p.partner_delay_after_s)));
      }
    }
    expected += expected_failures(p, s);
    if (expected > kMaxFailuresPerReplication) {
      return cross(
          root, ctx,
          path + (root["failures"]["processes"][i]["rate"].IsDefined() ? ".rate" : ".mtbf"),
          fmt::format("about {:.3g} failures per replication expected; more than {:g} "
                      "cannot be simulated",
                      expected, kMaxFailuresPerReplication));
    }
  }
  const int replications = s.replications.fixed > 0 ? s.replications.fixed : s.replications.max;
  if (expected * replications > kMaxFailuresPerRun) {
    const YAML::Node reps = root["replications"];
    return cross(
        root, ctx, reps.IsMap() && reps["max"].IsDefined() ? "replications.max" : "replications",
        fmt::format("about {:.3g} failures over {} replications expected ({:.3g} per "
                    "replication); more than {:g} in all cannot be simulated in reasonable "
                    "time: lower the replications, the horizon or the failure rates",
                    expected * replications, replications, expected, kMaxFailuresPerRun));
  }
  if (s.failures.trace) {
    NTPSIM_RETURN_IF_ERROR(check_component(root, ctx, "failures.trace.component",
                                           s.failures.trace->component, s.cluster));
  }
  return Status::Ok();
}

Status read_run_length(MapReader& r, Scenario& s) {
  const bool has_horizon = r.has("horizon");
  const bool has_train = r.has("train");
  if (has_horizon && has_train) {
    return r.error("train", "give either horizon or train, not both");
  }
  if (!has_horizon && !has_train) {
    return r.error_here("missing required field \"horizon\" (or \"train\")");
  }
  if (has_horizon) {
    return read_duration(r, "horizon", s.horizon_s, true, 1.0, kMaxHorizonS);
  }
  const YAML::Node train = r.child("train");
  NTPSIM_RETURN_IF_ERROR(reject_unknown_keys(train, "train", r.context(), {"tokens", "max_time"}));
  auto t = MapReader::make(train, "train", r.context());
  if (!t.ok()) return t.error();
  NTPSIM_RETURN_IF_ERROR(
      t->quantity("tokens", s.train_tokens, units::parse_count, true, 1.0, 1e18));
  s.max_time_s = 365.0 * 86400;
  NTPSIM_RETURN_IF_ERROR(read_duration(*t, "max_time", s.max_time_s, false, 1.0, kMaxHorizonS));
  return t->finish();
}

template <typename Fn>
Status optional_section(MapReader& r, std::string_view key, Fn&& read) {
  const YAML::Node n = r.child(key);
  if (!n.IsDefined() || n.IsNull()) return Status::Ok();
  return read(n);
}

// How apply_overrides applies them: parsing each (every node marked), or reusing the nodes an
// identical earlier override parsed (unmarked copies; tree.h, apply_override_reusing), or
// parsing only those that set `field` or a field around it and reusing the rest. The outcome is
// the same; only the marks differ.
enum class Overrides { kParse, kReuse, kParseAroundField };

// The override's field path, spaces trimmed (the text before '=').
std::string_view override_path(const std::string& o) {
  std::string_view p = std::string_view(o).substr(0, o.find('='));
  while (!p.empty() && p.front() == ' ') p.remove_prefix(1);
  while (!p.empty() && p.back() == ' ') p.remove_suffix(1);
  return p;
}

// Whether field paths `a` and `b` are one the other's prefix at a step boundary.
bool nested(std::string_view a, std::string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  if (b.substr(0, a.size()) != a) return false;
  return a.size() == b.size() || a.empty() || b[a.size()] == '.' || b[a.size()] == '[';
}

// Whether some override sets `field` or a field around it (as override_path spells it).
bool an_override_sets(const LoadOptions& options, std::string_view field) {
  return std::any_of(options.overrides.begin(), options.overrides.end(),
                     [&](const std::string& o) { return nested(override_path(o), field); });
}

Status apply_overrides(ScenarioTree& tree, const LoadOptions& options, Overrides how,
                       std::string_view field = {}) {
  for (size_t i = 0; i < options.overrides.size(); ++i) {
    const SourceLocation at =
        i < options.override_locations.size() ? options.override_locations[i] : SourceLocation{};
    const bool parse =
        how == Overrides::kParse ||
        (how == Overrides::kParseAroundField && nested(override_path(options.overrides[i]), field));
    NTPSIM_RETURN_IF_ERROR(parse ? apply_override(tree, options.overrides[i], at)
                                 : apply_override_reusing(tree, options.overrides[i], at));
  }
  return Status::Ok();
}

// Whether an override may set a field at or below the top-level `section`: any whose path (the
// text before '=') mentions the section's name, however quoted or spaced, so that no spelling
// of a path into the section is missed; a false positive only costs a reading.
bool overrides_touch(const LoadOptions& options, std::string_view section) {
  for (const std::string& o : options.overrides) {
    const std::string_view path = std::string_view(o).substr(0, o.find('='));
    if (path.find(section) != std::string_view::npos) return true;
  }
  return false;
}

// The failure section each kept tree (by kept_generation) gave when read, for the loads of that
// tree that no override changes there: read_failures is a pure function of the subtree, which is
// then the same bytes, so its reading is too. A planner loads one base thousands of times with
// overrides of the cluster, layout and checkpoint only, and reading the failure processes was an
// eighth of each load. Only successful readings are kept (an error needs the parsed tree's
// locations). Thread safety: locked; the kept readings are immutable.
class FailureSectionMemo {
 public:
  std::shared_ptr<const FailureConfig> find(uint64_t generation) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = kept_.find(generation);
    return it == kept_.end() ? nullptr : it->second;
  }
  void keep(uint64_t generation, const FailureConfig& f) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (kept_.size() >= kCapacity) kept_.clear();
    kept_.emplace(generation, std::make_shared<const FailureConfig>(f));
  }

 private:
  static constexpr size_t kCapacity = 16;
  std::mutex mutex_;
  std::map<uint64_t, std::shared_ptr<const FailureConfig>> kept_;
};

FailureSectionMemo& failure_section_memo() {
  static FailureSectionMemo memo;
  return memo;
}

// How far a reading of a scenario tree went, for ScenarioLoader: the sections it reads again
// are read in the middle of the others, so an error found before them, between them or after
// them is the same error for any values of theirs that read without error.
struct ReadTrace {
  enum class Stage {
    kOverrides,    // applying the overrides (or parsing the files)
    kBefore,       // the sections before `checkpoint`
    kCheckpoint,   // the `checkpoint` section
    kBetween,      // `recovery`
    kStrategies,   // the `strategies` section
    kAfter,        // the sections after `strategies` and the checks across sections
    kDone,         // read without error
  };
  Stage stage = Stage::kOverrides;
  // What the checkpoint section's values start from: the defaults and the recovery profile's.
  CheckpointConfig checkpoint_defaults;
};

// The scenario read from `tree`, the merged tree of `path` with its overrides applied, through
// `ctx` (tree.context()). `trace` records how far the reading went.
Result<Scenario> read_tree(const ScenarioTree& tree, const YamlContext& ctx,
                           const std::string& path, const LoadOptions& options,
                           ReadTrace& trace) {
  using Stage = ReadTrace::Stage;
  trace.stage = Stage::kBefore;
  const YAML::Node& root = tree.root;
  NTPSIM_RETURN_IF_ERROR(reject_unknown_keys(root, "", ctx, top_keys()));
  auto r = MapReader::make(root, "", ctx);
  if (!r.ok()) return r.error();
  const std::string data = options.data_dir.empty() ? default_data_dir() : options.data_dir;

  Scenario s;
  s.file = path;
  s.name = fs::path(path).stem().string();
  NTPSIM_RETURN_IF_ERROR(r->string("name", s.name, false));
  NTPSIM_RETURN_IF_ERROR(r->string("description", s.description, false));
  auto required = [&](std::string_view key) -> Result<YAML::Node> {
    YAML::Node n = r->child(key);
    if (!n.IsDefined() || n.IsNull()) {
      return r->error_here(fmt::format("missing required field \"{}\"", key));
    }
    return n;
  };
  auto cluster = required("cluster");
  if (!cluster.ok()) return cluster.error();
  NTPSIM_RETURN_IF_ERROR(read_cluster(*cluster, "cluster", ctx, s.cluster));

  auto workload = required("workload");
  if (!workload.ok()) return workload.error();
  auto w = models::read_workload(*workload, "workload", ctx,
                                 {(fs::path(data) / "models" / "workloads").string()});
  if (!w.ok()) return w.error();
  s.workload = std::move(w.value());

  auto layout = required("layout");
  if (!layout.ok()) return layout.error();
  auto l = models::read_layout(*layout, "layout", ctx);
  if (!l.ok()) return l.error();
  s.layout = *l;

  auto hardware = required("hardware");
  if (!hardware.ok()) return hardware.error();
  auto h = models::read_hardware(*hardware, "hardware", ctx,
                                 {(fs::path(data) / "models" / "profiles").string()});
  if (!h.ok()) return h.error();
  s.hardware = std::move(h.value());

  NTPSIM_RETURN_IF_ERROR(r->choice("model", s.step_model, {"analytic", "proportional"}, false));
  const bool memo = tree.kept_generation != 0 && !overrides_touch(options, "failures");
  NTPSIM_RETURN_IF_ERROR(optional_section(*r, "failures", [&](const YAML::Node& n) -> Status {
    if (memo) {
      if (auto kept = failure_section_memo().find(tree.kept_generation)) {
        s.failures = *kept;
        return Status::Ok();
      }
    }
    // Not NTPSIM_RETURN_IF_ERROR: inside the outer one its local would shadow the outer's.
    if (Status read = read_failures(n, "failures", ctx, s.failures); !read.ok()) return read;
    if (memo && !ctx.gave_unmarked_location()) {
      failure_section_memo().keep(tree.kept_generation, s.failures);
    }
    return Status::Ok();
  }));
  // The recovery profile sets checkpoint and recovery defaults, so it applies before either
  // section is read; read_recovery checks the name and reports a bad one at its line. A file that
  // names none starts from the sourced profile (kDefaultRecoveryProfile).
  apply_recovery_profile(kDefaultRecoveryProfile, s.checkpoint, s.recovery);
  if (const YAML::Node rec = r->node()["recovery"]; rec.IsDefined() && rec.IsMap()) {
    if (const YAML::Node profile = rec["profile"]; profile.IsDefined() && profile.IsScalar()) {
      apply_recovery_profile(profile.Scalar(), s.checkpoint, s.recovery);
    }
  }
  trace.stage = Stage::kCheckpoint;
  trace.checkpoint_defaults = s.checkpoint;
  NTPSIM_RETURN_IF_ERROR(optional_section(*r, "checkpoint", [&](const YAML::Node& n) {
    return read_checkpoint(n, "checkpoint", ctx, s.checkpoint);
  }));
  trace.stage = Stage::kBetween;
  NTPSIM_RETURN_IF_ERROR(optional_section(*r, "recovery", [&](const YAML::Node& n) {
    return read_recovery(n, "recovery", ctx, s.recovery);
  }));
  trace.stage = Stage::kStrategies;
  NTPSIM_RETURN_IF_ERROR(read_strategies(r->child("strategies"), "strategies", ctx, s.strategies));
  trace.stage = Stage::kAfter;
  NTPSIM_RETURN_IF_ERROR(read_run_length(*r, s));
  s.replications.fixed = kDefaultReplications;
  NTPSIM_RETURN_IF_ERROR(optional_section(*r, "replications", [&](const YAML::Node& n) {
    return read_replications(n, "replications", ctx, s.replications);
  }));
  int64_t seed = static_cast<int64_t>(s.seed);
  NTPSIM_RETURN_IF_ERROR(r->integer("seed", seed, false, 0, std::numeric_limits<int64_t>::max()));
  s.seed = static_cast<uint64_t>(seed);
  NTPSIM_RETURN_IF_ERROR(optional_section(*r, "outputs", [&](const YAML::Node& n) {
    return read_outputs(n, "outputs", ctx, s.outputs);
  }));
  r->mark_used("uncertain");
  NTPSIM_RETURN_IF_ERROR(r->finish());

  NTPSIM_RETURN_IF_ERROR(check_layout(root, ctx, s));
  NTPSIM_RETURN_IF_ERROR(check_failures(root, ctx, s));
  trace.stage = Stage::kDone;
  return s;
}

// `trace` records how far the reading that gave the outcome went, and `generation` the kept
// tree it read, or the one kept of the files it parsed (0: none).
Result<Scenario> load(const std::string& path, const LoadOptions& options, ReadTrace& trace,
                      uint64_t& generation) {
  // A tree kept from an earlier load of the same bytes is copied instead of parsed again
  // (tree.h, kept_tree). The copy lacks the line/column marks, so its outcome (a scenario or an
  // error) is taken only where the reading needed no location from an unmarked node: it is then
  // the outcome of reading the parsed files. First with the overrides' nodes reused (unmarked
  // too), then with them parsed (an error at an override's value is then located there), and
  // else from the files, so that every message names the file, line and column. The overrides'
  // own errors do not depend on marks.
  // A message located at an override's value (a candidate's TP that does not fit its domain)
  // needs only that override parsed: the second pass parses the overrides around the field the
  // first pass could not locate, and the third all of them.
  std::string unlocated;
  for (const Overrides how : {Overrides::kReuse, Overrides::kParseAroundField, Overrides::kParse}) {
    if (how == Overrides::kParseAroundField && !an_override_sets(options, unlocated)) continue;
    auto kept = kept_tree(path);
    if (!kept) break;
    trace.stage = ReadTrace::Stage::kOverrides;
    generation = kept->kept_generation;
    NTPSIM_RETURN_IF_ERROR(apply_overrides(*kept, options, how, unlocated));
    const YamlContext ctx = kept->context();
    auto s = read_tree(*kept, ctx, path, options, trace);
    if (!ctx.gave_unmarked_location()) return s;
    if (how == Overrides::kReuse) unlocated = ctx.first_unmarked_path();
  }
  trace.stage = ReadTrace::Stage::kOverrides;
  generation = 0;
  auto tree = load_tree(path, &generation);
  if (!tree.ok()) return tree.error();
  NTPSIM_RETURN_IF_ERROR(apply_overrides(*tree, options, Overrides::kParse));
  const YamlContext ctx = tree->context();
  return read_tree(*tree, ctx, path, options, trace);
}

// load(), with what escapes yaml-cpp and the standard library (bad_alloc, filesystem errors)
// made an error.
Result<Scenario> load_caught(const std::string& path, const LoadOptions& options,
                             ReadTrace& trace, uint64_t& generation) {
  try {
    return load(path, options, trace, generation);
  } catch (const std::exception& e) {
    trace.stage = ReadTrace::Stage::kOverrides;
    generation = 0;
    return Error::bad_input(fmt::format("{}: cannot load the scenario: {}", path, e.what()));
  }
}

// The sections ScenarioLoader reads again; the override paths that may differ name them first.
constexpr std::array<std::string_view, 2> kRereadSections = {"checkpoint", "strategies"};

// The top-level section an override's field path starts with, exactly as written.
std::string_view first_step(const std::string& o) {
  const std::string_view path = override_path(o);
  return path.substr(0, path.find_first_of(".["));
}

bool in_reread_section(const std::string& o) {
  const std::string_view first = first_step(o);
  return std::find(kRereadSections.begin(), kRereadSections.end(), first) !=
         kRereadSections.end();
}

// Whether an override's path mentions a reread section anywhere (however quoted or spaced) without
// starting with it: such a path may or may not set it, so the loader reads it in full.
bool mentions_reread_section_elsewhere(const std::string& o) {
  if (in_reread_section(o)) return false;
  const std::string_view path = std::string_view(o).substr(0, o.find('='));
  return std::any_of(kRereadSections.begin(), kRereadSections.end(), [&](std::string_view s) {
    return path.find(s) != std::string_view::npos;
  });
}

}  // namespace

std::string default_data_dir() {
  // Read once per load, before any thread starts; nothing in ntpsim sets the environment.
  // NOLINTNEXTLINE(concurrency-mt-unsafe)
  if (const char* env = std::getenv("NTPSIM_DATA_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return NTPSIM_DEFAULT_DATA_DIR;
}

Result<Scenario> load_scenario(const std::string& path, const LoadOptions& options) {
  ReadTrace trace;
  uint64_t generation = 0;
  return load_caught(path, options, trace, generation);
}

// The last full load: its inputs, its outcome, how far it read and which kept tree it read.
struct ScenarioLoader::Last {
  std::string path;
  LoadOptions options;
  Result<Scenario> outcome;
  ReadTrace trace;
  uint64_t generation = 0;

  // Whether `options` differ from this load's only in overrides that set a reread section.
  bool differs_in_reread_sections_only(const std::string& p, const LoadOptions& o) const {
    if (p != path || o.data_dir != options.data_dir ||
        o.overrides.size() != options.overrides.size() ||
        o.override_locations != options.override_locations) {
      return false;
    }
    for (size_t i = 0; i < o.overrides.size(); ++i) {
      const std::string& now = o.overrides[i];
      const std::string& then = options.overrides[i];
      if (mentions_reread_section_elsewhere(now)) return false;
      if (now == then) continue;
      if (!in_reread_section(now) || !in_reread_section(then)) return false;
    }
    return true;
  }
};

ScenarioLoader::ScenarioLoader() = default;
ScenarioLoader::~ScenarioLoader() = default;

const ScenarioLoader::Sections* ScenarioLoader::sections(const std::string& path,
                                                         const LoadOptions& options) {
  // The key: the reread sections' overrides, in order, with where each was written.
  std::string key;
  for (size_t i = 0; i < options.overrides.size(); ++i) {
    if (!in_reread_section(options.overrides[i])) continue;
    key += options.overrides[i];
    key += '\n';
    if (i < options.override_locations.size()) key += options.override_locations[i].to_string();
    key += '\0';
  }
  if (sections_generation_ != last_->generation) {
    read_.clear();
    sections_generation_ = last_->generation;
  }
  const CheckpointConfig& defaults = last_->trace.checkpoint_defaults;
  if (const auto it = read_.find(key); it != read_.end() && it->second.defaults == defaults) {
    return &it->second;
  }
  const std::vector<std::string> keys(kRereadSections.begin(), kRereadSections.end());
  auto tree = kept_sections(path, keys);
  if (!tree || tree->kept_generation != last_->generation) return nullptr;
  Sections out;
  out.defaults = defaults;
  out.applied = true;
  for (size_t i = 0; i < options.overrides.size() && out.applied; ++i) {
    if (!in_reread_section(options.overrides[i])) continue;
    const SourceLocation at =
        i < options.override_locations.size() ? options.override_locations[i] : SourceLocation{};
    out.applied = apply_override_reusing(*tree, options.overrides[i], at).ok();
  }
  if (out.applied) {
    const YAML::Node& root = tree->root;
    // One context per section: each remembers whether its own reading asked for a location.
    const YamlContext checkpoint_ctx = tree->context();
    CheckpointConfig checkpoint = defaults;
    const YAML::Node n = root["checkpoint"];
    const bool read = !n.IsDefined() || n.IsNull() ||
                      read_checkpoint(n, "checkpoint", checkpoint_ctx, checkpoint).ok();
    if (read && !checkpoint_ctx.gave_unmarked_location()) out.checkpoint = checkpoint;
    const YamlContext strategies_ctx = tree->context();
    std::vector<StrategyConfig> strategies;
    if (read_strategies(root["strategies"], "strategies", strategies_ctx, strategies).ok() &&
        !strategies_ctx.gave_unmarked_location()) {
      out.strategies = std::move(strategies);
    }
  }
  if (read_.size() >= kMaxSectionsKept) read_.clear();
  return &(read_[key] = std::move(out));
}

Result<Scenario> ScenarioLoader::load(const std::string& path, const LoadOptions& options) {
  using Stage = ReadTrace::Stage;
  // The outcome of load_scenario(path, options) from the last full load and the reread sections,
  // or nullopt where that cannot be told without a full load.
  const auto reread = [&]() -> std::optional<Result<Scenario>> {
    if (!last_ || !last_->differs_in_reread_sections_only(path, options)) return std::nullopt;
    const Stage stopped = last_->trace.stage;
    if (stopped == Stage::kOverrides || stopped == Stage::kCheckpoint ||
        stopped == Stage::kStrategies) {
      return std::nullopt;  // the outcome depends on the reread sections themselves
    }
    // The files must be those of the last full load.
    if (kept_generation(path) != std::optional<uint64_t>(last_->generation)) return std::nullopt;
    const Sections* read = sections(path, options);
    if (read == nullptr || !read->applied) return std::nullopt;
    // Read in the order of a full load: the checkpoint before `recovery`, the strategies after.
    if (stopped != Stage::kBefore && !read->checkpoint) return std::nullopt;
    const bool strategies_read = stopped == Stage::kAfter || stopped == Stage::kDone;
    if (strategies_read && !read->strategies) return std::nullopt;
    if (stopped != Stage::kDone) return Result<Scenario>(last_->outcome.error());
    Scenario s = *last_->outcome;
    s.checkpoint = *read->checkpoint;
    s.strategies = *read->strategies;
    return Result<Scenario>(std::move(s));
  };
  try {
    if (auto outcome = reread()) {
      ++sections_reread_;
      return std::move(*outcome);
    }
  } catch (const std::exception&) {
    // A reading that throws is left to the full load, which reports it.
  }
  auto last = std::make_unique<Last>(Last{path, options, Error::bad_input(""), {}, 0});
  last->outcome = load_caught(path, options, last->trace, last->generation);
  last_ = std::move(last);
  return last_->outcome;
}

Result<Scenario> load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  LoadOptions options;
  options.overrides = overrides;
  return load_scenario(path, options);
}

double expected_process_failures(const Scenario& s) {
  double expected = 0;
  for (const auto& p : s.failures.processes) expected += expected_failures(p, s);
  return expected;
}

}  // namespace ntpsim::sim
