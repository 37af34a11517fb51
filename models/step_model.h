// What the simulator's strategies ask of the cost models (DESIGN.md §3.4, §4).
//
// A `StepModel` answers, for one DP replica of the job's layout: how long an iteration takes when
// its slowest (damaged) stage runs at TP degree `tp`, carrying `batch_share` of its nominal share
// of the global batch, with the damaged domain's GPUs at `power_ratio` × TDP. Strategies derive
// from it the largest batch share that keeps pace with healthy replicas and the least power that
// keeps a full share (the free functions below, shared by every model).
//
// Implementations: `proportional` (speed ∝ GPUs in the TP group, power speedup (P/P0)^a) and the
// analytic transformer model (models/analytic_step_model.h). Both are pure: const methods, no
// state after construction, safe to share between threads.
#pragma once

#include <memory>
#include <string>

#include "models/base/status.h"
#include "models/hardware.h"
#include "models/workload.h"

namespace ntpsim::models {

class StepModel {
 public:
  virtual ~StepModel() = default;
  virtual std::string name() const = 0;

  // The healthy TP degree T of the layout.
  virtual int nominal_tp() const = 0;
  // Smallest TP degree one stage can run at (memory bound), 1 <= min_tp() <= nominal_tp().
  virtual int min_tp() const = 0;
  // Iteration time in seconds. REQUIRES: min_tp() <= tp <= nominal_tp(), batch_share in (0, 1],
  // power_ratio > 0. Non-decreasing in batch_share, non-increasing in power_ratio and tp.
  virtual double replica_iteration_s(int tp, double batch_share, double power_ratio) const = 0;
  // Seconds per iteration that the NTP gradient reshard (before and after the DP sync) adds to
  // the healthy replicas while damaged replicas run at `tp` < nominal_tp(); 0 when tp == T.
  virtual double reshard_overhead_s(int tp) const = 0;
  // Power per GPU (W) when running at power_ratio × TDP (for energy accounting).
  virtual double gpu_power_w(double power_ratio) const = 0;
  // Highest power ratio a GPU may be set to (profile max_power / tdp).
  virtual double max_power_ratio() const = 0;

  // Convenience: iteration time of a healthy replica at full share and nominal power.
  double healthy_iteration_s() const { return replica_iteration_s(nominal_tp(), 1.0, 1.0); }
};

// Largest batch share in (0, 1] whose iteration time at (tp, power_ratio) does not exceed
// `target_s` (bisection to 1e-6). Returns 0 when even the smallest share is too slow.
double max_batch_share(const StepModel& m, int tp, double power_ratio, double target_s);

// Least power ratio in [1, max_power_ratio()] at which a replica at `tp` carrying `share` keeps
// within `target_s`; returns a value > max_power_ratio() when no allowed power suffices.
double power_ratio_for(const StepModel& m, int tp, double share, double target_s);

// The proportional model: a TP group's speed ∝ its GPUs; power speedup = (P/P0)^a capped by the
// profile's max_clock_speedup. The healthy iteration time comes from 6·N·tokens FLOPs at the
// profile's GEMM efficiency. Reshard overhead is a fixed `reshard_fraction` of the iteration.
// The step model named `kind`: "analytic" (models/analytic_step_model.h, default options) or
// "proportional". Errors (bad input): an unknown kind; an fp8 workload on a profile without FP8.
// Defined in analytic_step_model.cpp.
Result<std::unique_ptr<StepModel>> make_step_model(const std::string& kind, const Workload& w,
                                                   const Layout& l, const HardwareProfile& h);

std::unique_ptr<StepModel> make_proportional_model(const Workload& w, const Layout& l,
                                                   const HardwareProfile& h,
                                                   double reshard_fraction = 0.01);

}  // namespace ntpsim::models
