#include "sim/simulation/simulation.h"

#include <utility>

#include "sim/engine/checkpoint_interval.h"
#include "sim/failures/trace.h"
#include "sim/scenario/loader.h"
#include "sim/simulation/shortage.h"

namespace ntpsim::sim {

Simulation::~Simulation() = default;

Result<std::shared_ptr<const Simulation>> Simulation::prepare(const Scenario& scenario) {
  // Not make_shared: the constructor is private.
  std::shared_ptr<Simulation> sim(new Simulation());
  sim->scenario_ = scenario;
  const Scenario& s = sim->scenario_;
  auto layout = JobLayout::make(s);
  if (!layout.ok()) return layout.error();
  sim->layout_ = *layout;
  auto topo = Topology::build(s.cluster);
  if (!topo.ok()) return topo.error();
  sim->topology_.emplace(std::move(*topo));
  auto model = make_scenario_step_model(s);
  if (!model.ok()) return model.error();
  sim->model_ = std::move(*model);
  if (s.failures.trace) {
    auto trace = load_trace(*s.failures.trace);
    if (!trace.ok()) return trace.error();
    sim->trace_ = *trace;
  }
  sim->interruption_rate_per_s_ = expected_interruption_rate_per_s(
      s, *sim->topology_, sim->layout_.job_gpus, sim->trace_.get());
  sim->healthy_iteration_s_ = sim->model_->healthy_iteration_s();
  if (!(sim->healthy_iteration_s_ > 0)) {
    return Error::bad_input("step model: healthy iteration time is not positive");
  }
  sim->ideal_tokens_per_s_ = s.workload.tokens_per_iteration() / sim->healthy_iteration_s_;
  auto cfg =
      EngineConfig::make(s, sim->layout_, sim->interruption_rate_per_s_, sim->ideal_tokens_per_s_);
  if (!cfg.ok()) return cfg.error();
  sim->config_ = *cfg;
  if (s.strategies.empty()) return Error::bad_input("strategies: at least one is required");
  for (const auto& sc : s.strategies) {
    auto st = make_strategy(sc, *sim->model_, sim->layout_, s.hardware);
    if (!st.ok()) return st.error();
    sim->strategies_.push_back(std::move(*st));
  }
  const Shortage shortage = expected_shortage(s, sim->layout_);
  for (const auto& st : sim->strategies_) {
    const double rate =
        sim::rollback_rate_per_s(*st, sim->interruption_rate_per_s_, shortage.short_probability,
                                 shortage.in_domain_cover);
    const double interval_s = sim->config_.interval_s_for(rate);
    sim->rollback_rates_.push_back(rate);
    sim->intervals_s_.push_back(interval_s);
    // The shared interval is the config's own Duration, so a shared run is unchanged.
    sim->intervals_.push_back(sim->config_.per_strategy_interval
                                  ? Duration::from_seconds(interval_s)
                                  : sim->config_.checkpoint_interval);
  }
  // Bad failure parameters show up here, before any replication runs.
  auto probe = sim->failure_source(0);
  if (!probe.ok()) return probe.error();
  return std::shared_ptr<const Simulation>(std::move(sim));
}

int Simulation::strategy_index(const std::string& label) const {
  for (size_t i = 0; i < strategies_.size(); ++i) {
    if (strategies_[i]->label() == label || strategies_[i]->name() == label) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

double Simulation::expected_failures_per_replication() const {
  double n = expected_process_failures(scenario_);
  if (trace_ != nullptr && scenario_.failures.trace) {
    const auto faults = static_cast<double>(trace_->faults.size());
    const double period_s = trace_->span_s * scenario_.failures.trace->time_scale;
    const double run_s = config_.end.seconds();
    n += scenario_.failures.trace->loop && period_s > 0 ? faults * (run_s / period_s + 1) : faults;
  }
  return n;
}

Result<FailureSource> Simulation::failure_source(uint64_t replication) const {
  return FailureSource::make(scenario_, *topology_, trace_, scenario_.seed, replication);
}

}  // namespace ntpsim::sim
