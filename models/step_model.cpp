#include "models/step_model.h"

#include <algorithm>
#include <cmath>

#include "models/base/check.h"

namespace ntpsim::models {

double max_batch_share(const StepModel& m, int tp, double power_ratio, double target_s) {
  if (m.replica_iteration_s(tp, 1.0, power_ratio) <= target_s) return 1.0;
  constexpr double kMinShare = 1e-6;
  if (m.replica_iteration_s(tp, kMinShare, power_ratio) > target_s) return 0.0;
  double lo = kMinShare, hi = 1.0;
  while (hi - lo > 1e-7) {
    const double mid = 0.5 * (lo + hi);
    if (m.replica_iteration_s(tp, mid, power_ratio) <= target_s) lo = mid;
    else hi = mid;
  }
  return lo;
}

double power_ratio_for(const StepModel& m, int tp, double share, double target_s) {
  const double cap = m.max_power_ratio();
  if (m.replica_iteration_s(tp, share, 1.0) <= target_s) return 1.0;
  if (m.replica_iteration_s(tp, share, cap) > target_s) return cap * (1.0 + 1e-3) + 1e-3;
  double lo = 1.0, hi = cap;
  while (hi - lo > 1e-7) {
    const double mid = 0.5 * (lo + hi);
    if (m.replica_iteration_s(tp, share, mid) <= target_s) hi = mid;
    else lo = mid;
  }
  return hi;
}

namespace {

class ProportionalModel final : public StepModel {
 public:
  ProportionalModel(const Workload& w, const Layout& l, const HardwareProfile& h, double reshard)
      : tp_(l.tp), hw_(h), reshard_fraction_(reshard) {
    const double flops = 6.0 * w.parameters() * w.tokens_per_iteration();
    const double per_gpu = h.peak_flops(w.dtype == DType::kFP8) * h.gemm_efficiency;
    NTPSIM_CHECK(per_gpu > 0 && l.gpus() > 0);
    healthy_s_ = flops / (per_gpu * l.gpus());
  }

  std::string name() const override { return "proportional"; }
  int nominal_tp() const override { return tp_; }
  int min_tp() const override { return 1; }

  double replica_iteration_s(int tp, double batch_share, double power_ratio) const override {
    NTPSIM_CHECK(tp >= 1 && tp <= tp_ && batch_share > 0 && power_ratio > 0);
    const double speed = static_cast<double>(tp) / tp_ * power_speedup(power_ratio);
    return healthy_s_ * batch_share / speed;
  }

  double reshard_overhead_s(int tp) const override {
    return tp < tp_ ? reshard_fraction_ * healthy_s_ : 0.0;
  }

  double gpu_power_w(double power_ratio) const override { return hw_.tdp_w * power_ratio; }
  double max_power_ratio() const override {
    return hw_.max_power_w > 0 && hw_.tdp_w > 0 ? hw_.max_power_w / hw_.tdp_w : 1.0;
  }

 private:
  double power_speedup(double ratio) const {
    const double s = std::pow(ratio, hw_.power_elasticity);
    return std::min(s, std::max(1.0, hw_.max_clock_speedup));
  }

  int tp_;
  HardwareProfile hw_;
  double reshard_fraction_;
  double healthy_s_ = 0.0;
};

}  // namespace

std::unique_ptr<StepModel> make_proportional_model(const Workload& w, const Layout& l,
                                                   const HardwareProfile& h,
                                                   double reshard_fraction) {
  return std::make_unique<ProportionalModel>(w, l, h, reshard_fraction);
}

}  // namespace ntpsim::models
