// A backend that draws measurements from known cost-model parameters with seeded noise.
//
// It stands in for a GPU in tests and produces the shipped example under calibrate/recorded/
// (every file it writes says `synthetic: true` in its context: these are never measurements).
// Fitting its output must give back `SyntheticTruth` within the tolerances the tests state.
// Models (the same forms the fitter fits, see fit.h):
//   GEMM        t = overhead + quantized_flops(m, n, k; sm_count, tile) / (rate(dtype) * speed(limit))
//               (fit.h: whole waves of whole tiles, the better tile orientation)
//   collective  t = alpha * latency_steps(kind, n) + bytes * bus_factor(kind, n) / bus_bw
//   reshard     t = 2 * (alpha * k + busiest_bytes / bw)
//   power       speed(limit) = min((limit / tdp)^elasticity, max_clock / clock_at_tdp);
//               SM clock = clock_at_tdp * speed; drawn power = idle + (limit - idle) * util
// Each repetition is multiplied by (1 + noise_rel * N(0,1)) (clipped at 0.5) and summarized.
// Thread safety: one user at a time (it owns its random stream).
#pragma once

#include <map>
#include <string>

#include "calibrate/backend.h"
#include "models/base/random.h"

namespace ntpsim::calibrate {

struct SyntheticCollective {
  double alpha_s = 2e-6;
  double bus_bw_Bps = 400e9;
};

struct SyntheticTruth {
  std::string gpu = "SYNTHETIC-H200-like";
  int sm_count = 132;
  int tile_m = 128, tile_n = 256, tile_k = 64;
  double overhead_s = 4e-6;
  double bf16_rate_flops = 800e12;     // sustained rate of a full wave of tiles at the TDP limit
  double fp8_rate_flops = 1500e12;
  bool fp8 = true;
  bool mxfp8 = false;                  // block-scaled fp8 (at the fp8 rate); off: Hopper-like
  int ranks = 8;                       // GPUs available to collectives
  std::string fabric = "scale_up";
  std::map<CollectiveKind, SyntheticCollective> collectives = {
      {CollectiveKind::kAllReduce, {3e-6, 460e9}},
      {CollectiveKind::kAllGather, {2.5e-6, 420e9}},
      {CollectiveKind::kReduceScatter, {2.5e-6, 410e9}},
      {CollectiveKind::kAllToAll, {4e-6, 350e9}},
      {CollectiveKind::kSendRecv, {6e-6, 380e9}}};
  double reshard_alpha_s = 5e-6;       // per extra rank, each way
  double reshard_bw_Bps = 320e9;
  double tdp_w = 700.0;
  double idle_w = 90.0;
  double elasticity = 0.35;
  double clock_at_tdp_mhz = 1755.0;
  double max_clock_mhz = 1980.0;
  double noise_rel = 0.01;
  int power_samples = 20;              // NVML samples per measurement
};

class SyntheticBackend final : public Backend {
 public:
  SyntheticBackend(SyntheticTruth truth, uint64_t seed);

  std::string name() const override { return "synthetic"; }
  int max_group_size() const override { return truth_.ranks; }
  std::string gemm_unsupported(const GemmRequest& r) const override {
    if (r.dtype == GemmDType::kFP8 && !truth_.fp8) return "no fp8 on this synthetic GPU";
    if (r.dtype == GemmDType::kMXFP8 && !truth_.mxfp8) return "no mxfp8 on this synthetic GPU";
    return {};
  }
  double power_limit_w() const override { return limit_w_; }

  Result<GemmMeasurement> gemm(const GemmRequest& r) override;
  Result<CollectiveMeasurement> collective(const CollectiveRequest& r) override;
  Result<ReshardMeasurement> reshard(const ReshardRequest& r) override;
  Result<double> set_power_limit_w(double watts) override;

  // The noiseless model times (what the fitter should recover).
  double gemm_time_s(const GemmRequest& r) const;
  double collective_time_s(const CollectiveRequest& r) const;
  double reshard_time_s(const ReshardRequest& r) const;
  double speed() const;  // relative to the TDP limit

  const SyntheticTruth& truth() const { return truth_; }

 private:
  TimeStats noisy(double t, int reps);

  SyntheticTruth truth_;
  Stream stream_;
  double limit_w_;
};

}  // namespace ntpsim::calibrate
