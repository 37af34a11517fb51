// make_strategy: from a scenario's StrategyConfig to a Strategy object (strategy.h).
#include <fmt/format.h>

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

namespace {

Result<std::unique_ptr<Strategy>> build(const std::string& name, const std::string& label,
                                        const StrategyParams& p, const ShapeContext& ctx,
                                        const models::StepModel& model, const JobLayout& layout,
                                        const models::HardwareProfile& hw) {
  if (name == "checkpoint_restart") return make_checkpoint_restart(label, p, ctx);
  if (name == "dp_drop") return make_dp_drop(label, p, ctx);
  if (name == "ntp" || name == "ntp_power_boost") {
    return make_ntp(name, label, p, ctx, model, layout.idle_per_domain, hw.idle_power_w);
  }
  if (name == "spare_substitution") {
    const std::string& fb = p.choice("fallback");
    auto fb_params = StrategyParams::make(StrategyConfig{fb, fb, {}});
    if (!fb_params.ok()) return fb_params.error();
    auto fallback = build(fb, fb, *fb_params, ctx, model, layout, hw);
    if (!fallback.ok()) return fallback.error();
    return make_spare_substitution(label, p, std::move(fallback.value()));
  }
  return Error::bad_input(fmt::format("strategies: no implementation for '{}'", name));
}

}  // namespace

Result<std::unique_ptr<Strategy>> make_strategy(const StrategyConfig& cfg,
                                                const models::StepModel& model,
                                                const JobLayout& layout,
                                                const models::HardwareProfile& hardware) {
  auto params = StrategyParams::make(cfg);
  if (!params.ok()) return params.error();
  if (model.nominal_tp() != layout.tp) {
    return Error::runtime(fmt::format("step model TP {} differs from the layout's TP {}",
                                      model.nominal_tp(), layout.tp));
  }
  ShapeContext ctx;
  ctx.tp = layout.tp;
  ctx.pp = layout.pp;
  ctx.dp = layout.dp;
  ctx.job_groups = layout.job_groups;
  ctx.healthy_iteration_s = model.healthy_iteration_s();
  ctx.nominal_gpu_power_w = model.gpu_power_w(1.0);
  if (!(ctx.healthy_iteration_s > 0)) {
    return Error::bad_input("step model: the healthy iteration time is not positive");
  }
  return build(cfg.name, cfg.label.empty() ? cfg.name : cfg.label, *params, ctx, model, layout,
               hardware);
}

}  // namespace ntpsim::sim
