// The `strategies:` list, validated against the strategy registry as the strategies provide it
// (StrategyVocabulary, vocabulary.h; sections.h).
//
// An entry is a registered name ("ntp": every parameter at its default), a map with `name`, an
// optional `label`, and parameters, or a policy chain: a map with its own `name`, an optional
// `label` and `chain` (read_chain). Parameters are read with the parser of their kind, so
// "30%" and "5min" work where the registry says fraction or duration.
#include <fmt/format.h>

#include <set>

#include "models/base/check.h"
#include "models/base/units.h"
#include "sim/scenario/sections.h"
#include "sim/scenario/strategy_entry.h"
#include "sim/scenario/vocabulary.h"

namespace ntpsim::sim::scenario_internal {
namespace {

Error unknown_strategy(const SourceLocation& where, const std::string& path,
                       const std::string& name) {
  const auto names = strategy_vocabulary().strategy_names();
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

std::map<std::string, ParamValue> defaults_of(const std::vector<ParamSpec>& specs) {
  std::map<std::string, ParamValue> params;
  for (const auto& spec : specs) {
    auto v = parse_param(spec, spec.default_text);
    NTPSIM_CHECK_MSG(v.ok(), "a registered strategy parameter has an unparsable default");
    params.emplace(spec.name, *v);
  }
  return params;
}

// A chain name shows in tables, CSV and JSON: letters, digits, '_' and '-'.
bool valid_chain_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// `chain:` of a strategy entry: a non-empty list whose items are an action name or a one-key map
// {action: {options}} (sim/strategies/README.md, "Policy chains"). The order rules come from
// check_chain; every error names the item's line.
Status read_chain(MapReader& r, const std::string& p, const YamlContext& ctx, StrategyConfig& s) {
  const StrategyVocabulary& vocabulary = strategy_vocabulary();
  if (vocabulary.strategy_params(s.name) != nullptr) {
    return r.error("name", fmt::format("\"{}\" is a registered strategy; a chain needs a name of "
                                       "its own",
                                       s.name));
  }
  if (!valid_chain_name(s.name)) {
    return r.error("name", fmt::format("\"{}\": a chain's name uses only letters, digits, '_' "
                                       "and '-'",
                                       clip_for_message(s.name)));
  }
  const std::string cp = join_path(p, "chain");
  const YAML::Node list = r.child("chain");
  if (!list.IsSequence() || list.size() == 0) {
    return Error::at(ctx.locate(list, cp), cp,
                     fmt::format("expected a non-empty list of actions, got {}",
                                 list.IsSequence() ? "an empty list" : yaml_kind(list)));
  }
  std::vector<std::string> names;
  std::vector<YAML::Node> options;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const std::string ip = fmt::format("{}[{}]", cp, i);
    if (item.IsScalar()) {
      names.push_back(item.Scalar());
      options.emplace_back();
    } else if (item.IsMap() && item.size() == 1 && item.begin()->first.IsScalar()) {
      names.push_back(item.begin()->first.Scalar());
      options.push_back(item.begin()->second);
    } else {
      return Error::at(ctx.locate(item, ip), ip,
                       fmt::format("expected an action name or a one-key map {{action: "
                                   "{{options}}}}, got {}",
                                   item.IsMap() ? fmt::format("a map with {} keys", item.size())
                                                : yaml_kind(item)));
    }
  }
  if (auto problem = vocabulary.check_chain(names)) {
    if (problem->index >= list.size()) return Error::at(ctx.locate(list, cp), cp, problem->message);
    const std::string ip = fmt::format("{}[{}]", cp, problem->index);
    return Error::at(ctx.locate(list[problem->index], ip), ip, problem->message);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    const ChainActionInfo* info = vocabulary.chain_action(names[i]);
    NTPSIM_CHECK(info != nullptr);
    ChainStep step{info->name, defaults_of(info->params)};
    const YAML::Node opts = options[i];
    const std::string op = join_path(fmt::format("{}[{}]", cp, i), info->name);
    if (opts.IsDefined() && !opts.IsNull()) {
      auto o = MapReader::make(opts, op, ctx);
      if (!o.ok()) {
        return Error::at(ctx.locate(opts, op), op,
                         info->params.empty()
                             ? fmt::format("{} has no options, got {}", info->name, yaml_kind(opts))
                             : fmt::format("expected a map of {}'s options, got {}", info->name,
                                           yaml_kind(opts)));
      }
      for (const auto& spec : info->params) {
        NTPSIM_RETURN_IF_ERROR(read_param(*o, spec, step.params.at(spec.name)));
      }
      NTPSIM_RETURN_IF_ERROR(o->finish());
      if (!info->only_with.empty() && !std::get<bool>(step.params.at(info->only_with))) {
        for (const auto& key : info->only_with_params) {
          if (o->has(key)) {
            return o->error(key, fmt::format("applies only with {}: true", info->only_with));
          }
        }
      }
      // An earlier action may need one of this (terminal) action's flags to stay true.
      for (size_t j = 0; j < i; ++j) {
        const std::string& flag = vocabulary.chain_action(names[j])->needs_terminal_flag;
        const auto it = step.params.find(flag);
        if (!flag.empty() && it != step.params.end() && !std::get<bool>(it->second)) {
          return o->error(flag, fmt::format("false contradicts {} earlier in the chain", names[j]));
        }
      }
    }
    // Options that apply only with a flag are left out without it (and so are not printed).
    if (!info->only_with.empty() && !std::get<bool>(step.params.at(info->only_with))) {
      for (const auto& key : info->only_with_params) step.params.erase(key);
    }
    s.chain.push_back(std::move(step));
  }
  return Status::Ok();
}

}  // namespace

Status read_strategy(const YAML::Node& entry, const std::string& p, const YamlContext& ctx,
                     StrategyConfig& s) {
  const StrategyVocabulary& vocabulary = strategy_vocabulary();
  s = StrategyConfig{};
  if (entry.IsScalar()) {
    const std::vector<ParamSpec>* specs = vocabulary.strategy_params(entry.Scalar());
    if (specs == nullptr) return unknown_strategy(ctx.locate(entry, p), p, entry.Scalar());
    s.name = entry.Scalar();
    s.label = s.name;
    s.params = defaults_of(*specs);
    return Status::Ok();
  }
  auto r = MapReader::make(entry, p, ctx);
  if (!r.ok()) {
    return Error::at(
        ctx.locate(entry, p), p,
        fmt::format("expected a strategy name or a map with \"name\", got {}", yaml_kind(entry)));
  }
  NTPSIM_RETURN_IF_ERROR(r->string("name", s.name, true));
  if (r->has("chain")) {
    s.label = s.name;
    NTPSIM_RETURN_IF_ERROR(r->string("label", s.label, false));
    NTPSIM_RETURN_IF_ERROR(read_chain(*r, p, ctx, s));
    std::vector<std::string> actions;
    for (const auto& step : s.chain) actions.push_back(step.action);
    const auto resume_specs = vocabulary.chain_resume_params(actions);
    s.params = defaults_of(resume_specs);
    for (const auto& spec : resume_specs) {
      NTPSIM_RETURN_IF_ERROR(read_param(*r, spec, s.params.at(spec.name)));
    }
    if (auto problem = vocabulary.check_resume(s.params)) {
      return r->error(problem->first, problem->second);
    }
    return r->finish();
  }
  const std::vector<ParamSpec>* specs = vocabulary.strategy_params(s.name);
  if (specs == nullptr) return unknown_strategy(r->location("name"), join_path(p, "name"), s.name);
  s.label = s.name;
  NTPSIM_RETURN_IF_ERROR(r->string("label", s.label, false));
  s.params = defaults_of(*specs);
  for (const auto& spec : *specs) {
    NTPSIM_RETURN_IF_ERROR(read_param(*r, spec, s.params.at(spec.name)));
  }
  if (auto problem = vocabulary.check_resume(s.params)) {
    return r->error(problem->first, problem->second);
  }
  return r->finish({"chain"});
}

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
  std::set<std::string> chain_names;
  out.clear();
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node entry = node[i];
    const std::string p = fmt::format("{}[{}]", path, i);
    StrategyConfig s;
    NTPSIM_RETURN_IF_ERROR(read_strategy(entry, p, ctx, s));
    if (!s.chain.empty() && !chain_names.insert(s.name).second) {
      auto r = MapReader::make(entry, p, ctx);
      NTPSIM_CHECK(r.ok());  // read_strategy read it as a map
      return r->error("name", fmt::format("the chain name \"{}\" is used twice", s.name));
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

namespace ntpsim::sim {

Result<StrategyConfig> read_strategy_entry(const YAML::Node& entry, const std::string& path,
                                           const YamlContext& ctx) {
  StrategyConfig s;
  NTPSIM_RETURN_IF_ERROR(scenario_internal::read_strategy(entry, path, ctx, s));
  return s;
}

}  // namespace ntpsim::sim
