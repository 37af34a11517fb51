// A strategy that exists only in tests, written as a new strategy file would be (plugin.h): its
// class, its parameter table, its factory and its screen hook, registered here and named nowhere
// else. It is linked into the plug-in test and into a copy of `ntpsim` built for the test, so the
// registry, the scenario reader, the engine, the planner's screen and `ntpsim strategies` must
// all find it without an edit elsewhere.
//
// test_whole_or_stall: the job runs only whole (every TP group healthy), recovers an interruption
// by an in-place reconfiguration, and states its screened goodput as a parameter.
#include "sim/strategies/plugin.h"

namespace ntpsim::sim {
namespace {

class WholeOrStall final : public Strategy {
 public:
  WholeOrStall(const std::string& label, MembershipRules rules, const ShapeContext& ctx)
      : Strategy("test_whole_or_stall", label, std::move(rules), ctx) {}

  JobShape shape(const std::vector<int32_t>& hist) const override {
    if (hist[ctx().tp] < ctx().job_groups) return JobShape{};
    return full_shape();
  }
  RecoveryKind recovery(Coverage) const override { return RecoveryKind::kReconfigure; }
};

StrategyPlugin plugin() {
  StrategyPlugin p;
  p.info = {"test_whole_or_stall",
            "Test only: runs whole or stalls; reconfigures in place; screens at a set goodput",
            {{"screened_goodput", ParamKind::kFraction, "what the planner's screen expects", "",
              "80%", 0, 1, {}}}};
  p.make = [](const std::string& label, const StrategyParams&,
              const StrategyBuildContext& ctx) -> Result<std::unique_ptr<Strategy>> {
    MembershipRules r;
    r.degree_by_failed.assign(ctx.shape.tp + 1, 0);
    r.degree_by_failed[0] = ctx.shape.tp;
    r.use_spare_domains = true;
    r.in_domain_spares = false;
    r.needs_full_job = true;
    return std::unique_ptr<Strategy>(
        std::make_unique<WholeOrStall>(label, std::move(r), ctx.shape));
  };
  p.screen = [](const ScreenInputs&, const StrategyParams& params) {
    return params.number("screened_goodput");
  };
  p.serves_as_fallback = true;
  return p;
}

NTPSIM_REGISTER_STRATEGY(plugin())

}  // namespace
}  // namespace ntpsim::sim
