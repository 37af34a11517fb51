#include "models/power_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/base/check.h"

namespace ntpsim::models {

PowerModel::PowerModel(const HardwareProfile& h)
    : elasticity_(h.power_elasticity),
      ceiling_(std::max(1.0, h.max_clock_speedup)),
      max_ratio_(h.tdp_w > 0 && h.max_power_w > h.tdp_w ? h.max_power_w / h.tdp_w : 1.0),
      tdp_w_(h.tdp_w),
      idle_w_(h.idle_power_w),
      comm_fraction_(h.power.comm_power_fraction) {
  NTPSIM_CHECK(elasticity_ >= 0 && tdp_w_ > 0);
}

double PowerModel::speedup(double r) const {
  NTPSIM_CHECK(r > 0);
  return std::min(std::pow(r, elasticity_), ceiling_);
}

double PowerModel::ratio_for_speedup(double s) const {
  if (s <= 1.0) return 1.0;
  if (s > ceiling_ || elasticity_ <= 0) return std::numeric_limits<double>::infinity();
  return std::pow(s, 1.0 / elasticity_);
}

double PowerModel::comm_power_w(double r) const {
  return std::min(comm_fraction_ * tdp_w_, compute_power_w(r));
}

}  // namespace ntpsim::models
