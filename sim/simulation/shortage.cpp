// The cluster-shortage closed form (shortage.h).
#include "sim/simulation/shortage.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/scenario/process_means.h"

namespace ntpsim::sim {
namespace {

// P(X = k) for X ~ Poisson(mean), k = 0..n, by recurrence (mean may be 0).
std::vector<double> poisson_pmf(double mean, int n) {
  std::vector<double> p;
  p.reserve(static_cast<size_t>(n) + 1);
  double v = std::exp(-mean);
  p.push_back(v);
  for (int k = 1; k <= n; ++k) p.push_back(v *= mean / k);
  return p;
}

// P(X > k) and E[max(0, X - k)] for X ~ Poisson(mean).
void poisson_tail(double mean, int64_t k, double& p_over, double& e_over) {
  const int n = static_cast<int>(std::min<double>(1e6, k + 20 + 10 * mean + 10 * std::sqrt(mean)));
  double cdf = 0, e_below = 0;  // sum over x <= k of p, and of (x - k) p
  double p = std::exp(-mean);
  for (int x = 0; x <= n && x <= k; ++x) {
    if (x > 0) p *= mean / x;
    cdf += p;
    e_below += static_cast<double>(x - k) * p;
  }
  p_over = std::max(0.0, 1.0 - cdf);
  e_over = std::max(0.0, (mean - static_cast<double>(k)) - e_below);
}

}  // namespace

Shortage expected_shortage(const Scenario& s, const JobLayout& l) {
  Shortage r;
  // Share of GPUs down: a unit of each process's class is down (failed itself, or taken by a
  // burst starting at another unit) at its mean rate x units per event x the mean repair the
  // engine draws (regimes included: process_means.h).
  double down = 0;
  for (const auto& p : s.failures.processes) {
    down += p.mean_rate_per_unit_s(s.cluster.units(p.component)) * p.mean_units_per_event() *
            mean_repair_s(p);
  }
  r.down_fraction = std::min(1.0, down);

  // Per domain, failed GPUs ~ Poisson(G u); a domain re-forms floor((G - N) / T) groups.
  const int G = l.gpus_per_domain;
  const auto pmf = poisson_pmf(G * r.down_fraction, G);
  double lost_per_domain = 0, p_damaged = 0, p_covered = 0;
  for (int n = 0; n <= G; ++n) {
    const double pn = pmf[static_cast<size_t>(n)];
    lost_per_domain += pn * std::max(0, l.groups_per_domain - (G - n) / l.tp);
    if (n > l.idle_per_domain) {
      p_damaged += pn;
    } else if (n >= 1) {
      p_covered += pn;
    }
  }
  r.in_domain_cover = 1 - pmf[0] > 0 ? p_covered / (1 - pmf[0]) : 1.0;
  const int64_t free_groups = l.total_groups - l.job_groups;
  poisson_tail(lost_per_domain * l.domains(), free_groups, r.short_probability, r.short_groups);
  r.damaged_domains = p_damaged * l.job_domains;
  return r;
}

}  // namespace ntpsim::sim
