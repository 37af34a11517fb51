// One entry of a scenario's `strategies:` list on its own, for files other than a scenario that
// name strategies the way a scenario does (a plan's `search.strategies`).
//
// read_strategy_entry reads it exactly as load_scenario reads each entry (a registered name, a
// map of a registered strategy's parameters, or a policy chain), with the same file:line:column
// errors; strategy_entry_yaml writes a read entry back as one line of flow YAML that reads again
// as the same StrategyConfig, so it can travel as `--set 'strategies=[<entry>]'`.
// Thread safety: pure functions.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "models/base/status.h"
#include "models/base/yaml_reader.h"
#include "sim/scenario/vocabulary.h"

namespace ntpsim::sim {

Result<StrategyConfig> read_strategy_entry(const YAML::Node& entry, const std::string& path,
                                           const YamlContext& ctx);
std::string strategy_entry_yaml(const StrategyConfig& s);

}  // namespace ntpsim::sim
