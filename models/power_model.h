// Speed of compute-bound work against GPU power, and power draw per phase (DESIGN.md §4).
//
// speedup(r) = min(r^a, max_clock_speedup) for a power ratio r = P / TDP >= 1 (a = the profile's
// power_elasticity, fitted from clock/power sweeps); below TDP the same law slows work down
// (r^a, no floor). The inverse gives the least power ratio that reaches a wanted speedup, or
// +infinity when the clock ceiling makes it unreachable. perf/W relative to TDP is
// speedup(r) / r. Immutable; thread-safe.
#pragma once

#include "models/hardware.h"

namespace ntpsim::models {

class PowerModel {
 public:
  explicit PowerModel(const HardwareProfile& h);

  // Speed of compute-bound work at power ratio r, relative to TDP. REQUIRES: r > 0.
  double speedup(double r) const;
  // Least power ratio whose speedup reaches s (1 for s <= 1); +inf when s > ceiling.
  double ratio_for_speedup(double s) const;
  // Performance per watt at ratio r relative to that at TDP (speedup(r) / r).
  double perf_per_watt(double r) const { return speedup(r) / r; }
  // The highest power ratio allowed (max_power / tdp).
  double max_ratio() const { return max_ratio_; }
  // Largest speedup reachable within the allowed power.
  double max_speedup() const { return speedup(max_ratio_); }

  // Power per GPU in watts: compute phases at ratio r; communication-bound phases at
  // comm_power_fraction × TDP (never above the compute power); idle GPUs at idle_power.
  double compute_power_w(double r) const { return tdp_w_ * r; }
  double comm_power_w(double r) const;
  double idle_power_w() const { return idle_w_; }

 private:
  double elasticity_;
  double ceiling_;
  double max_ratio_;
  double tdp_w_;
  double idle_w_;
  double comm_fraction_;
};

}  // namespace ntpsim::models
