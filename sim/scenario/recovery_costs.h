// The one table of recovery-cost and checkpoint parameters: for each, the value of each named
// recovery profile, a plausible range and its published source (../shared/docs/REFERENCES.md,
// "Recovery costs"). `ntpsim check` prints it; the sensitivity analysis varies each field over
// [low, high].
//
// Profiles: "conservative" keeps the pessimistic assumptions ntpsim has always shipped (detection
// 2 min, restart 10 min, restore 5 min, reconfigure 1 min, spare swap 5 min, a 60 s blocking
// write); "sourced" takes each value from a published measurement. A scenario picks one with
// `recovery: {profile: NAME}`; keys it sets explicitly override the profile's values.
// Thread safety: pure functions over constant data.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

struct RecoveryCostRange {
  std::string_view field;  // scenario field path, e.g. "recovery.restart"
  double value;            // default: the "sourced" profile's value (SI: seconds or fraction)
  double low;              // plausible range, inclusive, same unit
  double high;
  std::string_view unit;    // "s", "fraction" or "exponent" (a plain number)
  double conservative;      // the "conservative" profile's value
  std::string_view source;  // paper, table, scale; or why nothing is published
};

// One row per field, in scenario order (checkpoint.*, then recovery.*). low <= value <= high and
// low <= conservative <= high hold for every row (tested).
std::span<const RecoveryCostRange> recovery_cost_ranges();

// A cost given at its scaling's reference size, at a job of `job_gpus` GPUs: value x (job_gpus /
// reference_gpus)^exponent; `value_s` itself when the scaling is unset.
double scaled_cost_s(double value_s, const CostScaling& scaling, double job_gpus);

// The job size the sourced profile's restart is given at (recovery.restart_scaling).
inline constexpr double kSourcedRestartReferenceGpus = 16384;

// The profile a scenario file starts from when it names none (load_scenario). Code that builds a
// Scenario by hand gets the struct defaults, which are the "conservative" profile.
inline constexpr std::string_view kDefaultRecoveryProfile = "sourced";

// The profile names, in the order the scenario reader lists them.
inline constexpr std::string_view kRecoveryProfiles[] = {"conservative", "sourced"};

// Sets every field the table names to the profile's value, and the restart scaling's reference
// size (sourced: kSourcedRestartReferenceGpus; conservative: none). False for an unknown name
// (nothing changed). The struct defaults are the "conservative" profile.
bool apply_recovery_profile(std::string_view profile, CheckpointConfig& checkpoint,
                            RecoveryConfig& recovery);

// `--set` assignments that give a scenario the profile's value of every field the table names
// and its restart scaling, whatever the file says (empty for an unknown name): how a study
// compares profiles on one scenario.
std::vector<std::string> recovery_profile_overrides(std::string_view profile);

// The profile whose values the scenario's table fields all have ("sourced" first, then
// "conservative"), or "custom" when they match neither (a key overrides a profile's value).
std::string recovery_profile_of(const Scenario& s);

// The field's current value in a scenario (the table's `field` path), or nullopt for a path the
// table does not hold.
std::optional<double> recovery_cost_value(const Scenario& s, std::string_view field);

// One line for a results table: the profile and each cost as the job of `job_gpus` GPUs pays it,
// "*" on the costs whose value no publication measures (their source says so), e.g.
// "sourced profile: detection 1min*, restart 4.85min + restore 2.15min at 28672 GPUs, ...".
std::string recovery_cost_summary(const Scenario& s, double job_gpus);

// "restart 5min [30s-20min], source: ..." lines, one per row, with the scenario's value; a scaled
// cost adds its value at the job's size.
std::string recovery_cost_lines(const Scenario& s);

}  // namespace ntpsim::sim
