// Per-replication metrics of one strategy run (DESIGN.md §3.5) and their names.
//
// A replication yields one value per Metric; the keys, labels and units below are the results
// JSON/CSV contract (docs/results-schema.md) and its display order. Badput parts are fractions of
// the elapsed time at the ideal rate and sum with goodput to 1.
// Thread safety: plain values and a constant table.
#pragma once

#include <array>
#include <cstddef>

namespace ntpsim::sim {

enum class Metric : int {
  kGoodput,
  kBadputCheckpoint,
  kBadputRollback,
  kBadputRecovery,
  kBadputStall,
  kBadputDegraded,
  kBadputReshard,
  // Meta's effective training time: the share of the elapsed wall time spent running on work
  // that is kept (not recovering, stalled, in a blocking checkpoint pause, or computing work a
  // rollback later discards), at whatever pace the job ran. Unlike goodput it does not count
  // slower running (reduced TP, a background checkpoint write) as lost.
  kEffectiveTrainingTime,
  kPerGpuGoodput,
  kAvailability,
  kFailedGpusMean,
  kFailedGpusPeak,
  kInterruptions,
  kEnergyMwh,
  kBoostEnergyMwh,
  kTimeToTrainDays,  // only meaningful when the scenario has a token budget
};
inline constexpr size_t kMetricCount = 16;

struct MetricInfo {
  const char* key;    // JSON/CSV key
  const char* label;  // table/report label
  const char* unit;   // "fraction", "GPUs", "count", "MWh", "days"
};

const std::array<MetricInfo, kMetricCount>& metric_infos();

using ReplicationMetrics = std::array<double, kMetricCount>;

inline double& at(ReplicationMetrics& m, Metric k) { return m[static_cast<size_t>(k)]; }
inline double at(const ReplicationMetrics& m, Metric k) { return m[static_cast<size_t>(k)]; }

}  // namespace ntpsim::sim
