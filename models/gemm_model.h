// GEMM time on one GPU: C[m x n] = A[m x k] · B[k x n] (DESIGN.md §4, GEMM model).
//
// Two ways to get the efficiency (share of dense peak) of a shape:
//  - the tile model: best-shape efficiency × tile quantization (the output padded to whole
//    tiles and K to whole tile_k steps) × wave quantization (tiles spread over sm_count SMs in
//    whole waves), plus a fixed per-GEMM overhead. The tile is the better of tile_m x tile_n and
//    its transpose, as cuBLASLt's heuristics choose the orientation;
//  - a measured table (profile `gemm.table`): the efficiency of the nearest measured shapes,
//    interpolated by inverse squared distance in (log m, log n, log k); an exact match returns
//    the measured value.
// Tile model: time is the larger of compute time and HBM time (A, B read once, C written once),
// plus the overhead. Table model: time = FLOPs / (peak × interpolated efficiency), since measured
// throughput already includes overhead and memory stalls. Immutable after construction;
// thread-safe.
#pragma once

#include "models/hardware.h"

namespace ntpsim::models {

class GemmModel {
 public:
  // `fp8` selects the FP8 peak (and 1-byte operands).
  GemmModel(const HardwareProfile& h, bool fp8);

  // Share of dense peak the shape reaches when compute-bound, in (0, 1].
  double efficiency(double m, double n, double k) const;
  // Seconds for one GEMM. REQUIRES: m, n, k > 0.
  double time_s(double m, double n, double k) const;
  // Seconds of a memory-bound kernel moving `bytes` through HBM.
  double memory_time_s(double bytes) const;
  double peak_flops() const { return peak_flops_; }

 private:
  double tile_efficiency(double m, double n, double k) const;
  double table_efficiency(double m, double n, double k) const;

  GemmParams params_;
  double best_efficiency_;
  double peak_flops_;
  double hbm_Bps_;
  double bytes_per_element_;
};

}  // namespace ntpsim::models
