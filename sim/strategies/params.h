// Typed access to a strategy's parameters (StrategyParams), checked against the registry
// (registry.h). StrategyConfig, the configuration as the scenario names it, is scenario data
// (sim/scenario/vocabulary.h).
//
// `StrategyParams::make` takes the StrategyConfig as the scenario loader produced it (every
// parameter filled) or as a test built it (any subset): missing parameters get the registry's
// default, unknown names and wrongly typed values are bad input naming the strategy and key.
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "models/base/status.h"
#include "sim/scenario/vocabulary.h"

namespace ntpsim::sim {

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
