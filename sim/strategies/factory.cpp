// make_strategy: from a scenario's StrategyConfig to a Strategy object, through the factory the
// strategy registered (plugin.h). No strategy is named here.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

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
  s.batch_replicas = ctx_.dp;
  return s;
}

JobShape with_spare_replicas(JobShape s, int64_t available, const ShapeContext& c) {
  if (available <= 0 || s.batch_replicas <= 0 || s.batch_replicas >= c.dp) return s;
  // The least whole replicas that make up the deficit (a share within 1e-9 of whole counts as
  // whole, so that rounding in the shares never calls in a replica that adds nothing).
  const double deficit = c.dp - s.batch_replicas;
  const int64_t used =
      std::min<int64_t>(available, static_cast<int64_t>(std::ceil(deficit - 1e-9)));
  if (used <= 0) return s;
  const double batch = std::min<double>(c.dp, s.batch_replicas + static_cast<double>(used));
  const double scale = batch / s.batch_replicas;
  s.rate *= scale;
  s.rate_no_reshard *= scale;
  s.batch_replicas = batch;
  const int64_t gpus = used * c.pp * c.tp;
  s.running_gpus += gpus;
  s.power_w += static_cast<double>(gpus) * c.nominal_gpu_power_w;
  s.active_replicas += static_cast<int>(used);
  return s;
}

const char* to_string(Resume r) {
  switch (r) {
    case Resume::kRestartFromCheckpoint:
      return "restart_from_checkpoint";
    case Resume::kRestartFromMemory:
      return "restart_from_memory";
    case Resume::kInPlace:
      return "in_place";
  }
  return "in_place";
}

const char* to_string(StateCopy c) {
  switch (c) {
    case StateCopy::kPeer:
      return "peer";
    case StateCopy::kReplicated:
      return "replicated";
    case StateCopy::kNone:
      return "none";
  }
  return "peer";
}

Result<ResumeSpec> resume_spec(const StrategyConfig& cfg) {
  std::vector<ParamSpec> specs;
  if (!cfg.chain.empty()) {
    std::vector<std::string> actions;
    for (const auto& step : cfg.chain) actions.push_back(step.action);
    specs = chain_resume_param_specs(actions);
  } else if (const StrategyInfo* info = find_strategy(cfg.name)) {
    specs = info->params;
  } else {
    return Error::bad_input(fmt::format("strategies: unknown strategy '{}'", cfg.name));
  }
  std::map<std::string, ParamValue> values;
  for (const auto& spec : specs) {
    if (std::find(std::begin(kResumeParamNames), std::end(kResumeParamNames), spec.name) ==
        std::end(kResumeParamNames)) {
      continue;
    }
    const auto it = cfg.params.find(spec.name);
    if (it != cfg.params.end()) {
      if (spec.kind == ParamKind::kChoice &&
          (!std::holds_alternative<std::string>(it->second) ||
           std::find(spec.choices.begin(), spec.choices.end(), std::get<std::string>(it->second)) ==
               spec.choices.end())) {
        return Error::bad_input(
            fmt::format("strategy {}: {} must be one of the listed choices", cfg.name, spec.name));
      }
      values.emplace(spec.name, it->second);
    } else if (spec.kind == ParamKind::kChoice) {
      values.emplace(spec.name, spec.default_text);
    } else {
      values.emplace(spec.name, spec.default_text == "true");
    }
  }
  if (auto problem = check_resume(values)) {
    return Error::bad_input(
        fmt::format("strategy {}: {}: {}", cfg.name, problem->first, problem->second));
  }
  ResumeSpec r;
  const std::string& mech = std::get<std::string>(values.at("resume"));
  r.mechanism = mech == "restart_from_checkpoint" ? Resume::kRestartFromCheckpoint
                : mech == "restart_from_memory"   ? Resume::kRestartFromMemory
                                                  : Resume::kInPlace;
  const std::string& copy = std::get<std::string>(values.at("state_copy"));
  r.state_copy = copy == "replicated" ? StateCopy::kReplicated
                 : copy == "none"     ? StateCopy::kNone
                                      : StateCopy::kPeer;
  r.allow_lost_state = std::get<bool>(values.at("allow_lost_state"));
  return r;
}

Result<std::unique_ptr<Strategy>> make_strategy(const StrategyConfig& cfg,
                                                const StrategyBuildContext& ctx) {
  auto resume = resume_spec(cfg);
  if (!resume.ok()) return resume.error();
  Result<std::unique_ptr<Strategy>> built = [&]() -> Result<std::unique_ptr<Strategy>> {
    if (!cfg.chain.empty()) {
      return make_chain_strategy(cfg.name, cfg.label.empty() ? cfg.name : cfg.label, cfg.chain,
                                 ctx);
    }
    auto params = StrategyParams::make(cfg);
    if (!params.ok()) return params.error();
    const StrategyPlugin* plugin = find_strategy_plugin(cfg.name);
    if (plugin == nullptr) {
      return Error::bad_input(fmt::format("strategies: no implementation for '{}'", cfg.name));
    }
    return plugin->make(cfg.label.empty() ? cfg.name : cfg.label, *params, ctx);
  }();
  if (!built.ok()) return built.error();
  (*built)->resume_ = *resume;
  return built;
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
                                                const models::HardwareProfile& hardware,
                                                int state_min_tp, StrategyUse use) {
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
  return make_strategy(cfg,
                       StrategyBuildContext{model, layout, hardware, shape, state_min_tp, use});
}

}  // namespace ntpsim::sim
