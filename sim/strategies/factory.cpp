// make_strategy: from a scenario's StrategyConfig to a Strategy object, through the factory the
// strategy registered (plugin.h). No strategy is named here.
#include <fmt/format.h>

#include "sim/strategies/plugin.h"
#include "sim/strategies/strategy.h"

namespace ntpsim::sim {

JobShape Strategy::full_shape() const {
  JobShape s;
  s.rate = 1.0;
  s.rate_no_reshard = 1.0;
  s.iteration_s = ctx_.healthy_iteration_s;
  s.running_gpus = ctx_.job_groups * ctx_.tp;
  s.power_w = static_cast<double>(s.running_gpus) * ctx_.nominal_gpu_power_w;
  s.active_replicas = ctx_.dp;
  return s;
}

Result<std::unique_ptr<Strategy>> make_strategy(const StrategyConfig& cfg,
                                                const StrategyBuildContext& ctx) {
  if (!cfg.chain.empty()) {
    return make_chain_strategy(cfg.name, cfg.label.empty() ? cfg.name : cfg.label, cfg.chain, ctx);
  }
  auto params = StrategyParams::make(cfg);
  if (!params.ok()) return params.error();
  const StrategyPlugin* plugin = find_strategy_plugin(cfg.name);
  if (plugin == nullptr) {
    return Error::bad_input(fmt::format("strategies: no implementation for '{}'", cfg.name));
  }
  return plugin->make(cfg.label.empty() ? cfg.name : cfg.label, *params, ctx);
}

Result<double> screen_strategy(const ScreenInputs& in, const StrategyConfig& cfg) {
  if (!cfg.chain.empty()) return screen_chain(in, cfg.chain);
  auto params = StrategyParams::make(cfg);
  if (!params.ok()) return params.error();
  const StrategyPlugin* plugin = find_strategy_plugin(cfg.name);
  if (plugin == nullptr) {
    return Error::bad_input(fmt::format("strategies: no implementation for '{}'", cfg.name));
  }
  return plugin->screen(in, *params);
}

Result<std::unique_ptr<Strategy>> make_strategy(const StrategyConfig& cfg,
                                                const models::StepModel& model,
                                                const JobLayout& layout,
                                                const models::HardwareProfile& hardware) {
  if (cfg.chain.empty()) {
    auto params = StrategyParams::make(cfg);
    if (!params.ok()) return params.error();
  }
  if (model.nominal_tp() != layout.tp) {
    return Error::runtime(fmt::format("step model TP {} differs from the layout's TP {}",
                                      model.nominal_tp(), layout.tp));
  }
  ShapeContext shape;
  shape.tp = layout.tp;
  shape.pp = layout.pp;
  shape.dp = layout.dp;
  shape.job_groups = layout.job_groups;
  shape.healthy_iteration_s = model.healthy_iteration_s();
  shape.nominal_gpu_power_w = model.gpu_power_w(1.0);
  if (!(shape.healthy_iteration_s > 0)) {
    return Error::bad_input("step model: the healthy iteration time is not positive");
  }
  return make_strategy(cfg, StrategyBuildContext{model, layout, hardware, shape});
}

}  // namespace ntpsim::sim
