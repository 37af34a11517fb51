// A hardware profile: every cost-model parameter of one system (DESIGN.md §4).
//
// Spec-derived profiles live in models/profiles/*.yaml with each number's source commented;
// measured profiles come from `ntpsim fit` and record their measurement context. Read by
// `read_hardware` (inline map, file path, or a profile name resolved in search dirs).
// Thread safety: plain values.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "models/base/yaml_reader.h"

namespace ntpsim::models {

// Alpha-beta parameters of one collective at one group size (e.g. fitted by `ntpsim fit`).
struct CollectiveFit {
  double alpha_s = 5e-6;    // per-step latency
  double bus_bw_Bps = 0.0;  // achievable bus bandwidth (nccl-tests definition)

  friend bool operator==(const CollectiveFit&, const CollectiveFit&) = default;
};

// Alpha-beta cost of one collective on one fabric: time = alpha_s * steps + bytes_on_wire / bw.
struct CollectiveParams {
  double alpha_s = 5e-6;    // per-step latency
  double bus_bw_Bps = 0.0;  // achievable bus bandwidth (nccl-tests definition); 0 = fabric's
  // Optional per-group-size values (measured); the collective model interpolates between sizes
  // (linear in log n) and uses alpha_s / bus_bw_Bps outside the measured range.
  std::map<int, CollectiveFit> by_group_size;

  friend bool operator==(const CollectiveParams&, const CollectiveParams&) = default;
};

struct Fabric {
  double bw_per_gpu_Bps = 0.0;  // unidirectional injection bandwidth per GPU
  double efficiency = 0.8;      // achievable share of bw_per_gpu for large messages
  double alpha_s = 5e-6;        // per-step latency
  // SMs a collective's kernels occupy while they run (NCCL: one thread block per channel);
  // a GEMM running beside a collective has the rest. 0 = no contention modelled.
  int comm_sms = 0;
  // Scale-out topology: scale-up domains (nodes) one leaf switch of a rail reaches (0 = one
  // non-blocking switch), and the leaf's downlink / uplink bandwidth ratio (>= 1).
  int domains_per_leaf = 0;
  double oversubscription = 1.0;
  // Optional per-collective overrides ("all_reduce", "all_gather", "reduce_scatter",
  // "all_to_all", "send_recv", "broadcast"), e.g. from calibration.
  std::map<std::string, CollectiveParams> collectives;

  friend bool operator==(const Fabric&, const Fabric&) = default;
};

// One measured GEMM throughput point (from `ntpcal gemm` via `ntpsim fit`).
struct GemmPoint {
  double m = 0, n = 0, k = 0;  // C[m x n] = A[m x k] · B[k x n]
  double flops_per_s = 0.0;    // achieved, dense

  friend bool operator==(const GemmPoint&, const GemmPoint&) = default;
};

// Parameters of the GEMM efficiency model (models/gemm_model.h).
struct GemmParams {
  int sm_count = 132;                 // streaming multiprocessors (one output tile per SM per wave)
  int tile_m = 128;                   // output tile rows of the typical cuBLASLt kernel
  int tile_n = 256;                   // output tile columns
  int tile_k = 64;                    // K step of the main loop
  double overhead_s = 2e-6;           // fixed per-GEMM cost (launch, prologue, epilogue)
  double attention_efficiency = 0.5;  // fused (flash) attention throughput, share of dense peak
  double hbm_efficiency = 0.8;        // achievable share of hbm_bw for streaming kernels
  // Measured table: when non-empty, efficiency is interpolated from it instead of the tile model.
  std::vector<GemmPoint> table;

  friend bool operator==(const GemmParams&, const GemmParams&) = default;
};

// Parameters of the power model beyond the top-level elasticity / ceiling (models/power_model.h).
struct PowerParams {
  double comm_power_fraction = 0.6;  // power during communication-bound phases, share of TDP

  friend bool operator==(const PowerParams&, const PowerParams&) = default;
};

// Parameters of the memory model (models/memory_model.h).
struct MemoryParams {
  double usable_fraction = 0.92;  // share of HBM the framework can allocate
  double reserved_bytes = 3e9;    // CUDA context, NCCL buffers, allocator slack per GPU

  friend bool operator==(const MemoryParams&, const MemoryParams&) = default;
};

// Where a measured profile came from and how well its fit matched (written by `ntpsim fit`).
struct MeasuredInfo {
  std::string context;            // free text: GPUs, driver, CUDA/NCCL versions, host, date
  double gemm_max_rel_error = 0;  // largest relative error of the GEMM fit over its points
  double gemm_r2 = 0;             // R² of the GEMM fit
  double collective_max_rel_error = 0;
  double collective_r2 = 0;
  int points = 0;  // measurements used

  friend bool operator==(const MeasuredInfo&, const MeasuredInfo&) = default;
};

struct HardwareProfile {
  std::string name;                // e.g. "gb200-nvl72"
  std::string source;              // file it was read from, or "inline"
  // Provenance of the numbers: "spec" (datasheet-derived), "measured" (`ntpsim fit` of real
  // measurements), "synthetic" (fitted from generated test data, never a measurement) or "mixed"
  // (fitted from synthetic and measured files together). `ntpsim fit` sets it from what it read.
  std::string origin = "spec";
  // Per part of the profile where it came from, for fitted profiles (keys gemm, scale_up,
  // scale_out, power, other; values as `origin`; "spec" marks parts kept from the base profile).
  std::map<std::string, std::string> field_origins;
  std::string gpu;                 // GPU model, e.g. "B200"
  double peak_bf16_flops = 0.0;    // dense BF16 FLOP/s per GPU
  double peak_fp8_flops = 0.0;     // dense FP8 FLOP/s per GPU
  double hbm_bytes = 0.0;          // HBM capacity per GPU
  double hbm_bw_Bps = 0.0;         // HBM bandwidth per GPU
  double tdp_w = 0.0;              // nominal board power per GPU
  double max_power_w = 0.0;        // highest power a GPU may be boosted to (0 = tdp)
  double power_elasticity = 0.3;   // d ln(perf) / d ln(power) near TDP for compute-bound work
  double max_clock_speedup = 1.0;  // ceiling of perf gain from power (top clock / clock at TDP)
  double idle_power_w = 0.0;       // power of an idle or failed-but-powered GPU
  double gemm_efficiency = 0.75;   // best-shape GEMM efficiency (share of peak)
  int gpus_per_domain = 0;         // scale-up domain size the profile describes (0 = any)
  Fabric scale_up;                 // NVLink / NVSwitch
  Fabric scale_out;                // InfiniBand / RoCE, per GPU
  double storage_write_Bps = 0.0;  // checkpoint write bandwidth, whole cluster
  double storage_read_Bps = 0.0;   // checkpoint read bandwidth, whole cluster
  GemmParams gemm;                 // `gemm:` section
  PowerParams power;               // `power:` section
  MemoryParams memory;             // `memory:` section
  MeasuredInfo measured;           // `measured:` section (fitted profiles: origin != "spec")

  double peak_flops(bool fp8) const { return fp8 ? peak_fp8_flops : peak_bf16_flops; }

  // Member by member (a cache compares whole values to reuse what was built from them).
  friend bool operator==(const HardwareProfile&, const HardwareProfile&) = default;
};

// Reads `hardware:` — an inline map of the keys below, a string naming a YAML file (a path,
// absolute or relative to the file holding `path`), or a profile name resolved as
// <dir>/<name>.yaml in `search_dirs` (first match wins). Unknown keys are errors with the nearest
// valid key; bad units and out-of-range values are errors naming file:line:col and the field.
//   name, origin (spec|measured|synthetic|mixed), field_origins: {gemm, scale_up, scale_out, power,
//   other: origin values}, gpu, peak_bf16_tflops, peak_fp8_tflops, hbm, hbm_bw, tdp,
//   max_power, power_elasticity, max_clock_speedup, idle_power, gemm_efficiency, gpus_per_domain,
//   scale_up / scale_out: {bw_per_gpu, efficiency, alpha,
//                          collectives: {all_reduce: {alpha, bus_bw, group_sizes: {N: {alpha,
//                          bus_bw}}}, ...}},
//   storage: {write, read}, gemm: {sm_count, tile_m, tile_n, tile_k, overhead,
//   attention_efficiency,
//         hbm_efficiency, table: [{m, n, k, tflops}]},
//   power: {comm_power_fraction}, memory: {usable_fraction, reserved},
//   measured: {context, gemm_max_rel_error, gemm_r2, collective_max_rel_error, collective_r2,
//   points}
Result<HardwareProfile> read_hardware(const YAML::Node& node, const std::string& path,
                                      const YamlContext& ctx,
                                      const std::vector<std::string>& search_dirs);
// The resolved profile as YAML with units; read_hardware(to_yaml(h)) reproduces h (less `source`).
YAML::Node to_yaml(const HardwareProfile& h);

// The warning a run or step time computed with `h` must carry when its numbers are not what
// the profile's origin suggests: "" for spec and measured profiles; for synthetic and mixed
// ones a sentence naming the profile and the parts that are not measured.
std::string origin_warning(const HardwareProfile& h);

// Collective names accepted under `collectives:`.
const std::vector<std::string>& collective_names();

}  // namespace ntpsim::models
