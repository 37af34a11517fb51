#include "sim/metrics/metrics.h"

namespace ntpsim::sim {

const std::array<MetricInfo, kMetricCount>& metric_infos() {
  static const std::array<MetricInfo, kMetricCount> kInfos = {{
      {"goodput", "Goodput", "fraction"},
      {"badput_checkpoint", "Checkpoint", "fraction"},
      {"badput_rollback", "Rollback", "fraction"},
      {"badput_recovery", "Recovery", "fraction"},
      {"badput_stall", "Stall", "fraction"},
      {"badput_degraded", "Degraded", "fraction"},
      {"badput_reshard", "Reshard", "fraction"},
      {"effective_training_time", "Effective training time", "fraction"},
      {"per_gpu_goodput", "Per-GPU goodput", "fraction"},
      {"availability", "Availability", "fraction"},
      {"failed_gpus_mean", "Failed GPUs (mean)", "GPUs"},
      {"failed_gpus_peak", "Failed GPUs (peak)", "GPUs"},
      {"interruptions", "Interruptions", "count"},
      {"energy_mwh", "Energy", "MWh"},
      {"boost_energy_mwh", "Boost energy", "MWh"},
      {"time_to_train_days", "Time to train", "days"},
  }};
  return kInfos;
}

}  // namespace ntpsim::sim
