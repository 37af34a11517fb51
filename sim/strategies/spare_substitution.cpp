// spare_substitution: a spare replaces the failed unit after a swap pause (detection +
// spare_swap_s, only the in-flight iteration lost): first the damaged domain's own idle GPUs
// (G mod T of them, e.g. 8 of 72 with TP 64), then a free healthy TP group (spare domains, or
// unused groups of job domains). When the spares cannot make the job whole again, the fallback
// strategy decides the degrees, the shape and the recovery (e.g. checkpoint_restart: roll back and
// restart, or stall). The engine picks the groups; this class only states the rules.
#include "sim/strategies/strategy.h"

namespace ntpsim::sim {
namespace {

class SpareSubstitution final : public Strategy {
 public:
  SpareSubstitution(const std::string& label, MembershipRules rules,
                    std::unique_ptr<Strategy> fallback, const ShapeContext& ctx)
      : Strategy("spare_substitution", label, std::move(rules), ctx),
        fallback_(std::move(fallback)) {}

  JobShape shape(const std::vector<int32_t>& hist) const override {
    return fallback_->shape(hist);
  }
  RecoveryKind recovery(bool job_whole) const override {
    return job_whole ? RecoveryKind::kSwap : fallback_->recovery(false);
  }
  double power_ratio(int degree) const override { return fallback_->power_ratio(degree); }

 private:
  std::unique_ptr<Strategy> fallback_;
};

}  // namespace

std::unique_ptr<Strategy> make_spare_substitution(const std::string& label,
                                                  const StrategyParams& p,
                                                  std::unique_ptr<Strategy> fallback) {
  MembershipRules r = fallback->rules();
  r.in_domain_spares = p.flag("in_domain_spares");
  r.use_spare_domains = p.flag("spare_domains");
  const ShapeContext ctx = fallback->shape_context();
  return std::make_unique<SpareSubstitution>(label, std::move(r), std::move(fallback), ctx);
}

}  // namespace ntpsim::sim
