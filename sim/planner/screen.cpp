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
#include "sim/simulation/shortage.h"
#include "sim/strategies/plugin.h"

namespace ntpsim::sim {

Result<Screen> screen_candidate(const Scenario& s, PrepareCache* cache) {
  NTPSIM_CHECK(s.strategies.size() == 1);
  auto sim = Simulation::prepare(s, cache, StrategyUse::kScreen);
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
  r.interval_s = sim.checkpoint_interval_s(0);
  const EngineConfig& ec = sim.engine_config();
  const Resume resume = sim.strategies().front()->resume().mechanism;
  // restart_from_memory runs the in-memory snapshot cycle instead of the persistent one.
  r.exposed_s =
      resume == Resume::kRestartFromMemory ? ec.memory_exposed.seconds() : ec.checkpoint_cost_s;
  const double tau = std::isfinite(r.interval_s) && r.interval_s > 0 ? r.interval_s : 1e30;
  const double f_ck = tau / (tau + r.exposed_s);

  const Shortage shortage = expected_shortage(s, l);
  r.down_fraction = shortage.down_fraction;
  r.short_probability = shortage.short_probability;
  r.short_groups = shortage.short_groups;
  r.damaged_domains = shortage.damaged_domains;

  const double it = r.healthy_iteration_s;
  const auto& rc = s.recovery;
  ScreenInputs in;
  in.model = &m;
  in.tp = l.tp;
  in.dp = l.dp;
  in.interruptions_per_s = r.interruptions_per_s;
  in.healthy_iteration_s = it;
  // Per interruption: a restart pays its mechanism's restart and half a snapshot period; under
  // a restart mechanism every action is such a restart (repairs join at the next one); in place,
  // a swap or reconfiguration pays its pause, the state transfer and half an iteration, and a
  // reconfiguration a second pause when the repaired units rejoin.
  const double restart_s =
      resume == Resume::kRestartFromMemory ? ec.memory_restart.seconds() : ec.restart.seconds();
  in.restart_loss_s = rc.detection_s + restart_s + 0.5 * (tau + r.exposed_s);
  if (resume == Resume::kInPlace) {
    const double transfer_s = ec.state_transfer.seconds();
    in.reconfigure_loss_s = rc.detection_s + 2 * rc.reconfigure_s + transfer_s + 0.5 * it;
    in.swap_loss_s = rc.detection_s + rc.spare_swap_s + transfer_s + 0.5 * it;
  } else {
    in.reconfigure_loss_s = in.restart_loss_s;
    in.swap_loss_s = in.restart_loss_s;
  }
  in.short_probability = r.short_probability;
  in.short_groups = r.short_groups;
  in.damaged_domains = r.damaged_domains;
  // A domain with a failed GPU has its failed GPUs covered by its idle ones (shortage.h).
  in.in_domain_cover = shortage.in_domain_cover;
  in.spare_replicas =
      static_cast<double>(static_cast<int64_t>(l.spare_domains) * l.groups_per_domain / l.pp);
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
