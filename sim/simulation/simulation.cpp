#include "sim/simulation/simulation.h"

#include <fmt/format.h>

#include <utility>

#include "models/memory_model.h"
#include "sim/engine/checkpoint_interval.h"
#include "sim/failures/trace.h"
#include "sim/scenario/loader.h"
#include "sim/simulation/shortage.h"

namespace ntpsim::sim {

namespace {

// The smallest TP degree a strategy resuming in place may run at once its copy of the optimizer
// state is in memory (0 = no copy: the step model's own bound). Bad input when the copy does
// not fit at the nominal degree.
Result<int> state_copy_min_tp(const Scenario& s, const StrategyConfig& sc, const ResumeSpec& r) {
  if (r.mechanism != Resume::kInPlace || r.state_copy == StateCopy::kNone) return 0;
  const auto copies = r.state_copy == StateCopy::kPeer ? models::OptimizerCopies::kShardedPeerCopy
                                                       : models::OptimizerCopies::kReplicated;
  // Only where the memory model bounds the layout at all (it fits without the copy; a profile
  // without HBM size or a layout already over it is the step model's to report).
  if (models::min_tp(s.workload, s.layout, s.hardware, true) == 0) return 0;
  const int fit = models::min_tp(s.workload, s.layout, s.hardware, true, copies);
  if (fit == 0) {
    const auto m = models::memory_at(s.workload, s.layout, s.hardware, s.layout.tp, true, copies);
    return Error::bad_input(fmt::format(
        "strategies: {}: resume: in_place with state_copy: {} needs {:.1f} GB per GPU at TP {} "
        "(optimizer state {:.1f} GB), more than the {:.1f} GB usable: the layout no longer fits; "
        "use a restart mechanism, another state_copy, or a layout with more GPUs per replica",
        sc.label.empty() ? sc.name : sc.label, to_string(r.state_copy), m.total_bytes / 1e9,
        s.layout.tp, m.optimizer_bytes / 1e9, m.usable_bytes / 1e9));
  }
  return fit;
}

}  // namespace

Result<std::shared_ptr<const Topology>> PrepareCache::topology(const ClusterConfig& c) {
  const bool same =
      topology_ != nullptr && c.domains == config_.domains &&
      c.gpus_per_domain == config_.gpus_per_domain && c.spare_domains == config_.spare_domains &&
      c.gpus_per_node == config_.gpus_per_node && c.domains_per_pod == config_.domains_per_pod;
  if (same) return topology_;
  auto topo = Topology::build(c);
  if (!topo.ok()) return topo.error();
  config_ = c;
  topology_ = std::make_shared<const Topology>(std::move(*topo));
  return topology_;
}

Result<std::shared_ptr<const models::StepModel>> PrepareCache::step_model(const Scenario& s) {
  const bool same = model_ != nullptr && s.step_model == model_kind_ && s.layout == layout_ &&
                    s.workload == workload_ && s.hardware == hardware_;
  if (same) return model_;
  auto model = make_scenario_step_model(s);
  if (!model.ok()) return model.error();
  model_kind_ = s.step_model;
  workload_ = s.workload;
  layout_ = s.layout;
  hardware_ = s.hardware;
  model_ = std::move(*model);
  return model_;
}

Simulation::~Simulation() = default;

Result<std::shared_ptr<const Simulation>> Simulation::prepare(const Scenario& scenario,
                                                              PrepareCache* cache,
                                                              StrategyUse use) {
  // Not make_shared: the constructor is private.
  std::shared_ptr<Simulation> sim(new Simulation());
  sim->scenario_ = scenario;
  sim->use_ = use;
  const Scenario& s = sim->scenario_;
  auto layout = JobLayout::make(s);
  if (!layout.ok()) return layout.error();
  sim->layout_ = *layout;
  PrepareCache own;  // no cache given: a topology and a step model for this simulation alone
  PrepareCache& parts = cache != nullptr ? *cache : own;
  auto topo = parts.topology(s.cluster);
  if (!topo.ok()) return topo.error();
  sim->topology_ = std::move(*topo);
  auto model = parts.step_model(s);
  if (!model.ok()) return model.error();
  sim->model_ = *model;
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
    auto resume = resume_spec(sc);
    if (!resume.ok()) return resume.error();
    auto state_min_tp = state_copy_min_tp(s, sc, *resume);
    if (!state_min_tp.ok()) return state_min_tp.error();
    auto st = make_strategy(sc, *sim->model_, sim->layout_, s.hardware, *state_min_tp, use);
    if (!st.ok()) return st.error();
    const bool needs_derived_cost =
        (resume->mechanism == Resume::kInPlace && !s.recovery.state_transfer_s) ||
        (resume->mechanism == Resume::kRestartFromMemory && !s.checkpoint.memory.restore_s);
    if (needs_derived_cost && !sim->config_.state_cost_unknown.empty()) {
      return Error::bad_input(fmt::format("strategies: {}: resume: {}: {}", (*st)->label(),
                                          to_string(resume->mechanism),
                                          sim->config_.state_cost_unknown));
    }
    sim->strategies_.push_back(std::move(*st));
  }
  const Shortage shortage = expected_shortage(s, sim->layout_);
  for (const auto& st : sim->strategies_) {
    const double rate =
        sim::rollback_rate_per_s(*st, sim->interruption_rate_per_s_, shortage.short_probability,
                                 shortage.in_domain_cover);
    const Resume resume = st->resume().mechanism;
    const double interval_s = sim->config_.interval_s_for(rate, resume);
    sim->rollback_rates_.push_back(rate);
    sim->intervals_s_.push_back(interval_s);
    // The shared interval is the config's own Duration, so a shared run is unchanged; in-memory
    // snapshots always run at their own interval.
    sim->intervals_.push_back(sim->config_.per_strategy_interval ||
                                      resume == Resume::kRestartFromMemory
                                  ? Duration::from_seconds(interval_s)
                                  : sim->config_.checkpoint_interval);
  }
  // Bad failure parameters show up here, before any replication runs.
  NTPSIM_RETURN_IF_ERROR(FailureSource::check(s, *sim->topology_, sim->trace_.get()));
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
