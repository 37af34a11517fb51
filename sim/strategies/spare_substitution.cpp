// spare_substitution: a spare replaces the failed unit after a swap pause (detection +
// spare_swap_s, only the in-flight iteration lost): first the damaged domain's own idle GPUs
// (G mod T of them, e.g. 8 of 72 with TP 64), then a free healthy TP group (spare domains, or
// unused groups of job domains). When the spares cannot make the job whole again, the fallback
// strategy decides the degrees, the shape and the recovery (e.g. checkpoint_restart: roll back and
// restart, or stall). The engine picks the groups; this class only states the rules.
#include "sim/strategies/plugin.h"

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
  JobShape shape_counted(const std::vector<int32_t>& hist, int64_t usable) const override {
    return fallback_->shape_counted(hist, usable);
  }
  RecoveryKind recovery(Coverage c) const override {
    return c != Coverage::kShort ? RecoveryKind::kSwap : fallback_->recovery(Coverage::kShort);
  }
  double power_ratio(int degree) const override { return fallback_->power_ratio(degree); }

 private:
  std::unique_ptr<Strategy> fallback_;
};

Result<std::unique_ptr<Strategy>> make(const std::string& label, const StrategyParams& p,
                                       const StrategyBuildContext& ctx) {
  const std::string& fb = p.choice("fallback");
  auto fallback = make_strategy(StrategyConfig{fb, fb, {}, {}}, ctx);
  if (!fallback.ok()) return fallback.error();
  MembershipRules r = (*fallback)->rules();
  r.in_domain_spares = p.flag("in_domain_spares");
  r.use_spare_domains = p.flag("spare_domains");
  const ShapeContext shape = (*fallback)->shape_context();
  return std::unique_ptr<Strategy>(
      std::make_unique<SpareSubstitution>(label, std::move(r), std::move(fallback.value()), shape));
}

// A swap while the cluster has spares for the job, a restart when it is short.
double screen(const ScreenInputs& in, const StrategyParams&) {
  const double avail = 1 - in.short_probability;
  return (1 - in.interruptions_per_s *
                  (avail * in.swap_loss_s + in.short_probability * in.restart_loss_s)) *
         avail;
}

StrategyPlugin plugin() {
  StrategyPlugin p;
  ParamSpec fallback{"fallback", ParamKind::kChoice, "strategy used when no spare is left", "",
                     "checkpoint_restart", 0, 0, {}};
  fallback.choices_are_fallbacks = true;
  p.info = {"spare_substitution",
            "A spare (in-domain GPU, or whole domain) replaces the failed unit after a swap "
            "pause; with no spare left, falls back to another strategy",
            {{"in_domain_spares",
              ParamKind::kBool,
              "use the domain's idle GPUs (G mod T, e.g. 8 of 72 with TP 64) as spares",
              "",
              "true",
              0,
              0,
              {}},
             {"spare_domains", ParamKind::kBool, "use spare domains", "", "true", 0, 0, {}},
             fallback},
            "swap_in_domain -> replace_with_spare_domain -> the fallback's action (restart for "
            "checkpoint_restart)"};
  p.make = make;
  p.screen = screen;
  return p;
}

NTPSIM_REGISTER_STRATEGY(plugin())

}  // namespace
}  // namespace ntpsim::sim
