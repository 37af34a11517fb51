// A prepared simulation (DESIGN.md §3): everything a replication needs, built once from a
// Scenario, in the one order every caller used to repeat by hand:
//   job layout -> topology -> step model -> trace -> expected interruption rate -> engine config
//   -> strategies and their checkpoint intervals -> a probe failure source (bad failure
//   parameters show up here).
// `ntpsim run`, `sweep`, the planner's screen and confirm stages, `ntpsim validate` and the
// benchmarks all start from one; replications then run through sim/simulation/runner.h.
//
// Ownership: a Simulation owns its copy of the scenario and every part built from it (the step
// model, topology, trace and strategies); the strategies refer to the step model and layout it
// holds, so a Simulation neither copies nor moves: prepare() hands out a shared_ptr to const.
// Thread safety: immutable after prepare(); any number of threads may read it and call
// failure_source() at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "models/step_model.h"
#include "sim/cluster/layout.h"
#include "sim/cluster/topology.h"
#include "sim/engine/engine.h"
#include "sim/failures/failure_source.h"
#include "sim/scenario/scenario.h"
#include "sim/strategies/strategy.h"

namespace ntpsim::sim {

// What the last prepare() built from a few of its scenario's inputs, kept for the next prepare()
// with the same ones: the Topology (it depends on the five ClusterConfig sizes compared here)
// and the step model (on the model kind, workload, layout and hardware profile, compared whole).
// Both are immutable, so the kept one is the value a new build would give. The planner prepares
// one Simulation per candidate, enumerates clusters in its outer loops and checkpoint intervals
// and strategies in its inner ones, so one kept entry of each serves most candidates while
// memory stays one of each.
// Thread safety: none; one thread uses a cache at a time.
class PrepareCache {
 public:
  // The kept topology when `c` has its sizes, else a newly built one (then kept instead). Errors
  // are Topology::build's, never kept.
  Result<std::shared_ptr<const Topology>> topology(const ClusterConfig& c);
  // The kept step model when `s` has its kind, workload, layout and hardware, else a newly made
  // one (then kept instead). Errors are make_scenario_step_model's, never kept.
  Result<std::shared_ptr<const models::StepModel>> step_model(const Scenario& s);

 private:
  ClusterConfig config_;
  std::shared_ptr<const Topology> topology_;
  std::string model_kind_;
  models::Workload workload_;
  models::Layout layout_;
  models::HardwareProfile hardware_;
  std::shared_ptr<const models::StepModel> model_;
};

class Simulation {
 public:
  // Errors (bad input) as the first failing step gives them: an impossible layout, a bad cluster,
  // an unknown step model or one with no positive healthy iteration time, an unreadable trace, a
  // bad checkpoint or budget setting, no strategy or a bad strategy parameter, bad failure
  // process parameters.
  // With `cache`, the topology and the step model come from it (identical to newly built ones:
  // the same inputs give the same tables); null builds both for this simulation alone.
  // `use` kScreen builds the strategies for the planner's closed-form screen only (strategy.h,
  // StrategyUse): every value above is the same, and errors are the same, but such a simulation
  // cannot run replications.
  static Result<std::shared_ptr<const Simulation>> prepare(const Scenario& scenario,
                                                           PrepareCache* cache = nullptr,
                                                           StrategyUse use = StrategyUse::kRun);

  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;
  ~Simulation();

  const Scenario& scenario() const { return scenario_; }
  const JobLayout& layout() const { return layout_; }
  const Topology& topology() const { return *topology_; }
  const models::StepModel& step_model() const { return *model_; }
  // The loaded trace; null when the scenario replays none.
  const std::shared_ptr<const TraceData>& trace() const { return trace_; }
  const EngineConfig& engine_config() const { return config_; }
  // In scenario order.
  const std::vector<std::unique_ptr<Strategy>>& strategies() const { return strategies_; }
  // kRun unless prepared for the screen alone; only kRun simulations run replications.
  StrategyUse use() const { return use_; }
  // The strategy with this label (or name); -1 when absent.
  int strategy_index(const std::string& label) const;

  // Healthy iteration time of the step model (> 0) and the ideal token rate it gives.
  double healthy_iteration_s() const { return healthy_iteration_s_; }
  double ideal_tokens_per_s() const { return ideal_tokens_per_s_; }
  // Expected job interruptions per second (Young/Daly's 1/M; expected_interruption_rate_per_s).
  double interruption_rate_per_s() const { return interruption_rate_per_s_; }
  // Strategy k's expected rollbacks per second (rollback_rate_per_s, from the interruption rate
  // and the cluster-shortage closed form, shortage.h) and the checkpoint interval it runs at
  // (EngineConfig::interval_s_for: its own under `interval: auto` per strategy, else the shared
  // or fixed one). REQUIRES: 0 <= k < strategies().size().
  double rollback_rate_per_s(size_t k) const { return rollback_rates_.at(k); }
  double checkpoint_interval_s(size_t k) const { return intervals_s_.at(k); }
  Duration checkpoint_interval(size_t k) const { return intervals_.at(k); }
  // Failure events one replication is expected to draw: its stochastic processes
  // (expected_process_failures) and the trace's faults, looped over the run when it loops.
  double expected_failures_per_replication() const;

  // Replication `replication`'s failure source (seed from the scenario). Cannot fail for a
  // replication other than the probe's: the parameters were checked by prepare().
  Result<FailureSource> failure_source(uint64_t replication) const;

 private:
  Simulation() = default;

  StrategyUse use_ = StrategyUse::kRun;
  Scenario scenario_;
  JobLayout layout_;
  std::shared_ptr<const Topology> topology_;  // shared with a PrepareCache, never null
  std::shared_ptr<const models::StepModel> model_;
  std::shared_ptr<const TraceData> trace_;
  EngineConfig config_;
  std::vector<std::unique_ptr<Strategy>> strategies_;
  double healthy_iteration_s_ = 0;
  double ideal_tokens_per_s_ = 0;
  double interruption_rate_per_s_ = 0;
  std::vector<double> rollback_rates_;  // per strategy
  std::vector<double> intervals_s_;     // per strategy
  std::vector<Duration> intervals_;     // the same as the engine runs them
};

}  // namespace ntpsim::sim
