// Checkpoint-interval closed forms (checkpoint_interval.h).
#include "sim/engine/checkpoint_interval.h"

#include <cmath>

#include <boost/math/special_functions/lambert_w.hpp>

#include "models/base/check.h"

namespace ntpsim::sim {

double checkpoint_overhead_s(double write_s, double exposed_s, double slowdown) {
  return exposed_s + slowdown * (write_s - exposed_s);
}

double renewal_segment_s(double interval_s, double cost_s, double mtti_s, double recover_s,
                         PauseFailures pause_failures) {
  NTPSIM_CHECK(interval_s > 0 && cost_s >= 0 && mtti_s > 0 && recover_s >= 0);
  // expm1 keeps the small-(τ+C)/M limit (E[S] -> τ + C) accurate.
  const double attempts = std::expm1((interval_s + cost_s) / mtti_s);
  const double per_failure = pause_failures == PauseFailures::kRestart
                                 ? mtti_s * std::exp(recover_s / mtti_s)
                                 : mtti_s + recover_s;
  return per_failure * attempts;
}

double renewal_goodput(double interval_s, double cost_s, double mtti_s, double recover_s,
                       PauseFailures pause_failures) {
  return interval_s / renewal_segment_s(interval_s, cost_s, mtti_s, recover_s, pause_failures);
}

double optimal_interval_s(double cost_s, double mtti_s) {
  NTPSIM_CHECK(cost_s >= 0 && mtti_s > 0);
  if (cost_s == 0) return 0.0;
  // d/dτ [(e^{(τ+C)/M} - 1) / τ] = 0  <=>  e^{(τ+C)/M} (1 - τ/M) = 1; with y = 1 - τ/M:
  // y e^{-y} = e^{-(1 + C/M)}, so -y = W0(-e^{-(1 + C/M)}) (the branch with y in (0, 1]).
  const double z = -std::exp(-(1.0 + cost_s / mtti_s));
  return mtti_s * (1.0 + boost::math::lambert_w0(z));
}

double young_daly_interval_s(double cost_s, double mtti_s, double recover_s) {
  return std::sqrt(2.0 * cost_s * (mtti_s + recover_s));
}

double rollback_rate_per_s(const Strategy& strategy, double interruption_rate_per_s,
                           double short_probability, double in_domain_cover) {
  switch (strategy.rollback_exposure()) {
    case RollbackExposure::kEveryInterruption:
      return interruption_rate_per_s;
    case RollbackExposure::kUnlessInDomainSpares:
      return interruption_rate_per_s * (1 - in_domain_cover);
    case RollbackExposure::kWhenShort:
      return interruption_rate_per_s * short_probability;
    case RollbackExposure::kNever:
      return 0.0;
  }
  return interruption_rate_per_s;
}

}  // namespace ntpsim::sim
