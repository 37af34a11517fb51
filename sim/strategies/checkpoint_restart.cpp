// checkpoint_restart: the classic. Every interrupting failure that hits the job rolls back to the
// last committed checkpoint and restarts; the job runs only with all R*P TP groups healthy,
// otherwise it stalls until repairs. A restart reschedules the job, so its TP groups are formed
// anew from the healthy GPUs of each domain: the domain's idle GPUs (G mod T) fill in for failed
// ones, and spare domains replace damaged domains when use_spare_domains allows.
#include "sim/strategies/plugin.h"

namespace ntpsim::sim {
namespace {

class CheckpointRestart final : public Strategy {
 public:
  CheckpointRestart(const std::string& label, MembershipRules rules, const ShapeContext& ctx)
      : Strategy("checkpoint_restart", label, std::move(rules), ctx) {}

  JobShape shape(const std::vector<int32_t>& hist) const override {
    if (hist[ctx().tp] < ctx().job_groups) return JobShape{};
    return full_shape();
  }
  RecoveryKind recovery(Coverage) const override { return RecoveryKind::kRestart; }
};

std::unique_ptr<Strategy> make(const std::string& label, const StrategyParams& p,
                               const ShapeContext& ctx) {
  MembershipRules r;
  r.degree_by_failed.assign(ctx.tp + 1, 0);
  r.degree_by_failed[0] = ctx.tp;
  r.use_spare_domains = p.flag("use_spare_domains");
  r.in_domain_spares = true;  // a restart re-forms groups from any healthy GPUs of the domain
  r.needs_full_job = true;
  return std::make_unique<CheckpointRestart>(label, std::move(r), ctx);
}

// Every interruption costs a restart; the job runs only while the cluster has enough groups.
double screen(const ScreenInputs& in, const StrategyParams&) {
  const double avail = 1 - in.short_probability;
  return (1 - in.interruptions_per_s * in.restart_loss_s) * avail;
}

StrategyPlugin plugin() {
  StrategyPlugin p;
  p.info = {"checkpoint_restart",
            "Any interrupting failure rolls back to the last checkpoint and restarts; needs "
            "R*P healthy TP groups, uses spare domains, else stalls until repairs",
            {{"use_spare_domains",
              ParamKind::kBool,
              "replace failed domains with spare domains at restart",
              "",
              "true",
              0,
              0,
              {}}},
            "restart"};
  p.make = [](const std::string& label, const StrategyParams& params,
              const StrategyBuildContext& ctx) -> Result<std::unique_ptr<Strategy>> {
    return make(label, params, ctx.shape);
  };
  p.screen = screen;
  p.serves_as_fallback = true;
  p.restarts_always = true;
  return p;
}

NTPSIM_REGISTER_STRATEGY(plugin())

}  // namespace
}  // namespace ntpsim::sim
