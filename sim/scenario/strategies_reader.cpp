// The `strategies:` list, validated against the strategy registry (sections.h).
//
// An entry is a registered name ("ntp": every parameter at its default) or a map with `name`,
// an optional `label`, and parameters. Parameters are read with the parser of their kind, so
// "30%" and "5min" work where the registry says fraction or duration.
#include <fmt/format.h>

#include <set>

#include "models/base/check.h"
#include "models/base/units.h"
#include "sim/scenario/sections.h"
#include "sim/strategies/registry.h"

namespace ntpsim::sim::scenario_internal {
namespace {

std::vector<std::string> registered_names() {
  std::vector<std::string> names;
  for (const auto& s : strategy_registry()) names.push_back(s.name);
  return names;
}

Error unknown_strategy(const SourceLocation& where, const std::string& path,
                       const std::string& name) {
  const auto names = registered_names();
  const std::string near = nearest_key(name, names);
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return Error::at(
      where, path,
      fmt::format("unknown strategy \"{}\"{}; known: {}", name,
                  near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near), list));
}

// The value of `spec` from YAML text (a default, or a map entry) through its kind's parser.
Result<ParamValue> parse_param(const ParamSpec& spec, const std::string& text) {
  switch (spec.kind) {
    case ParamKind::kBool:
      if (text == "true" || text == "yes" || text == "on") return ParamValue(true);
      if (text == "false" || text == "no" || text == "off") return ParamValue(false);
      return Error::bad_input(fmt::format("expected true or false, got \"{}\"", text));
    case ParamKind::kChoice:
      return ParamValue(text);
    case ParamKind::kInt: {
      auto v = units::parse_count(text);
      if (!v.ok()) return v.error();
      return ParamValue(static_cast<int64_t>(*v));
    }
    case ParamKind::kFraction: {
      auto v = units::parse_fraction(text);
      if (!v.ok()) return v.error();
      return ParamValue(*v);
    }
    case ParamKind::kDuration: {
      auto v = units::parse_duration_s(text);
      if (!v.ok()) return v.error();
      return ParamValue(*v);
    }
    case ParamKind::kNumber: {
      auto v = units::parse_number(text);
      if (!v.ok()) return v.error();
      return ParamValue(*v);
    }
  }
  return Error::bad_input("unknown parameter kind");
}

Status read_param(MapReader& r, const ParamSpec& spec, ParamValue& out) {
  const std::string& key = spec.name;
  switch (spec.kind) {
    case ParamKind::kBool: {
      bool v = std::get<bool>(out);
      NTPSIM_RETURN_IF_ERROR(r.boolean(key, v, false));
      out = v;
      return Status::Ok();
    }
    case ParamKind::kInt: {
      int64_t v = std::get<int64_t>(out);
      NTPSIM_RETURN_IF_ERROR(
          r.integer(key, v, false, static_cast<int64_t>(spec.min), static_cast<int64_t>(spec.max)));
      out = v;
      return Status::Ok();
    }
    case ParamKind::kChoice: {
      std::string v = std::get<std::string>(out);
      NTPSIM_RETURN_IF_ERROR(r.choice(key, v, spec.choices, false));
      out = v;
      return Status::Ok();
    }
    case ParamKind::kFraction:
    case ParamKind::kDuration:
    case ParamKind::kNumber: {
      double v = std::get<double>(out);
      if (spec.kind == ParamKind::kFraction) {
        NTPSIM_RETURN_IF_ERROR(read_fraction(r, key, v, false, spec.min, spec.max));
      } else if (spec.kind == ParamKind::kDuration) {
        NTPSIM_RETURN_IF_ERROR(read_duration(r, key, v, false, spec.min, spec.max));
      } else {
        NTPSIM_RETURN_IF_ERROR(r.number(key, v, false, spec.min, spec.max));
      }
      out = v;
      return Status::Ok();
    }
  }
  return Status::Ok();
}

std::map<std::string, ParamValue> defaults_of(const StrategyInfo& info) {
  std::map<std::string, ParamValue> params;
  for (const auto& spec : info.params) {
    auto v = parse_param(spec, spec.default_text);
    NTPSIM_CHECK_MSG(v.ok(), "a registered strategy parameter has an unparsable default");
    params.emplace(spec.name, *v);
  }
  return params;
}

}  // namespace

Status read_strategies(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                       std::vector<StrategyConfig>& out) {
  if (!node.IsDefined() || node.IsNull()) {
    return Error::at(ctx.locate(node, path), path, "missing: list at least one strategy");
  }
  if (!node.IsSequence() || node.size() == 0) {
    return Error::at(ctx.locate(node, path), path,
                     fmt::format("expected a non-empty list of strategies, got {}",
                                 node.IsSequence() ? "an empty list" : yaml_kind(node)));
  }
  std::set<std::string> labels;
  out.clear();
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node entry = node[i];
    const std::string p = fmt::format("{}[{}]", path, i);
    StrategyConfig s;
    if (entry.IsScalar()) {
      const StrategyInfo* info = find_strategy(entry.Scalar());
      if (info == nullptr) return unknown_strategy(ctx.locate(entry, p), p, entry.Scalar());
      s.name = info->name;
      s.label = info->name;
      s.params = defaults_of(*info);
    } else {
      auto r = MapReader::make(entry, p, ctx);
      if (!r.ok()) {
        return Error::at(ctx.locate(entry, p), p,
                         fmt::format("expected a strategy name or a map with \"name\", got {}",
                                     yaml_kind(entry)));
      }
      NTPSIM_RETURN_IF_ERROR(r->string("name", s.name, true));
      const StrategyInfo* info = find_strategy(s.name);
      if (info == nullptr)
        return unknown_strategy(r->location("name"), join_path(p, "name"), s.name);
      s.label = s.name;
      NTPSIM_RETURN_IF_ERROR(r->string("label", s.label, false));
      s.params = defaults_of(*info);
      for (const auto& spec : info->params) {
        NTPSIM_RETURN_IF_ERROR(read_param(*r, spec, s.params.at(spec.name)));
      }
      NTPSIM_RETURN_IF_ERROR(r->finish());
    }
    if (!labels.insert(s.label).second) {
      return Error::at(ctx.locate(entry, p), p,
                       fmt::format("label \"{}\" is used twice; give repeated strategies distinct "
                                   "labels",
                                   s.label));
    }
    out.push_back(std::move(s));
  }
  return Status::Ok();
}

}  // namespace ntpsim::sim::scenario_internal
