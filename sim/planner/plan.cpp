// Reading a plan file (plan.h): strict, every key known, every error located.
#include "sim/planner/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <system_error>

#include "models/base/check.h"
#include "models/base/units.h"
#include "models/base/yaml_reader.h"
#include "sim/scenario/strategy_entry.h"
#include "sim/strategies/registry.h"

namespace ntpsim::sim {
namespace {

constexpr int kMaxListValues = 64;
// Search size limits (docs/limits.md). Each candidate is the base scenario loaded
// again and screened: about 1.1 ms of CPU and 2 KB each (20,480 candidates of the quick start,
// release build: 23 CPU-seconds, 54 MB peak), so 10^5 candidates take about 2 CPU-minutes and
// 250 MB; without a limit the lists allow 64^8 (about 3e14).
constexpr double kMaxCandidates = 1e5;
// Monte Carlo replications the confirmation may run in the worst case (every family confirming
// max_finalists candidates at max_replications each): as many as one `ntpsim run` accepts.
constexpr double kMaxConfirmReplications = 1e6;

Error at_node(const YamlContext& ctx, const YAML::Node& n, const std::string& path,
              const std::string& what) {
  return Error::at(ctx.locate(n, path), path, what);
}

// The items of the list at `key` with each one's path ("search.tp[1]"): a single value (a map
// too, when `maps`) stands for a list of one. Refuses an empty list and more than kMaxListValues.
struct ListItem {
  YAML::Node node;
  std::string path;
};
Result<std::vector<ListItem>> list_items(MapReader& r, std::string_view key, bool maps) {
  const YAML::Node n = r.child(key);
  const std::string path = join_path(r.path(), key);
  std::vector<ListItem> items;
  if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i) items.push_back({n[i], fmt::format("{}[{}]", path, i)});
  } else if (n.IsScalar() || (maps && n.IsMap())) {
    items.push_back({n, path});
  } else {
    return at_node(r.context(), n, path, "expected a value or a list, found a " + yaml_kind(n));
  }
  if (items.empty()) return at_node(r.context(), n, path, "the list is empty");
  if (items.size() > kMaxListValues) {
    return at_node(r.context(), n, path, fmt::format("at most {} values", kMaxListValues));
  }
  return items;
}

// A scalar or a list of scalars at `key`, each parsed by `parse`; absent leaves `out` empty.
template <typename T, typename Parse>
Status read_list(MapReader& r, std::string_view key, std::vector<T>& out, Parse parse) {
  if (!r.has(key)) return Status::Ok();
  auto list = list_items(r, key, false);
  if (!list.ok()) return list.error();
  for (const ListItem& item : *list) {
    if (!item.node.IsScalar()) {
      return at_node(r.context(), item.node, item.path,
                     "expected a value, found a " + yaml_kind(item.node));
    }
    auto v = parse(item.node.Scalar());
    if (!v.ok()) return at_node(r.context(), item.node, item.path, v.error().message);
    out.push_back(*v);
  }
  return Status::Ok();
}

// The number of candidates the search enumerates: the product of the list lengths (an absent
// list is one value; `dp: derive` is one).
double candidate_count(const PlanSearch& s) {
  auto len = [](size_t n) { return static_cast<double>(std::max<size_t>(1, n)); };
  return len(s.hardware.size()) * len(s.domains.size()) * len(s.spare_domains.size()) *
         len(s.tp.size()) * len(s.pp.size()) * len(s.dp.size()) * len(s.strategies.size()) *
         len(s.checkpoint_interval_s.size());
}

Result<int> parse_int(std::string_view text, int min, int max) {
  auto v = units::parse_number(text);
  if (!v.ok()) return v.error();
  if (*v != std::floor(*v) || *v < min || *v > max) {
    return Error::bad_input(fmt::format("'{}' is not an integer in [{}, {}]", text, min, max));
  }
  return static_cast<int>(*v);
}

Result<PlanStrategy> parse_strategy(std::string_view full) {
  PlanStrategy s;
  // "name[@cap][/resume]": a resume mechanism after a slash (sim/strategies/README.md).
  const auto slash = full.find('/');
  const std::string_view text = full.substr(0, slash);
  const auto at_pos = text.find('@');
  s.name = std::string(text.substr(0, at_pos));
  const StrategyInfo* info = find_strategy(s.name);
  if (info == nullptr) {
    std::vector<std::string> names;
    for (const auto& known : strategy_registry()) names.push_back(known.name);
    const std::string near = nearest_key(s.name, names);
    return Error::bad_input(fmt::format("unknown strategy '{}'{}", s.name,
                                        near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near)));
  }
  if (at_pos != std::string_view::npos) {
    // A cap sets the strategy's max_power: for the strategies that have one (ntp_power_boost,
    // spares_then_ntp_power_boost).
    const bool capped = std::any_of(info->params.begin(), info->params.end(),
                                    [](const ParamSpec& p) { return p.name == "max_power"; });
    if (!capped) {
      return Error::bad_input(
          "a power cap ('@30%') is only for a strategy with max_power (ntp_power_boost, "
          "spares_then_ntp_power_boost)");
    }
    auto cap = units::parse_fraction(text.substr(at_pos + 1));
    if (!cap.ok()) return cap.error();
    if (!(*cap > 0 && *cap <= 2)) return Error::bad_input("power cap must be in (0%, 200%]");
    s.cap = *cap;
  }
  if (slash != std::string_view::npos) {
    s.resume = std::string(full.substr(slash + 1));
    const auto spec = std::find_if(info->params.begin(), info->params.end(),
                                   [](const ParamSpec& p) { return p.name == "resume"; });
    NTPSIM_CHECK(spec != info->params.end());
    if (std::find(spec->choices.begin(), spec->choices.end(), s.resume) == spec->choices.end()) {
      std::string list;
      for (const auto& c : spec->choices) list += (list.empty() ? "" : ", ") + c;
      return Error::bad_input(
          fmt::format("'{}': {} resumes by one of: {}", s.resume, s.name, list));
    }
  }
  return s;
}

// The cap a strategy entry sets: its max_power, or a chain's boosted reduce_tp's.
std::optional<double> entry_cap(const StrategyConfig& c) {
  auto cap_of = [](const std::map<std::string, ParamValue>& params) -> std::optional<double> {
    const auto it = params.find("max_power");
    if (it == params.end() || !std::holds_alternative<double>(it->second)) return std::nullopt;
    return std::get<double>(it->second);
  };
  if (c.chain.empty()) return cap_of(c.params);
  for (const auto& step : c.chain) {
    const auto boost = step.params.find("power_boost");
    if (boost != step.params.end() && std::holds_alternative<bool>(boost->second) &&
        std::get<bool>(boost->second)) {
      return cap_of(step.params);
    }
  }
  return std::nullopt;
}

// search.strategies: each item a short form "name[@cap][/resume]" (parse_strategy) or a map
// written as a scenario's strategies entry, a user's policy chain included, read by the
// scenario's own reader so its errors name this plan's file, line and column. Labels (the
// families the plan reports) are unique.
Status read_strategies(MapReader& r, std::vector<PlanStrategy>& out) {
  auto list = list_items(r, "strategies", true);
  if (!list.ok()) return list.error();
  std::set<std::string> labels;
  for (const ListItem& item : *list) {
    const YAML::Node& node = item.node;
    const std::string& ipath = item.path;
    PlanStrategy s;
    if (node.IsMap()) {
      auto c = read_strategy_entry(node, ipath, r.context());
      if (!c.ok()) return c.error();
      s.name = c->name;
      s.cap = entry_cap(*c);
      s.entry = strategy_entry_yaml(*c);
      s.entry_label = c->label;
    } else if (node.IsScalar()) {
      auto v = parse_strategy(node.Scalar());
      if (!v.ok()) return at_node(r.context(), node, ipath, v.error().message);
      s = std::move(*v);
    } else {
      return at_node(r.context(), node, ipath,
                     "expected a strategy (name[@cap][/resume]) or a strategies entry (a map), "
                     "found a " +
                         yaml_kind(node));
    }
    if (!labels.insert(s.label()).second) {
      return at_node(r.context(), node, ipath,
                     fmt::format("\"{}\" is listed twice; give repeated strategies distinct "
                                 "labels",
                                 s.label()));
    }
    out.push_back(std::move(s));
  }
  return Status::Ok();
}

Status read_search(MapReader& top, Plan& p) {
  if (!top.has("search")) return top.error_here("missing required field \"search\"");
  auto r = MapReader::make(top.child("search"), "search", top.context());
  if (!r.ok()) return r.error();
  NTPSIM_RETURN_IF_ERROR(read_list(*r, "hardware", p.search.hardware,
                                   [](std::string_view t) -> Result<std::string> {
                                     if (t.empty()) return Error::bad_input("empty profile name");
                                     return std::string(t);
                                   }));
  auto ints = [](int min, int max) {
    return [min, max](std::string_view t) { return parse_int(t, min, max); };
  };
  if (!r->has("domains")) return r->error_here("missing required field \"domains\"");
  NTPSIM_RETURN_IF_ERROR(read_list(*r, "domains", p.search.domains, ints(1, 100000)));
  NTPSIM_RETURN_IF_ERROR(read_list(*r, "spare_domains", p.search.spare_domains, ints(0, 100000)));
  NTPSIM_RETURN_IF_ERROR(read_list(*r, "tp", p.search.tp, ints(1, 4096)));
  NTPSIM_RETURN_IF_ERROR(read_list(*r, "pp", p.search.pp, ints(1, 4096)));
  if (r->has("dp") && r->child("dp").IsScalar() && r->child("dp").Scalar() == "derive") {
    r->mark_used("dp");
  } else {
    NTPSIM_RETURN_IF_ERROR(read_list(*r, "dp", p.search.dp, ints(1, 1000000)));
  }
  if (!r->has("strategies")) return r->error_here("missing required field \"strategies\"");
  NTPSIM_RETURN_IF_ERROR(read_strategies(*r, p.search.strategies));
  NTPSIM_RETURN_IF_ERROR(read_list(*r, "checkpoint_interval", p.search.checkpoint_interval_s,
                                   [](std::string_view t) -> Result<double> {
                                     if (t == "auto") return 0.0;
                                     auto v = units::parse_duration_s(t);
                                     if (!v.ok()) return v.error();
                                     if (!(*v >= 1)) return Error::bad_input("at least 1 s");
                                     return *v;
                                   }));
  if (r->has("layout")) {
    const YAML::Node node = r->child("layout");
    if (!node.IsScalar() || node.Scalar() != "auto") {
      return r->error("layout", "'auto' is the only value (omit it to use tp, pp and dp)");
    }
    for (const char* key : {"tp", "pp", "dp"}) {
      if (r->has(key)) {
        return r->error("layout",
                        fmt::format("'auto' chooses TP, PP and DP: remove search.{}", key));
      }
    }
    r->mark_used("layout");
    p.search.layout_auto = true;
  }
  if (r->has("cp")) {
    const YAML::Node node = r->child("cp");
    if (!node.IsScalar() || node.Scalar() != "auto") {
      return r->error("cp", "'auto' is the only value (omit it to keep the base's CP)");
    }
    if (!p.search.layout_auto) {
      return r->error("cp", "'auto' chooses CP with the layout: add search.layout: auto");
    }
    r->mark_used("cp");
    p.search.cp_auto = true;
  }
  NTPSIM_RETURN_IF_ERROR(r->finish({"hardware", "domains", "spare_domains", "tp", "pp", "dp",
                                    "strategies", "checkpoint_interval", "layout", "cp"}));
  const double candidates = candidate_count(p.search);
  if (candidates > kMaxCandidates) {
    return top.error("search",
                     fmt::format("{:.0f} candidates (the product of the list lengths: hardware x "
                                 "domains x spare_domains x tp x pp x dp x strategies x "
                                 "checkpoint_interval); at most {:g}: shorten the lists or "
                                 "split the plan",
                                 candidates, kMaxCandidates));
  }
  return Status::Ok();
}

Status read_target(MapReader& top, Plan& p) {
  if (!top.has("target")) return top.error_here("missing required field \"target\"");
  auto r = MapReader::make(top.child("target"), "target", top.context());
  if (!r.ok()) return r.error();
  PlanTarget& t = p.target;
  const bool tokens = r->has("tokens");
  if (tokens == r->has("goodput")) {
    return r->error_here("give either tokens (with deadline) or goodput, not both or neither");
  }
  if (tokens) {
    NTPSIM_RETURN_IF_ERROR(r->quantity("tokens", t.tokens, units::parse_count, true, 1, 1e18));
    NTPSIM_RETURN_IF_ERROR(
        r->quantity("deadline", t.deadline_s, units::parse_duration_s, true, 3600, 10 * 365 * 86400.0));
  } else {
    NTPSIM_RETURN_IF_ERROR(r->quantity("goodput", t.goodput, units::parse_fraction, true, 0.01, 1));
  }
  NTPSIM_RETURN_IF_ERROR(
      r->quantity("confidence", t.confidence, units::parse_fraction, false, 0.5, 0.99));
  return r->finish();
}

Status read_prices(MapReader& top, Plan& p) {
  if (!top.has("prices")) return top.error_here("missing required field \"prices\"");
  auto r = MapReader::make(top.child("prices"), "prices", top.context());
  if (!r.ok()) return r.error();
  PlanPrices& c = p.prices;
  if (r->has("gpu_hour") == r->has("rack_capex")) {
    return r->error_here("give either gpu_hour or rack_capex (with amortisation), not both or neither");
  }
  // The chosen price is required, so that a key written without a value ("gpu_hour: ~") is
  // refused rather than leaving the plan with no price at all.
  if (r->has("rack_capex")) {
    NTPSIM_RETURN_IF_ERROR(r->number("rack_capex", c.rack_capex, true, 1, 1e12));
    NTPSIM_RETURN_IF_ERROR(r->quantity("amortisation", c.amortisation_s, units::parse_duration_s,
                                       true, 86400, 50 * 365 * 86400.0));
  } else {
    NTPSIM_RETURN_IF_ERROR(r->number("gpu_hour", c.gpu_hour, true, 1e-6, 1e6));
  }
  NTPSIM_RETURN_IF_ERROR(r->quantity("spare_factor", c.spare_factor, units::parse_fraction, false, 0, 1));
  NTPSIM_RETURN_IF_ERROR(r->number("energy_per_mwh", c.energy_per_mwh, false, 0, 1e6));
  return r->finish();
}

Status read_confirm(MapReader& top, Plan& p) {
  if (!top.has("confirm")) return Status::Ok();
  auto r = MapReader::make(top.child("confirm"), "confirm", top.context());
  if (!r.ok()) return r.error();
  PlanConfirm& c = p.confirm;
  NTPSIM_RETURN_IF_ERROR(r->integer("min_replications", c.min_replications, false, 2, 10000));
  // Without max_replications, the first batch is also the last when it is above the default.
  c.max_replications = std::max(c.max_replications, c.min_replications);
  NTPSIM_RETURN_IF_ERROR(
      r->integer("max_replications", c.max_replications, false, c.min_replications, 100000));
  NTPSIM_RETURN_IF_ERROR(r->integer("max_finalists", c.max_finalists, false, 1, 1000));
  NTPSIM_RETURN_IF_ERROR(r->number("screen_margin", c.screen_margin, false, 1, 10));
  NTPSIM_RETURN_IF_ERROR(r->finish());
  const double worst = static_cast<double>(p.search.strategies.size()) * c.max_finalists *
                       static_cast<double>(c.max_replications);
  if (worst > kMaxConfirmReplications) {
    // The field that was raised; both defaults together stay far below the limit.
    const char* raised = r->has("max_finalists")      ? "max_finalists"
                         : r->has("max_replications") ? "max_replications"
                                                      : "min_replications";
    // max_replications is raised to min_replications when not given: then the first is the one
    // to lower.
    const bool by_min = !r->has("max_replications") && c.max_replications == c.min_replications;
    return r->error(raised,
                    fmt::format("{} strategy families x {} finalists x {} replications = {:.3g} "
                                "Monte Carlo replications at worst; at most {:g}: lower "
                                "max_finalists or {}",
                                p.search.strategies.size(), c.max_finalists, c.max_replications,
                                worst, kMaxConfirmReplications,
                                by_min ? "min_replications" : "max_replications"));
  }
  return Status::Ok();
}

}  // namespace

std::string PlanStrategy::label() const {
  if (!entry.empty()) return entry_label;
  const std::string base = cap ? fmt::format("{}@{:g}%", name, *cap * 100) : name;
  return resume.empty() ? base : base + "/" + resume;
}

Result<Plan> read_plan(const std::string& path) {
  auto doc = load_yaml_file(path);
  if (!doc.ok()) return doc.error();
  YamlContext ctx(path);
  auto r = MapReader::make(*doc, "", ctx);
  if (!r.ok()) return r.error();
  Plan p;
  p.file = path;
  p.name = std::filesystem::path(path).stem().string();
  NTPSIM_RETURN_IF_ERROR(r->string("name", p.name, false));
  NTPSIM_RETURN_IF_ERROR(r->string("description", p.description, false));
  NTPSIM_RETURN_IF_ERROR(r->string("base", p.base, true));
  const std::filesystem::path base(p.base);
  p.base = base.is_absolute() ? p.base
                              : (std::filesystem::path(path).parent_path() / base).string();
  std::error_code ec;  // a path the OS refuses (name too long, no permission) is bad input too
  if (!std::filesystem::exists(p.base, ec)) {
    return r->error("base", ec ? fmt::format("base scenario '{}' cannot be read: {}", p.base,
                                             ec.message())
                               : fmt::format("base scenario '{}' does not exist", p.base));
  }
  NTPSIM_RETURN_IF_ERROR(read_list(*r, "overrides", p.overrides,
                                   [](std::string_view t) -> Result<std::string> {
                                     if (t.find('=') == std::string_view::npos) {
                                       return Error::bad_input("expected 'path=value'");
                                     }
                                     return std::string(t);
                                   }));
  if (const YAML::Node ov = r->node()["overrides"]; ov.IsDefined()) {
    std::vector<YAML::Node> items;
    if (ov.IsSequence()) {
      for (const auto& item : ov) items.push_back(item);
    } else {
      items.push_back(ov);
    }
    for (const auto& item : items) {
      SourceLocation at = ctx.locate(item, "overrides");
      // A quoted entry's text starts after its quote (yaml-cpp tags non-plain scalars "!").
      if (item.Tag() == "!") ++at.column;
      p.override_locations.push_back(at);
    }
  }
  NTPSIM_RETURN_IF_ERROR(read_search(*r, p));
  NTPSIM_RETURN_IF_ERROR(read_target(*r, p));
  NTPSIM_RETURN_IF_ERROR(read_prices(*r, p));
  NTPSIM_RETURN_IF_ERROR(read_confirm(*r, p));
  if (r->has("seed")) {
    int64_t seed = 0;
    NTPSIM_RETURN_IF_ERROR(r->integer("seed", seed, true, 0, INT64_MAX));
    p.seed = static_cast<uint64_t>(seed);
  }
  NTPSIM_RETURN_IF_ERROR(r->finish(
      {"name", "description", "base", "overrides", "search", "target", "prices", "confirm", "seed"}));
  return p;
}

LoadOptions base_load_options(const Plan& plan, const std::vector<std::string>& more) {
  LoadOptions options;
  options.overrides = plan.overrides;
  options.overrides.insert(options.overrides.end(), more.begin(), more.end());
  options.override_locations = plan.override_locations;
  return options;
}

}  // namespace ntpsim::sim
