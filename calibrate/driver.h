// The measurement loops of every ntpcal subcommand, written once over the Backend interface.
//
// Each loop asks the backend for one point at a time and appends its row to the raw file at
// once (RawWriter flushes), so a failure or timeout leaves every completed point on disk. A point
// the backend refuses (gemm_unsupported) or whose failure it reports recoverable (an unsupported
// shape or type, out of memory for that shape) is skipped with a `# skipped: WHAT: REASON` line
// and the loop goes on; any other failure (device lost, illegal address, timeout) stops the loop,
// which returns its error. The same loops run against the
// CUDA backend (ntpcal), the recorded backend and the synthetic backend (tests, examples).
// Plain C++ (compiled into ntpcal). Thread safety: one loop per backend at a time.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "calibrate/backend.h"
#include "calibrate/raw_csv.h"

namespace ntpsim::calibrate {

// Progress lines ("gemm 3/40 bf16 8192x8192x8192: 1.23 ms, 893 TFLOP/s"); may be empty.
using ProgressFn = std::function<void(const std::string&)>;

struct CollectivePlan {
  std::vector<CollectiveKind> kinds;
  std::vector<int64_t> bytes;
  std::vector<int> group_sizes;   // each in [2, backend.max_group_size()]
  std::string fabric = "scale_up";
  // The fabric label of one group size when it depends on the hosts the group spans; empty:
  // `fabric` for every group.
  std::function<std::string(int)> fabric_of_group;
  int warmup = 5;
  int reps = 20;
  int iters = 1;
  bool graph = false;  // each sample's `iters` launches as one captured CUDA graph
};

struct ReshardPlan {
  std::vector<int64_t> bytes_per_rank;
  int tp = 0;                     // in [2, backend.max_group_size()]
  std::vector<int> ks;            // each in [1, tp - 1]
  std::string fabric = "scale_up";
  int warmup = 3;
  int reps = 10;
  int iters = 1;
  bool graph = false;
};

// GEMMs (kind gemm). Shapes the backend cannot run (gemm_unsupported) are skipped with a
// progress line.
Status run_gemms(Backend& b, const std::vector<GemmRequest>& shapes, RawWriter& out,
                 const ProgressFn& progress);

// Power observation (kind power): every shape at the current limit; with `limits_w` non-empty,
// every shape at each limit in turn, restoring the original limit afterwards (also on failure).
Status run_power(Backend& b, const std::vector<GemmRequest>& shapes,
                 const std::vector<double>& limits_w, RawWriter& out, const ProgressFn& progress);

// Collectives (kind collective): every group size x kind x bytes (group size outermost). The
// sizes of each group size are collective_sizes(bytes, g): multiples of 16 * g bytes, as
// nccl-tests measures. Group sizes above the backend's ranks are an error before anything
// runs.
Status run_collectives(Backend& b, const CollectivePlan& plan, RawWriter& out,
                       const ProgressFn& progress);

// The NTP reshard (kind reshard): every k x bytes.
Status run_reshards(Backend& b, const ReshardPlan& plan, RawWriter& out,
                    const ProgressFn& progress);

}  // namespace ntpsim::calibrate
