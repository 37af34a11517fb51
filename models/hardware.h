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

// Alpha-beta cost of one collective on one fabric: time = alpha_s * steps + bytes_on_wire / bw.
struct CollectiveParams {
  double alpha_s = 5e-6;          // per-step latency
  double bus_bw_Bps = 0.0;        // achievable bus bandwidth (nccl-tests definition)
};

struct Fabric {
  double bw_per_gpu_Bps = 0.0;    // unidirectional injection bandwidth per GPU
  double efficiency = 0.8;        // achievable share of bw_per_gpu for large messages
  double alpha_s = 5e-6;          // per-step latency
  // Optional per-collective overrides ("all_reduce", "all_gather", "reduce_scatter",
  // "all_to_all", "send_recv", "broadcast"), e.g. from calibration.
  std::map<std::string, CollectiveParams> collectives;
};

struct HardwareProfile {
  std::string name;                 // e.g. "gb200-nvl72"
  std::string source;               // file it was read from, or "inline"
  std::string origin = "spec";      // "spec" (datasheet-derived) or "measured" (ntpsim fit)
  std::string gpu;                  // GPU model, e.g. "B200"
  double peak_bf16_flops = 0.0;     // dense BF16 FLOP/s per GPU
  double peak_fp8_flops = 0.0;      // dense FP8 FLOP/s per GPU
  double hbm_bytes = 0.0;           // HBM capacity per GPU
  double hbm_bw_Bps = 0.0;          // HBM bandwidth per GPU
  double tdp_w = 0.0;               // nominal board power per GPU
  double max_power_w = 0.0;         // highest power a GPU may be boosted to (0 = tdp)
  double power_elasticity = 0.3;    // d ln(perf) / d ln(power) near TDP for compute-bound work
  double max_clock_speedup = 1.0;   // ceiling of perf gain from power (top clock / clock at TDP)
  double idle_power_w = 0.0;        // power of an idle or failed-but-powered GPU
  double gemm_efficiency = 0.75;    // best-shape GEMM efficiency (share of peak)
  int gpus_per_domain = 0;          // scale-up domain size the profile describes (0 = any)
  Fabric scale_up;                  // NVLink / NVSwitch
  Fabric scale_out;                 // InfiniBand / RoCE, per GPU
  double storage_write_Bps = 0.0;   // checkpoint write bandwidth, whole cluster
  double storage_read_Bps = 0.0;    // checkpoint read bandwidth, whole cluster

  double peak_flops(bool fp8) const { return fp8 ? peak_fp8_flops : peak_bf16_flops; }
};

Result<HardwareProfile> read_hardware(const YAML::Node& node, const std::string& path,
                                      const YamlContext& ctx,
                                      const std::vector<std::string>& search_dirs);
YAML::Node to_yaml(const HardwareProfile& h);

}  // namespace ntpsim::models
