// checkpoint_restart: the classic. Every interrupting failure that hits the job rolls back to the
// last committed checkpoint and restarts; the job runs only with all R*P TP groups healthy,
// otherwise it stalls until repairs. A restart reschedules the job, so its TP groups are formed
// anew from the healthy GPUs of each domain: the domain's idle GPUs (G mod T) fill in for failed
// ones, and spare domains replace damaged domains when use_spare_domains allows.
#include "sim/strategies/strategy.h"

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
  RecoveryKind recovery(bool) const override { return RecoveryKind::kRestart; }
};

}  // namespace

std::unique_ptr<Strategy> make_checkpoint_restart(const std::string& label,
                                                  const StrategyParams& p,
                                                  const ShapeContext& ctx) {
  MembershipRules r;
  r.degree_by_failed.assign(ctx.tp + 1, 0);
  r.degree_by_failed[0] = ctx.tp;
  r.use_spare_domains = p.flag("use_spare_domains");
  r.in_domain_spares = true;  // a restart re-forms groups from any healthy GPUs of the domain
  r.needs_full_job = true;
  return std::make_unique<CheckpointRestart>(label, std::move(r), ctx);
}

}  // namespace ntpsim::sim
