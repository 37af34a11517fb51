// The scenario field table (internal to the scenario reader and printers; README.md, "Adding a
// field").
//
// Each section made of plain fields (cluster, checkpoint, recovery, the adaptive map of
// replications, outputs, failures.trace, a failure process's lemon and burst) is one table of rows
// in reading order. A row is one YAML key: how it is read (unit parser, range, required or optional
// with the struct's default), how it is printed in the resolved YAML (the exact form that reads
// back to the same value) and in the JSON (SI units; a duration's key gains "_s"). The section
// readers (sections.cpp), both printers (printer.cpp) and the recovery-cost table
// (recovery_costs.cpp, through `number`) walk these tables, so a plain field is its struct member
// and its row.
//
// Rows are made by the builders below (integer, duration, fraction, number, boolean, text,
// choice, enumeration, auto_duration, cost_scaling); a field that needs more (checkpoint.interval,
// checkpoint.memory, failures.trace.file) is a `custom` row whose three functions are written by
// hand, in the table at its place, so the reading and printing order stays the table's.
// Thread safety: the tables are immutable after their first use.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/base/status.h"
#include "models/base/yaml_reader.h"
#include "sim/scenario/scenario.h"

namespace ntpsim::sim::scenario_internal {

// What a printer needs beyond the section itself.
struct PrintContext {
  std::string scenario_file;  // Scenario::file: paths print relative to its folder
};

// When the resolved YAML shows a field (the JSON always does).
enum class Shown {
  kAlways,
  kIfPositive,  // a number > 0 (0 means "unset")
  kIfNonEmpty,  // a string that is not empty
};

template <class S>
struct Field {
  std::string key;  // YAML key
  // Reads the field from the section's map into `s`; an absent optional field keeps its value.
  std::function<Status(MapReader& r, S& s)> read;
  // Adds the field to the section's resolved YAML map (or nothing, per `Shown`).
  std::function<void(const S& s, YAML::Node& map, const PrintContext& ctx)> yaml;
  // Adds the field's key(s) to the section's JSON object.
  std::function<void(const S& s, nlohmann::json& object, const PrintContext& ctx)> json;
  // The double behind a duration, fraction or number field (nullptr otherwise).
  double S::*number = nullptr;
};

template <class S>
using FieldTable = std::vector<Field<S>>;

// The tables, in reading (and YAML printing) order. fields.cpp defines them.
const FieldTable<ClusterConfig>& cluster_fields();
const FieldTable<CheckpointConfig>& checkpoint_fields();
const FieldTable<RecoveryConfig>& recovery_fields();
const FieldTable<ReplicationConfig>& replication_fields();  // the adaptive map form
const FieldTable<OutputConfig>& output_fields();
const FieldTable<TraceConfig>& trace_fields();
// The `lemon` and `burst` maps of a failure process (each all-or-nothing: every key required
// when the map is given). Their JSON keys are flat in the process, prefixed "lemon_"/"burst_".
const FieldTable<FailureProcess>& lemon_fields();
const FieldTable<FailureProcess>& burst_fields();
// The `deferred_repairs` map of a failure process (both keys required when it is given); JSON
// keys flat in the process, prefixed "deferred_", only when the share is positive.
const FieldTable<FailureProcess>& deferred_repair_fields();
// The `partner_delays` map of a failure process (all three keys required when it is given); JSON
// keys flat in the process, prefixed "partner_delay_", only when it is given.
const FieldTable<FailureProcess>& partner_delay_fields();
// The `shared_repairs` map of a failure process (both keys required when it is given); JSON keys
// flat in the process, prefixed "shared_repair_", only when the probability is positive.
const FieldTable<FailureProcess>& shared_repair_fields();

// Reads every row of `table` from `r`, in order; stops at the first error.
template <class S>
Status read_fields(MapReader& r, const FieldTable<S>& table, S& out) {
  for (const auto& f : table) {
    NTPSIM_RETURN_IF_ERROR(f.read(r, out));
  }
  return Status::Ok();
}

// The section's keys, in table order (the valid keys of reject_unknown_keys).
template <class S>
std::vector<std::string> field_keys(const FieldTable<S>& table) {
  std::vector<std::string> keys;
  for (const auto& f : table) keys.push_back(f.key);
  return keys;
}

// The section's resolved YAML map and JSON object.
template <class S>
YAML::Node fields_yaml(const FieldTable<S>& table, const S& s, const PrintContext& ctx = {}) {
  YAML::Node map(YAML::NodeType::Map);
  for (const auto& f : table) f.yaml(s, map, ctx);
  return map;
}

template <class S>
nlohmann::json fields_json(const FieldTable<S>& table, const S& s, const PrintContext& ctx = {}) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& f : table) f.json(s, object, ctx);
  return object;
}

// The row of `key`, or nullptr.
template <class S>
const Field<S>* find_field(const FieldTable<S>& table, std::string_view key) {
  for (const auto& f : table) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

}  // namespace ntpsim::sim::scenario_internal
