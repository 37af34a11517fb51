// Closed-form screening (screen.h; formulas in README.md).
#include "sim/planner/screen.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "models/base/check.h"
#include "models/step_model.h"
#include "sim/cluster/layout.h"
#include "sim/engine/engine.h"
#include "sim/failures/failure_source.h"
#include "sim/strategies/plugin.h"

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

Result<Screen> screen_candidate(const Scenario& s) {
  NTPSIM_CHECK(s.strategies.size() == 1);
  auto sim = Simulation::prepare(s);
  if (!sim.ok()) return sim.error();
  return screen_candidate(**sim);
}

Result<Screen> screen_candidate(const Simulation& sim) {
  const Scenario& s = sim.scenario();
  NTPSIM_CHECK(s.strategies.size() == 1);
  const models::StepModel& m = sim.step_model();
  const JobLayout& l = sim.layout();
  Screen r;
  r.healthy_iteration_s = sim.healthy_iteration_s();
  r.ideal_tokens_per_s = sim.ideal_tokens_per_s();
  r.interruptions_per_s = sim.interruption_rate_per_s();
  r.interval_s = sim.engine_config().interval_s_chosen;
  r.exposed_s = s.checkpoint.write_s * s.checkpoint.async_exposed_fraction;
  const double tau = std::isfinite(r.interval_s) && r.interval_s > 0 ? r.interval_s : 1e30;
  const double f_ck = tau / (tau + r.exposed_s);

  // Share of GPUs down: a unit of each process's class is down (failed itself, or taken by a
  // burst starting at another unit) at its mean rate x units per event x mean repair time.
  double down = 0;
  for (const auto& p : s.failures.processes) {
    double repair = 0;
    for (const auto& k : p.kinds) repair += k.share * k.repair.mean_s;
    down += p.mean_rate_per_unit_s(sim.topology().units(p.component)) * p.mean_units_per_event() *
            repair;
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
  const int64_t free_groups = l.total_groups - l.job_groups;
  poisson_tail(lost_per_domain * l.domains(), free_groups, r.short_probability, r.short_groups);
  r.damaged_domains = p_damaged * l.job_domains;

  const double it = r.healthy_iteration_s;
  const auto& rc = s.recovery;
  ScreenInputs in;
  in.model = &m;
  in.tp = l.tp;
  in.dp = l.dp;
  in.interruptions_per_s = r.interruptions_per_s;
  in.healthy_iteration_s = it;
  in.restart_loss_s =
      rc.detection_s + rc.restart_s + s.checkpoint.restore_s + 0.5 * (tau + r.exposed_s);
  in.reconfigure_loss_s = rc.detection_s + 2 * rc.reconfigure_s + 0.5 * it;
  in.swap_loss_s = rc.detection_s + rc.spare_swap_s + 0.5 * it;
  in.short_probability = r.short_probability;
  in.short_groups = r.short_groups;
  in.damaged_domains = r.damaged_domains;
  // A domain with a failed GPU (probability 1 - pmf[0]) has its failed GPUs covered by its idle
  // ones with probability p_covered / (1 - pmf[0]).
  in.in_domain_cover = 1 - pmf[0] > 0 ? p_covered / (1 - pmf[0]) : 1.0;
  // The strategy's own closed form (plugin.h), or a chain's composed one; an unknown name is bad
  // input here.
  auto g = screen_strategy(in, s.strategies.front());
  if (!g.ok()) return g.error();
  r.goodput_bound = f_ck;
  r.goodput_expected = std::clamp(*g, 0.0, 1.0) * f_ck;
  r.power_w = static_cast<double>(l.job_gpus) * m.gpu_power_w(1.0) +
              static_cast<double>(l.cluster_gpus - l.job_gpus) * s.hardware.idle_power_w;
  return r;
}

}  // namespace ntpsim::sim
