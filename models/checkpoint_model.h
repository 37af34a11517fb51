// Checkpoint size and write/restore times (DESIGN.md §4, checkpoint model).
//
// A Megatron checkpoint holds bf16 weights (2 B/param) plus fp32 master weights and Adam m, v
// (12 B/param): 14 B per parameter (REFERENCES: 14-16 B/param; Llama 3 405B about 6 TB).
// Writing is limited by the storage system (profile storage.write/read, whole cluster) and by
// the writers' network injection (every GPU of one DP replica writes its shard — with the
// distributed optimizer all GPUs write — over its scale-out link). Pure; thread-safe.
#pragma once

#include "models/base/status.h"
#include "models/hardware.h"
#include "models/workload.h"

namespace ntpsim::models {

struct CheckpointCost {
  double bytes = 0;      // checkpoint size
  double write_s = 0;    // blocking time to write one checkpoint
  double restore_s = 0;  // time to read it back on restart
};

inline constexpr double kCheckpointBytesPerParam = 14.0;

// One GPU's training state as a restore or a state transfer moves it: the bf16 weights of its
// shard and its distributed-optimizer shard (the memory model's busiest GPU at the nominal TP),
// and the time to move it over the GPU's own scale-out link at the fabric's efficiency (every
// GPU moves its own state at once, so this is the whole job's time).
struct GpuStateCost {
  double bytes = 0;
  double transfer_s = 0;
};
// Errors (bad input): no scale-out bandwidth in the profile.
Result<GpuStateCost> gpu_state_cost(const Workload& w, const Layout& l, const HardwareProfile& h);

// REQUIRES: the profile has storage bandwidths > 0 or scale-out bandwidth > 0.
CheckpointCost checkpoint_cost(const Workload& w, const Layout& l, const HardwareProfile& h);

}  // namespace ntpsim::models
