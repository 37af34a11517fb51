// The fitter: raw measurements -> cost-model parameters with their fit quality (DESIGN.md §5).
//
// Weighted linear least squares (Eigen, rows scaled by 1/measured so the relative error is
// minimised) of the forms the cost models use (models/hardware.h):
//   GEMM (per dtype; FitOptions::separate_layouts: per dtype and layout TN/NN/NT, else the
//                     layouts pooled in one fit)
//                     t = overhead + qflops(m, n, k; tile, sm_count) / rate
//                     where qflops counts whole waves of output tiles (quantized_flops below);
//                     the tile (tile_m, tile_n) is chosen among common cuBLASLt tiles by the
//                     smallest squared relative error; tile_k = 64. Also the measured table.
//   collective        per (fabric, kind, group size n): t = a + bytes * bus_factor(n) / bus_bw,
//                     alpha = a / latency_steps(n); and pooled over n per (fabric, kind):
//                     t = alpha * latency_steps(n) + bytes * bus_factor(n) / bus_bw
//   reshard           per (fabric, T): t = 2 * (alpha * k + busiest_bytes / bw), the form the
//                     analytic step model uses with the all_to_all parameters at n = T
//   power             ln(speed) = c + elasticity * ln(limit / tdp) over the power-limit sweep of
//   the
//                     most compute-bound shape (points whose clock is below the top clock);
//                     max_clock_speedup = top SM clock / mean SM clock at the TDP limit.
// Quality: per point relative error (predicted - measured) / measured, the largest, and R² of
// the times. Thread safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/raw_reader.h"
#include "models/base/status.h"

namespace ntpsim::calibrate {

struct PointError {
  std::string what;         // "file:line gemm bf16 8192x8192x8192"
  double measured_s = 0.0;
  double predicted_s = 0.0;
  double rel_error = 0.0;   // (predicted - measured) / measured
};

struct FitQuality {
  int points = 0;
  double r2 = 0.0;
  double max_abs_rel_error = 0.0;
  double mean_abs_rel_error = 0.0;
  std::vector<PointError> per_point;
};

struct GemmFit {
  GemmDType dtype = GemmDType::kBF16;
  std::optional<GemmLayout> layout;  // empty: every layout of the dtype pooled

  int sm_count = 0;
  int tile_m = 0, tile_n = 0, tile_k = 64;
  double overhead_s = 0.0;
  double rate_flops = 0.0;       // sustained rate of full waves (at the file's power limit)
  double best_flops = 0.0;       // highest measured throughput over the shapes
  struct Point {
    int64_t m, n, k;
    double flops_per_s;          // measured median throughput
  };
  std::vector<Point> table;      // one point per distinct shape (mean over repeated measurements)
  FitQuality quality;
};

struct CollectiveGroupFit {
  int group_size = 0;
  double alpha_s = 0.0;
  double bus_bw_Bps = 0.0;
  FitQuality quality;
};

struct CollectiveFitResult {
  std::string fabric;
  CollectiveKind kind = CollectiveKind::kAllReduce;
  double alpha_s = 0.0;          // pooled over group sizes
  double bus_bw_Bps = 0.0;
  FitQuality quality;            // of the pooled fit
  std::vector<CollectiveGroupFit> groups;
};

struct ReshardFit {
  std::string fabric;
  int tp = 0;                    // healthy TP degree T of the measured group
  double alpha_s = 0.0;
  double bw_Bps = 0.0;
  FitQuality quality;
};

struct PowerFit {
  bool swept = false;            // false: observed at one limit only (no elasticity fitted)
  double elasticity = 0.0;
  double max_clock_speedup = 0.0;  // 0 when not measured (no SM clock or no top clock recorded)
  double tdp_w = 0.0;            // the default (TDP) power limit the speeds are relative to
  double full_load_power_w = 0.0;  // mean power of the most compute-bound shape at TDP
  int points = 0;
  double r2 = 0.0;
  double max_abs_rel_error = 0.0;  // of the predicted speed
  int thermal_excluded = 0;        // points left out: the clock was slowed by heat, not power
};

struct FitOptions {
  // SM count when the raw files' context has no `sm_count` (0: it must be in the context).
  int sm_count = 0;
  // Tile shapes tried by the GEMM fit.
  // (Each is also tried transposed, as cuBLASLt picks the orientation.)
  std::vector<std::pair<int, int>> tiles = {{64, 128}, {128, 128}, {128, 256}, {256, 256}};
  // false (default): one GEMM fit per dtype over every layout (TN forward, NN data-gradient, NT
  // weight-gradient GEMMs together: the step model has one GEMM model per type). true: one fit
  // per dtype and layout, to see whether the layouts differ; the profile then takes each type's
  // TN fit (profile_gemm_fit).
  bool separate_layouts = false;
};

struct FitResult {
  // Provenance of the fitted numbers (models/hardware.h `origin`): "synthetic" or "measured" when
  // every file agrees, "mixed" otherwise; per part (gemm, scale_up, scale_out, power) the same
  // over the files that part was fitted from.
  std::string origin;
  std::map<std::string, std::string> part_origins;
  std::vector<std::string> files;
  std::vector<RawContext> contexts;
  std::vector<GemmFit> gemm;  // one per dtype (and layout) present
  std::vector<CollectiveFitResult> collectives;
  std::vector<ReshardFit> reshards;
  std::optional<PowerFit> power;
  int points = 0;                            // measurement rows used
  // Points the runs could not measure ('# skipped:' lines), as "file:line what: reason".
  std::vector<std::string> skipped;
};

// Provenance of one file's numbers: "synthetic" when its context carries a `synthetic` line
// (ntpcal-synth output, synthetic test logs), else "measured" (ntpcal and nccl-tests output).
std::string data_origin(const RawData& file);
// "" for none, the common value when all agree, else "mixed".
std::string combine_origins(const std::vector<std::string>& origins);

// Fits everything the files hold. Errors (bad input): no rows at all, a collective or reshard
// series with fewer than 2 distinct sizes, GEMMs without an SM count, a singular system.
Result<FitResult> fit_raw(const std::vector<RawData>& files, const FitOptions& options = {});

// FLOPs of whole waves of whole output tiles: waves * sm_count * 2 * tm * tn * ceil(k/tk) * tk,
// waves = ceil(ceil(m/tm) * ceil(n/tn) / sm_count), the better of the tile and its transpose
// (the same quantization models/gemm_model.h applies, so fitted parameters carry over).
double quantized_flops(int64_t m, int64_t n, int64_t k, int sm_count, int tile_m, int tile_n,
                       int tile_k);

// Quality of arbitrary predictions (exposed for tests and the e2e check).
FitQuality quality_of(const std::vector<double>& measured, const std::vector<double>& predicted,
                      const std::vector<std::string>& what);

// "bf16", or "bf16.NN" for a fit of one layout.
std::string gemm_fit_name(const GemmFit& g);
// The fit of `dtype` a profile is built from: the pooled one, else the TN (forward) one, else the
// first; nullptr when the type was not measured.
const GemmFit* profile_gemm_fit(const FitResult& r, GemmDType dtype);

// A multi-line human summary (for `ntpsim fit` on the terminal).
std::string describe(const FitResult& r);

}  // namespace ntpsim::calibrate
