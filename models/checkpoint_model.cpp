#include "models/checkpoint_model.h"

#include <algorithm>
#include <limits>

#include "models/base/check.h"

namespace ntpsim::models {

CheckpointCost checkpoint_cost(const Workload& w, const Layout& l, const HardwareProfile& h) {
  CheckpointCost c;
  c.bytes = kCheckpointBytesPerParam * w.parameters();
  const double inf = std::numeric_limits<double>::infinity();
  // All GPUs write their optimizer shard (distributed optimizer), each over its own NIC.
  const double injection_Bps =
      static_cast<double>(l.gpus()) * h.scale_out.bw_per_gpu_Bps * h.scale_out.efficiency;
  const double write_Bps =
      std::min(h.storage_write_Bps > 0 ? h.storage_write_Bps : inf, injection_Bps);
  const double read_Bps =
      std::min(h.storage_read_Bps > 0 ? h.storage_read_Bps : inf, injection_Bps);
  NTPSIM_CHECK(write_Bps > 0 && read_Bps > 0 && write_Bps < inf && read_Bps < inf);
  c.write_s = c.bytes / write_Bps;
  c.restore_s = c.bytes / read_Bps;
  return c;
}

}  // namespace ntpsim::models
