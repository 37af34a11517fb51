// The resolved scenario as text: YAML for people (`ntpsim check`), JSON for the results file
// (docs/results-schema.md "scenario"), and the scenario hash that identifies it in results.
//
// The YAML form shows every field with defaults filled in and units written out ("3d", "30%",
// "1.97e-05/h"); it loads again as a scenario and resolves to the same text. It holds no absolute
// paths (trace files are shown relative to the scenario's folder), so it is the same on every
// machine. The JSON form uses the struct field names with SI values (seconds, per-second rates,
// fractions). The hash is FNV-1a 64 of the YAML text: "fnv1a64:<16 hex digits>".
// Thread safety: pure functions.
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string>

#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

YAML::Node to_yaml(const Scenario& s);
std::string to_yaml_text(const Scenario& s);
nlohmann::json to_json(const Scenario& s);
// The layout block of to_json (also `ntpsim step --json`): TP, PP, DP, virtual stages and GPUs,
// and Megatron-LM's pipeline split options only where set.
nlohmann::json layout_json(const models::Layout& l);
std::string scenario_hash(const Scenario& s);
// What `ntpsim check` prints: comment lines with the hash and derived facts (GPUs, layout,
// parameters), the recovery profile with each recovery cost's value, plausible range and source
// (recovery_costs.h), then to_yaml_text(s).
std::string check_text(const Scenario& s);

}  // namespace ntpsim::sim
