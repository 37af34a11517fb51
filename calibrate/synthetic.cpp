#include "calibrate/synthetic.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "calibrate/fit.h"
#include "models/base/check.h"

namespace ntpsim::calibrate {
SyntheticBackend::SyntheticBackend(SyntheticTruth truth, uint64_t seed)
    : truth_(std::move(truth)), stream_(seed, 0, "calibrate.synthetic"), limit_w_(truth_.tdp_w) {}

double SyntheticBackend::speed() const {
  const double s = std::pow(limit_w_ / truth_.tdp_w, truth_.elasticity);
  return std::min(s, truth_.max_clock_mhz / truth_.clock_at_tdp_mhz);
}

double SyntheticBackend::gemm_time_s(const GemmRequest& r) const {
  const SyntheticTruth& t = truth_;
  const double qflops = quantized_flops(r.m, r.n, r.k, t.sm_count, t.tile_m, t.tile_n, t.tile_k);
  const double rate = is_fp8(r.dtype) ? t.fp8_rate_flops : t.bf16_rate_flops;
  return t.overhead_s + qflops / (rate * speed());
}

double SyntheticBackend::collective_time_s(const CollectiveRequest& r) const {
  const auto it = truth_.collectives.find(r.kind);
  NTPSIM_CHECK(it != truth_.collectives.end());
  return it->second.alpha_s * latency_steps(r.kind, r.group_size) +
         static_cast<double>(r.bytes) * bus_factor(r.kind, r.group_size) / it->second.bus_bw_Bps;
}

double SyntheticBackend::reshard_time_s(const ReshardRequest& r) const {
  return 2.0 * (truth_.reshard_alpha_s * r.k + r.busiest_bytes() / truth_.reshard_bw_Bps);
}

TimeStats SyntheticBackend::noisy(double t, int reps) {
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(std::max(1, reps)));
  for (int i = 0; i < std::max(1, reps); ++i) {
    const double z = std::clamp(truth_.noise_rel * stream_.normal(), -0.5, 0.5);
    samples.push_back(t * (1.0 + z));
  }
  return summarize(std::move(samples));
}

Result<GemmMeasurement> SyntheticBackend::gemm(const GemmRequest& r) {
  if (const std::string why = gemm_unsupported(r); !why.empty()) return Error::runtime(why);
  GemmMeasurement m;
  const double t = gemm_time_s(r);
  m.time = noisy(t, r.reps);
  // Utilisation: share of the full-wave rate this shape achieves; drives the drawn power.
  const double rate = (is_fp8(r.dtype) ? truth_.fp8_rate_flops : truth_.bf16_rate_flops) * speed();
  const double util = std::clamp(r.flops() / t / rate, 0.0, 1.0);
  m.power.samples = truth_.power_samples;
  m.power.mean_w = truth_.idle_w + (limit_w_ - truth_.idle_w) * util;
  m.power.max_w = std::min(limit_w_, m.power.mean_w * 1.03);
  m.power.sm_clock_mean_mhz = truth_.clock_at_tdp_mhz * speed();
  return m;
}

Result<CollectiveMeasurement> SyntheticBackend::collective(const CollectiveRequest& r) {
  if (r.group_size < 2 || r.group_size > truth_.ranks) {
    return Error::runtime("group size " + std::to_string(r.group_size) + " exceeds the ranks");
  }
  CollectiveMeasurement m;
  m.time = noisy(collective_time_s(r), r.reps);
  return m;
}

Result<ReshardMeasurement> SyntheticBackend::reshard(const ReshardRequest& r) {
  if (r.tp > truth_.ranks) return Error::runtime("reshard TP degree exceeds the ranks");
  ReshardMeasurement m;
  m.time = noisy(reshard_time_s(r), r.reps);
  return m;
}

Result<double> SyntheticBackend::set_power_limit_w(double watts) {
  if (watts < truth_.idle_w || watts > 2.0 * truth_.tdp_w) {
    return Error::runtime("power limit outside the synthetic GPU's range");
  }
  limit_w_ = watts;
  return limit_w_;
}

}  // namespace ntpsim::calibrate
