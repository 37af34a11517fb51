#include "sim/strategies/params.h"

#include <fmt/format.h>

#include "models/base/check.h"
#include "models/base/units.h"
#include "sim/strategies/registry.h"

namespace ntpsim::sim {
namespace {

// The registry's default text as a typed value.
ParamValue default_value(const ParamSpec& p) {
  switch (p.kind) {
    case ParamKind::kBool: return p.default_text == "true";
    case ParamKind::kInt: return static_cast<int64_t>(std::stoll(p.default_text));
    case ParamKind::kFraction: {
      auto f = units::parse_fraction(p.default_text);
      NTPSIM_CHECK(f.ok());
      return *f;
    }
    case ParamKind::kDuration: {
      auto d = units::parse_duration_s(p.default_text);
      NTPSIM_CHECK(d.ok());
      return *d;
    }
    case ParamKind::kNumber: {
      auto n = units::parse_number(p.default_text);
      NTPSIM_CHECK(n.ok());
      return *n;
    }
    case ParamKind::kChoice: return p.default_text;
  }
  return p.default_text;
}

bool kind_matches(ParamKind k, const ParamValue& v) {
  switch (k) {
    case ParamKind::kBool: return std::holds_alternative<bool>(v);
    case ParamKind::kInt: return std::holds_alternative<int64_t>(v);
    case ParamKind::kFraction:
    case ParamKind::kDuration:
    case ParamKind::kNumber:
      return std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v);
    case ParamKind::kChoice: return std::holds_alternative<std::string>(v);
  }
  return false;
}

}  // namespace

Result<StrategyParams> StrategyParams::make(const StrategyConfig& cfg) {
  const StrategyInfo* info = find_strategy(cfg.name);
  if (info == nullptr) {
    return Error::bad_input(fmt::format("strategies: unknown strategy '{}'", cfg.name));
  }
  StrategyParams out;
  for (const auto& [key, value] : cfg.params) {
    const ParamSpec* spec = nullptr;
    for (const auto& p : info->params) {
      if (p.name == key) spec = &p;
    }
    if (spec == nullptr) {
      return Error::bad_input(
          fmt::format("strategies.{}: unknown parameter '{}'", cfg.name, key));
    }
    if (!kind_matches(spec->kind, value)) {
      return Error::bad_input(
          fmt::format("strategies.{}.{}: wrong value type", cfg.name, key));
    }
    if (spec->kind == ParamKind::kChoice) {
      const auto& text = std::get<std::string>(value);
      bool found = false;
      for (const auto& c : spec->choices) found = found || c == text;
      if (!found) {
        return Error::bad_input(
            fmt::format("strategies.{}.{}: '{}' is not one of the choices", cfg.name, key, text));
      }
    }
    out.values_[key] = value;
  }
  for (const auto& p : info->params) {
    if (!out.values_.count(p.name)) out.values_[p.name] = default_value(p);
  }
  return out;
}

bool StrategyParams::flag(const std::string& key) const {
  auto it = values_.find(key);
  NTPSIM_CHECK_MSG(it != values_.end(), key.c_str());
  return std::get<bool>(it->second);
}

int64_t StrategyParams::integer(const std::string& key) const {
  auto it = values_.find(key);
  NTPSIM_CHECK_MSG(it != values_.end(), key.c_str());
  return std::get<int64_t>(it->second);
}

double StrategyParams::number(const std::string& key) const {
  auto it = values_.find(key);
  NTPSIM_CHECK_MSG(it != values_.end(), key.c_str());
  if (const auto* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  return std::get<double>(it->second);
}

const std::string& StrategyParams::choice(const std::string& key) const {
  auto it = values_.find(key);
  NTPSIM_CHECK_MSG(it != values_.end(), key.c_str());
  return std::get<std::string>(it->second);
}

}  // namespace ntpsim::sim
