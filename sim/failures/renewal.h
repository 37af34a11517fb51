// Renewal-process pieces for the Weibull and lognormal failure processes (internal to
// sim/failures): the lifetime law in cumulative-hazard form, and the first failures of a pool of
// new units generated lazily as order statistics.
//
// Why: an ordinary renewal process over N units would draw N first lifetimes and heap them at
// time 0 (O(N log N) per replication, 8 ms at 100K GPUs). All units start new and i.i.d., so the
// first failure among the n not-yet-failed units, given survival to cumulative hazard h, is at
// H^-1(h + E/n) with E ~ Exp(1), and the unit is uniform among the n. Only units that failed at
// least once enter the engine's heap, so the cost is O(events log events).
// A unit removed early (taken by a burst) shrinks the pool; the next candidate is redrawn from
// the current time, which is exact because the remaining units are known to survive to it.
//
// Ownership: plain values owned by one ProcessGenerator. Thread safety: none needed (one thread).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "models/base/random.h"

namespace ntpsim::sim {

struct LifetimeLaw {
  bool weibull = true;
  double shape = 1.0;  // weibull k, or lognormal sigma
  double param = 1.0;  // weibull scale, or lognormal mu

  static LifetimeLaw weibull_with_mean(double mean_s, double k);
  static LifetimeLaw lognormal_with_mean(double mean_s, double sigma);

  double draw(Stream& s) const;
  // H(t) = -ln(1 - F(t)); H(0) = 0, increasing, +inf where the survival underflows.
  double cumulative_hazard(double t_s) const;
  // The t with H(t) = h (h >= 0); +inf for h = +inf.
  double inverse_cumulative_hazard(double h) const;
};

// The units of one lifetime law (the non-lemons, or the lemons) that have not failed yet.
class FirstFailurePool {
 public:
  // `members` are unit indices; `position` (shared by the pools of one process, one slot per
  // unit) is filled for them. `fails` false: these units never fail on their own (multiplier 0).
  void reset(const LifetimeLaw& law, bool fails, std::vector<int32_t> members,
             std::vector<int32_t>& position, Stream& s);

  // Time of the next first failure in this pool (+inf when none).
  double next_time() const { return next_t_; }
  // REQUIRES: next_time() finite. Removes and returns the failing unit; draws the next candidate.
  int64_t take(Stream& s, std::vector<int32_t>& position);
  // Removes `unit` (a member: position[unit] >= 0) that failed at `now_s` for another cause.
  void remove(int64_t unit, double now_s, Stream& s, std::vector<int32_t>& position);

 private:
  void erase_at(size_t i, std::vector<int32_t>& position);
  void redraw(Stream& s);

  LifetimeLaw law_;
  bool fails_ = false;
  std::vector<int32_t> members_;
  double h_ = 0.0;       // cumulative hazard every member is known to have survived
  double next_h_ = 0.0;  // the candidate's cumulative hazard
  double next_t_ = std::numeric_limits<double>::infinity();
};

}  // namespace ntpsim::sim
