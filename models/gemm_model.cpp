#include "models/gemm_model.h"

#include <algorithm>
#include <cmath>

#include "models/base/check.h"

namespace ntpsim::models {

GemmModel::GemmModel(const HardwareProfile& h, bool fp8)
    : params_(h.gemm),
      best_efficiency_(h.gemm_efficiency),
      peak_flops_(h.peak_flops(fp8)),
      hbm_Bps_(h.hbm_bw_Bps * h.gemm.hbm_efficiency),
      bytes_per_element_(fp8 ? 1.0 : 2.0) {
  NTPSIM_CHECK(peak_flops_ > 0 && hbm_Bps_ > 0 && best_efficiency_ > 0);
  NTPSIM_CHECK(params_.sm_count > 0 && params_.tile_m > 0 && params_.tile_n > 0 &&
               params_.tile_k > 0);
}

double GemmModel::tile_efficiency(double m, double n, double k) const {
  // cuBLASLt's heuristics pick the tile orientation; take the better of the profile's tile and
  // its transpose (same best-shape efficiency).
  const double tm = params_.tile_m, tn = params_.tile_n;
  const double candidates[2][2] = {{tm, tn}, {tn, tm}};
  const double steps_k = std::ceil(k / params_.tile_k);
  const double k_util = k / (steps_k * params_.tile_k);
  double best = 0;
  for (const auto& [cm, cn] : candidates) {
    const double tiles_m = std::ceil(m / cm);
    const double tiles_n = std::ceil(n / cn);
    const double tile_util = (m * n) / (tiles_m * cm * tiles_n * cn);
    const double tiles = tiles_m * tiles_n;
    const double waves = std::ceil(tiles / params_.sm_count);
    const double wave_util = tiles / (waves * params_.sm_count);
    best = std::max(best, tile_util * wave_util);
  }
  return best_efficiency_ * k_util * best;
}

double GemmModel::table_efficiency(double m, double n, double k) const {
  double weight_sum = 0, value_sum = 0;
  for (const GemmPoint& p : params_.table) {
    const double eff = p.flops_per_s / peak_flops_;
    const double dm = std::log(m / p.m), dn = std::log(n / p.n), dk = std::log(k / p.k);
    const double d2 = dm * dm + dn * dn + dk * dk;
    if (d2 < 1e-18) return eff;
    const double w = 1.0 / d2;
    weight_sum += w;
    value_sum += w * eff;
  }
  return value_sum / weight_sum;
}

double GemmModel::efficiency(double m, double n, double k) const {
  NTPSIM_CHECK(m > 0 && n > 0 && k > 0);
  const double e = params_.table.empty() ? tile_efficiency(m, n, k) : table_efficiency(m, n, k);
  return std::clamp(e, 1e-6, 1.0);
}

double GemmModel::time_s(double m, double n, double k) const {
  const double flops = 2.0 * m * n * k;
  const double compute = flops / (peak_flops_ * efficiency(m, n, k));
  // A measured throughput already includes launch overhead and memory stalls.
  if (!params_.table.empty()) return compute;
  const double bytes = bytes_per_element_ * (m * k + k * n) + 2.0 * m * n /*bf16 output*/;
  return std::max(compute, memory_time_s(bytes)) + params_.overhead_s;
}

double GemmModel::memory_time_s(double bytes) const {
  return bytes / hbm_Bps_;
}

}  // namespace ntpsim::models
