// Readers for the sections of a scenario file (internal to the scenario loader).
//
// Each reader takes the section's YAML node, its field path and the origins context, fills the
// section's struct from sim/scenario/scenario.h (absent optional fields keep the struct's
// defaults), and checks everything that the section alone decides: types, units, ranges, choices,
// unknown keys, and within-section consistency (kind shares sum to 1, shape only with a shaped
// distribution, ...). Checks across sections are in loader.cpp.
// Thread safety: pure functions of their arguments.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "models/base/status.h"
#include "models/base/yaml_reader.h"
#include "sim/scenario/scenario.h"

namespace ntpsim::sim::scenario_internal {

// Limits that keep a scenario within what the simulator can represent; larger inputs are refused.
inline constexpr int64_t kMaxGpus = 10'000'000;               // whole cluster
inline constexpr double kMaxHorizonS = 1000.0 * 365 * 86400;  // 1000 years
inline constexpr double kMaxCostS = 365.0 * 86400;  // any single recovery or checkpoint cost
inline constexpr double kShareTolerance = 1e-6;

Status read_cluster(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                    ClusterConfig& out);
Status read_failures(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                     FailureConfig& out);
Status read_checkpoint(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                       CheckpointConfig& out);
Status read_recovery(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                     RecoveryConfig& out);
Status read_replications(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                         ReplicationConfig& out);
Status read_outputs(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                    OutputConfig& out);
// Strategies against sim/strategies/registry.h: unknown names and parameters are refused with the
// nearest valid one; every registered parameter is filled with its default.
// One entry of that list (path: the entry's own, "strategies[2]"); the list adds the checks across
// entries (unique labels and chain names).
Status read_strategy(const YAML::Node& entry, const std::string& path, const YamlContext& ctx,
                     StrategyConfig& out);
Status read_strategies(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                       std::vector<StrategyConfig>& out);

// Reads a duration ("90s", "3d") into seconds, refusing values outside [min_s, max_s] with a
// message in readable units ("must be between 1s and 1000y").
Status read_duration(MapReader& r, std::string_view key, double& out_s, bool required, double min_s,
                     double max_s);

// Reads a fraction ("30%", 0.3), refusing values outside [min, max] with a message in percent.
Status read_fraction(MapReader& r, std::string_view key, double& out, bool required, double min,
                     double max);

// A duration that may also be "auto" (left unset); an absent key keeps `out_s`.
Status read_auto_duration(MapReader& r, std::string_view key, std::optional<double>& out_s,
                          double min_s, double max_s);

// `{reference_gpus: N, exponent: a}` or `none` under `key`; an absent key keeps `out`.
Status read_cost_scaling(MapReader& parent, std::string_view key, CostScaling& out);

// checkpoint.memory, the in-memory snapshots; keys left out keep their value.
Status read_memory_snapshots(const YAML::Node& node, const std::string& path,
                             const YamlContext& ctx, CheckpointConfig::Memory& out);

// Rejects any key of the map `node` not in `valid`, naming the nearest valid key. Readers call it
// first, so a misspelt required key reads "unknown key (did you mean ...)" rather than "missing".
// A non-map node passes (the reader itself reports it).
Status reject_unknown_keys(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                           const std::vector<std::string>& valid);

// "gpu" | "node" | "domain" | "pod" -> Component (REQUIRES: one of these).
Component component_from(const std::string& name);

}  // namespace ntpsim::sim::scenario_internal
