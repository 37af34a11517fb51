// The measurement backend interface of the calibration harness (DESIGN.md §5, STYLE.md §10).
//
// A `Backend` answers one measurement request at a time: a GEMM shape (time samples reduced to
// median and spread, with power and SM-clock samples taken while it ran), a collective (kind,
// bytes, group size), or the NTP gradient reshard (bytes per rank, TP degree T, k extra ranks).
// Implementations:
//   - the CUDA/cuBLASLt/NCCL/NVML backend inside `ntpcal` (calibrate/ntpcal/, GPU machines only);
//   - `RecordedBackend` (recorded_backend.h), which replays raw CSV files, and `SyntheticBackend`
//     (synthetic.h), which draws from known model parameters with seeded noise; both CPU-only, so
//     measure -> fit -> profile -> step time is tested without a GPU.
// The measurement loops (driver.h) and the raw CSV writer (raw_csv.h) only see this interface.
//
// This header and everything `ntpcal` compiles use plain C++20 only (no yaml-cpp, fmt or Boost):
// the GPU machine has only the CUDA toolkit. Only the inline parts of models/base/status.h are
// used there (Result, Status, Error::runtime/bad_input).
// Thread safety: a Backend is used by one thread at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/base/status.h"

namespace ntpsim::calibrate {

// bf16; fp8: e4m3 with per-tensor fp32 scales (Hopper's recipe); mxfp8: e4m3 with one UE8M0
// (power-of-two) scale per 32 elements along k (OCP microscaling, Blackwell's recipe in
// Transformer Engine; cuBLASLt's VEC32_UE8M0 scale mode, compute capability 10.0+).
enum class GemmDType { kBF16, kFP8, kMXFP8 };
// The operand layout in cuBLAS's column-major terms, D[m x n] = op(A)[m x k] * op(B)[k x n]: the
// first letter is op(A), the second op(B) (T transposed, N not). Transformer Engine runs a
// linear layer's forward GEMM as TN, its data gradient as NN and its weight gradient as NT.
enum class GemmLayout { kTN, kNN, kNT };
enum class CollectiveKind { kAllReduce, kAllGather, kReduceScatter, kAllToAll, kSendRecv };

const char* to_string(GemmDType d);
const char* to_string(GemmLayout l);
const char* to_string(CollectiveKind k);
// Parses "bf16"/"fp8"/"mxfp8", "TN"/"NN"/"NT" and
// "all_reduce"/"all_gather"/"reduce_scatter"/"all_to_all"/"send_recv".
bool parse_dtype(const std::string& text, GemmDType& out);
bool parse_layout(const std::string& text, GemmLayout& out);
bool parse_collective(const std::string& text, CollectiveKind& out);
// True for the 8-bit types (fp8, mxfp8).
inline bool is_fp8(GemmDType d) {
  return d != GemmDType::kBF16;
}
const std::vector<CollectiveKind>& all_collectives();

// nccl-tests bus-bandwidth factor for `n` ranks (doc/PERFORMANCE.md): all-reduce 2(n-1)/n;
// all-gather, reduce-scatter, all-to-all (n-1)/n; send/recv 1. REQUIRES: n >= 1.
double bus_factor(CollectiveKind kind, int n);
// The message sizes a collective sweep of `group_size` ranks measures for the requested sizes:
// each rounded down to a multiple of 16 * group_size bytes (every rank's slice a whole number of
// 16-byte units, equal across ranks, as nccl-tests sizes its buffers), in the given order, those
// that round to 0 or to the previous size dropped. REQUIRES: group_size >= 1.
std::vector<int64_t> collective_sizes(const std::vector<int64_t>& requested, int group_size);

// Latency steps of the ring algorithm (NCCL src/graph/tuning.cc): all-reduce 2(n-1); all-gather,
// reduce-scatter, all-to-all n-1; send/recv 1. At least 1.
int latency_steps(CollectiveKind kind, int n);

// Median and spread of repeated timings (seconds).
struct TimeStats {
  int reps = 0;
  double median_s = 0.0;
  double p10_s = 0.0;
  double p90_s = 0.0;
  double min_s = 0.0;
  double max_s = 0.0;
  double mean_s = 0.0;
};
// REQUIRES: !samples.empty(); every sample finite and >= 0. Percentiles by linear interpolation.
TimeStats summarize(std::vector<double> samples);

// NVML samples taken while one measurement ran; samples == 0 means none (NVML unavailable).
struct PowerStats {
  int samples = 0;
  double mean_w = 0.0;
  double max_w = 0.0;
  double sm_clock_mean_mhz = 0.0;
  double temp_max_c = 0.0;                     // hottest GPU temperature seen (0 = not read)
  unsigned long long clock_event_reasons = 0;  // NVML clock-event reasons seen (OR of the samples)
  bool energy_based = false;                   // mean_w from the energy counter, not power samples
};

struct GemmRequest {
  GemmDType dtype = GemmDType::kBF16;
  GemmLayout layout = GemmLayout::kTN;
  int64_t m = 0, n = 0, k = 0;   // C[m,n] = A[m,k] * B[k,n]
  std::string label;             // where the shape comes from, e.g. "qkv.fwd tp=70"
  int warmup = 5;
  int reps = 30;
  // Keep repeating until at least this long has run (power needs seconds to settle); 0 = reps only.
  double min_seconds = 0.0;
  // Time each sample's batch of launches as one captured CUDA graph (no per-launch host cost).
  bool graph = false;
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
};
struct GemmMeasurement {
  TimeStats time;
  PowerStats power;
};

// Whether a GPU of compute capability `cc` (major * 10 + minor) with cuBLASLt library version
// `cublaslt_version` (cublasLtGetVersion(), e.g. 130100) can run this GEMM: "" when it can, else
// why not. `built_with_block_scaling`: the toolkit ntpcal was compiled with knows the mxfp8 scale
// modes (cuBLAS 12.8+). fp8 needs cc 8.9+, m, n, k multiples of 16 and (before cc 10.0) the TN
// layout; mxfp8 needs cc 10.0+, cuBLASLt 12.8+, m and n multiples of 16 and k a multiple of 32
// (one scale per 32 elements along k).
std::string gemm_support(const GemmRequest& r, int cc, int cublaslt_version,
                         bool built_with_block_scaling);

struct CollectiveRequest {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  int64_t bytes = 0;        // message size as nccl-tests counts it (the full buffer)
  int group_size = 2;       // ranks in the communicator, any value >= 2
  int warmup = 5;
  int reps = 20;  // timed samples
  int iters = 1;  // back-to-back launches per sample; a sample is their mean time
  bool graph = false;  // the `iters` launches replayed as one captured CUDA graph (nccl-tests -G)
};
struct CollectiveMeasurement {
  TimeStats time;
};

// The NTP reshard (Megatron-LM nonuniform_tp): a healthy TP group of `tp` ranks whose ranks
// tp-k..tp-1 ("extra") each move their `bytes_per_rank` gradient shard, split evenly, to the tp-k
// core ranks before the DP reduction, and the same data back after it. Time covers both moves.
struct ReshardRequest {
  int64_t bytes_per_rank = 0;
  int tp = 2;
  int k = 1;                // 1 <= k < tp
  int warmup = 3;
  int reps = 10;  // timed samples
  int iters = 1;  // back-to-back reshards per sample; a sample is their mean time
  bool graph = false;  // the `iters` reshards replayed as one captured CUDA graph
  // Bytes the busiest GPU sends or receives in one direction of one move:
  // max(bytes, k * bytes / (tp - k)).
  double busiest_bytes() const;
};
struct ReshardMeasurement {
  TimeStats time;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Ranks available to collectives (1 when the backend has a single GPU).
  virtual int max_group_size() const = 0;
  // Why this GEMM cannot run here ("" when it can): e.g. fp8 on a GPU without fp8 tensor cores,
  // or fp8 dimensions that are not multiples of 16. The loops skip such shapes with a message.
  virtual std::string gemm_unsupported(const GemmRequest& r) const = 0;
  // After a gemm, collective or reshard call failed: true when the failure concerned only that
  // point (a shape or type the library refuses, out of memory for its buffers) and the backend
  // is fit for the next point; false when the run cannot go on (device lost, illegal address,
  // a timeout, a signal). The measurement loops skip recoverable points with a recorded reason.
  virtual bool failure_recoverable() const { return false; }
  // Current power limit of the measured GPU in watts (0 when unknown): the limit that
  // set_power_limit_w changes, and the one a sweep restores.
  virtual double power_limit_w() const = 0;
  // The limit the GPU enforces now (W; 0 when unknown): power_limit_w, or lower where another
  // cap holds the GPU below it (NVML's enforced limit). Measured rows are labelled with it, since
  // it is the limit the power and clock behaviour answered to.
  virtual double enforced_power_limit_w() const { return power_limit_w(); }

  virtual Result<GemmMeasurement> gemm(const GemmRequest& r) = 0;
  virtual Result<CollectiveMeasurement> collective(const CollectiveRequest& r) = 0;
  virtual Result<ReshardMeasurement> reshard(const ReshardRequest& r) = 0;
  // Sets the power limit (only the `power --set-power-limits` sweep calls this). Returns the
  // limit the device reports afterwards.
  virtual Result<double> set_power_limit_w(double watts) = 0;
};

}  // namespace ntpsim::calibrate
