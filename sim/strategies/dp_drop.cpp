// dp_drop: replicas with a damaged TP group leave the job; the healthy groups are repacked into as
// many whole replicas as possible (at most R) after a reconfiguration pause; repaired groups
// rejoin at the next reconfiguration (the engine reconfigures when a repair completes a replica).
// keep_global_batch: the remaining A replicas carry the whole batch, so an iteration takes R/A
// times longer (a lost in-flight iteration costs the full batch); otherwise the batch shrinks.
// Throughput is A/R of the ideal either way.
#include <algorithm>

#include "sim/strategies/plugin.h"

namespace ntpsim::sim {
namespace {

class DpDrop final : public Strategy {
 public:
  DpDrop(const std::string& label, MembershipRules rules, const ShapeContext& ctx, bool keep)
      : Strategy("dp_drop", label, std::move(rules), ctx), keep_global_batch_(keep) {}

  JobShape shape(const std::vector<int32_t>& hist) const override {
    const int replicas =
        static_cast<int>(std::min<int64_t>(hist[ctx().tp] / ctx().pp, ctx().dp));
    if (replicas == 0) return JobShape{};
    if (replicas == ctx().dp) return full_shape();
    JobShape s;
    s.active_replicas = replicas;
    s.batch_replicas = replicas;
    s.rate = static_cast<double>(replicas) / ctx().dp;
    s.rate_no_reshard = s.rate;
    s.iteration_s = keep_global_batch_ ? ctx().healthy_iteration_s / s.rate
                                       : ctx().healthy_iteration_s;
    s.running_gpus = static_cast<int64_t>(replicas) * ctx().pp * ctx().tp;
    s.power_w = static_cast<double>(s.running_gpus) * ctx().nominal_gpu_power_w;
    return s;
  }
  RecoveryKind recovery(Coverage) const override { return RecoveryKind::kReconfigure; }

 private:
  bool keep_global_batch_;
};

std::unique_ptr<Strategy> make(const std::string& label, const StrategyParams& p,
                               const ShapeContext& ctx) {
  MembershipRules r;
  r.degree_by_failed.assign(ctx.tp + 1, 0);
  r.degree_by_failed[0] = ctx.tp;
  r.use_spare_domains = p.flag("use_spare_domains");
  r.needs_full_job = false;
  return std::make_unique<DpDrop>(label, std::move(r), ctx, p.flag("keep_global_batch"));
}

// Every interruption costs a reconfiguration; the replicas the cluster is short of are dropped.
double screen(const ScreenInputs& in, const StrategyParams&) {
  return (1 - in.interruptions_per_s * in.reconfigure_loss_s) *
         std::max(0.0, 1 - in.short_groups / in.dp);
}

StrategyPlugin plugin() {
  StrategyPlugin p;
  p.info = {"dp_drop",
            "Damaged DP replicas leave; healthy domains are repacked into full replicas; "
            "repaired domains rejoin at the next reconfiguration",
            {{"keep_global_batch",
              ParamKind::kBool,
              "true: remaining replicas carry the whole global batch (more accumulation, "
              "slower iterations); false: the global batch shrinks with the replicas",
              "",
              "true",
              0,
              0,
              {}},
             {"use_spare_domains",
              ParamKind::kBool,
              "spare domains fill in for dropped ones at reconfiguration",
              "",
              "true",
              0,
              0,
              {}}},
            "drop_replica"};
  p.make = [](const std::string& label, const StrategyParams& params,
              const StrategyBuildContext& ctx) -> Result<std::unique_ptr<Strategy>> {
    return make(label, params, ctx.shape);
  };
  p.screen = screen;
  p.serves_as_fallback = true;
  return p;
}

NTPSIM_REGISTER_STRATEGY(plugin())

}  // namespace
}  // namespace ntpsim::sim
