#include "models/checkpoint_model.h"

#include <algorithm>
#include <limits>

#include "models/base/check.h"
#include "models/memory_model.h"

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

Result<GpuStateCost> gpu_state_cost(const Workload& w, const Layout& l, const HardwareProfile& h) {
  const double Bps = h.scale_out.bw_per_gpu_Bps * h.scale_out.efficiency;
  if (!(Bps > 0)) {
    return Error::bad_input(
        "hardware.scale_out: a positive bandwidth is needed to derive the in-memory restore and "
        "in-place state transfer times (or set checkpoint.memory.restore and "
        "recovery.state_transfer)");
  }
  const MemoryBreakdown m = memory_at(w, l, h, l.tp);
  GpuStateCost c;
  c.bytes = m.weights_bytes + m.optimizer_bytes;
  c.transfer_s = c.bytes / Bps;
  return c;
}

}  // namespace ntpsim::models
