// A failure process's long-run means (process_means.h).
#include "sim/scenario/process_means.h"

namespace ntpsim::sim {

double repair_law_mean_s(const RepairDist& d) {
  if (d.distribution != "empirical" || d.values_s.empty()) return d.mean_s;
  double sum = 0.0;
  for (const double v : d.values_s) sum += v;
  return sum / static_cast<double>(d.values_s.size());
}

bool has_regimes(const FailureProcess& p) {
  return p.distribution == "hawkes" && p.regime_high_share > 0.0;
}

double regime_high_failure_share(const FailureProcess& p) {
  if (!has_regimes(p)) return 0.0;
  const double pi = p.regime_high_share;
  const double rho = p.regime_rate_ratio / (1.0 - pi + pi * p.regime_rate_ratio);
  // Low spells have mean high x (1 - pi) / pi, so gamma = 1 / (high x (1 - pi)).
  const double gamma = 1.0 / (p.regime_high_mean_s * (1.0 - pi));
  const double n = p.branching + p.slow_branching;
  double c = p.branching / (1.0 + gamma * p.excitation_mean_s);
  if (p.slow_branching > 0.0) c += p.slow_branching / (1.0 + gamma * p.slow_excitation_mean_s);
  return pi * (rho * (1.0 - n) + n - c) / (1.0 - c);
}

namespace {

// The mean of a repair drawn from a law (a kind's, or its state's), deferred repairs aside.
double drawn_repair_mean_s(const FailureProcess& p) {
  double kinds = 0.0;
  for (const FailureKind& k : p.kinds) kinds += k.share * repair_law_mean_s(k.repair);
  if (!has_regimes(p)) return kinds;
  const double high = regime_high_failure_share(p);
  const double low_law = p.regime_state_repairs ? repair_law_mean_s(p.regime_repair[0]) : kinds;
  const double high_law = p.regime_state_repairs ? repair_law_mean_s(p.regime_repair[1]) : kinds;
  return (1.0 - high) * p.regime_low_repair_scale * low_law +
         high * p.regime_high_repair_scale * high_law;
}

}  // namespace

double mean_repair_s(const FailureProcess& p) {
  const double drawn = drawn_repair_mean_s(p);
  if (!(p.deferred_share > 0.0)) return drawn;
  // Visits are a Poisson process, so the wait from a failure to the next visit has the mean
  // gap whatever the failure's time.
  return (1.0 - p.deferred_share) * drawn + p.deferred_share * p.visit_interval_s;
}

}  // namespace ntpsim::sim
