// A strategy's configuration as the scenario names it (StrategyConfig), and typed access to its
// parameters checked against the registry (StrategyParams, registry.h).
//
// `StrategyParams::make` takes the StrategyConfig as the scenario loader produced it (every
// parameter filled) or as a test built it (any subset): missing parameters get the registry's
// default, unknown names and wrongly typed values are bad input naming the strategy and key.
// This header depends on nothing above models/base, so the scenario language can hold
// StrategyConfig values without the strategies depending on the scenario.
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "models/base/status.h"

namespace ntpsim::sim {

// A strategy parameter value after validation: bool, integer, real (SI units), or text.
using ParamValue = std::variant<bool, int64_t, double, std::string>;

// One action of a policy chain (chain.cpp): its name and its options (defaults filled).
struct ChainStep {
  std::string action;                        // a chain action (chain_actions(), registry.h)
  std::map<std::string, ParamValue> params;  // the action's options
  bool operator==(const ChainStep&) const = default;
};

struct StrategyConfig {
  std::string name;                          // registered strategy name, or a chain's own name
  std::string label;                         // display name (defaults to name)
  // Every registered parameter, defaults filled; for a chain its resume parameters only.
  std::map<std::string, ParamValue> params;
  // Non-empty: a user's policy chain named `name` (not a registered strategy).
  std::vector<ChainStep> chain;
};

class StrategyParams {
 public:
  static Result<StrategyParams> make(const StrategyConfig& cfg);

  // REQUIRES: the parameter is registered for this strategy with the matching kind.
  bool flag(const std::string& key) const;
  int64_t integer(const std::string& key) const;
  double number(const std::string& key) const;  // fractions, durations (s), numbers
  const std::string& choice(const std::string& key) const;

 private:
  std::map<std::string, ParamValue> values_;
};

}  // namespace ntpsim::sim
