// The registry of recovery strategies (DESIGN.md §3.4, STYLE.md §6).
//
// Every strategy is registered by name with its documented parameters. The registry feeds YAML
// validation (scenario loader), `ntpsim strategies`, and the engine's factory. It is a constant
// table built on first use; nothing registers at run time.
// Thread safety: read-only after first use (function-local static).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

enum class ParamKind { kBool, kInt, kFraction, kDuration, kChoice, kNumber };

struct ParamSpec {
  std::string name;         // YAML key
  ParamKind kind;
  std::string meaning;      // one line for `ntpsim strategies` and docs
  std::string unit;         // "", "GPUs", "fraction of TDP", ...
  std::string default_text; // as a user would write it in YAML
  double min = 0;           // numeric kinds: inclusive range (in SI units / fractions)
  double max = 0;
  std::vector<std::string> choices;  // kChoice
};

class Strategy;  // sim/strategies/strategy.h

struct StrategyInfo {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
};

const std::vector<StrategyInfo>& strategy_registry();
const StrategyInfo* find_strategy(const std::string& name);

}  // namespace ntpsim::sim
