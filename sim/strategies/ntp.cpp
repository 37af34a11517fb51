// ntp and ntp_power_boost: Nonuniform Tensor Parallelism (DESIGN.md §3.4 items 4 and 5).
//
// A TP group with k failed GPUs runs at t' = T - k rounded down to a multiple of tp_step, and is
// unusable below min_tp (0 = the step model's memory bound; a larger model bound wins). Rule
// `parity` (Megatron-LM): every damaged replica runs at one degree, the lowest among them.
// The job uses its healthy groups first, then damaged groups by decreasing degree; with `pack` the
// damaged groups are packed, sorted by degree, into as few replicas as possible (a replica runs
// at its slowest group's degree); without it they stay spread one per replica (the worst case).
// keep_pace: a damaged replica at degree t carries the largest batch share whose iteration time
// does not exceed the healthy one; otherwise it keeps its full share and the job runs at the
// slowest replica's pace. Healthy replicas pay StepModel::reshard_overhead_s(t) per iteration for
// the lowest damaged degree t.
// Power boost: a damaged group's GPUs run at the least power ratio that keeps a full share, capped
// by 1 + max_power (and the hardware's own cap) and, with domain_budget, by the domain's nominal
// power budget G x P(TDP) minus the other groups' nominal draw and the idle/failed GPUs' idle draw
// (assumes one damaged group per domain, the common case). Where the cap is not enough the share is
// reduced as in ntp at the capped power. Boost energy = extra power over nominal x time.
#include "sim/strategies/ntp.h"

#include <algorithm>

#include "models/base/check.h"
#include "sim/strategies/plugin.h"

namespace ntpsim::sim {
namespace {

class Ntp final : public Strategy {
 public:
  struct Options {
    bool parity = false;
    bool keep_pace = true;
    bool pack = true;
  };
  // Per degree d (index 0..T): what a damaged replica whose slowest group runs at d does.
  struct Table {
    std::vector<double> share;        // batch share it carries
    std::vector<double> iteration_s;  // its iteration time at that share and power
    std::vector<double> ratio;        // power ratio of its GPUs
    std::vector<double> reshard_s;    // reshard overhead on healthy replicas
    std::vector<double> extra_w;      // power above nominal per GPU
  };

  Ntp(const std::string& name, const std::string& label, MembershipRules rules,
      const ShapeContext& ctx, Options o, Table t)
      : Strategy(name, label, std::move(rules), ctx), opt_(o), table_(std::move(t)) {}

  JobShape shape(const std::vector<int32_t>& hist) const override {
    // Summed in 32 bits (the histogram counts group ids, which are 32-bit), so the loop
    // vectorises without widening.
    int32_t usable = 0;
    for (int d = 1; d <= shape_context().tp; ++d) usable += hist[d];
    return shape_counted(hist, usable);
  }

  JobShape shape_counted(const std::vector<int32_t>& hist, int64_t usable) const override {
    const ShapeContext& c = shape_context();
    const int T = c.tp;
    const int64_t replicas = std::min<int64_t>(usable / c.pp, c.dp);
    if (replicas == 0) return JobShape{};
    // The job uses the replicas*P groups of highest degree: all of degree > cut, `at_cut` of cut.
    int64_t need = replicas * c.pp;
    int cut = T;
    for (; cut >= 1; --cut) {
      if (hist[cut] >= need) break;
      need -= hist[cut];
    }
    const int64_t at_cut = need;
    auto used = [&](int d) -> int64_t { return d > cut ? hist[d] : (d == cut ? at_cut : 0); };
    // Below `cut` nothing is used: every loop below runs over [cut, T] only (usually 1-3 bins).

    JobShape s;
    s.active_replicas = static_cast<int>(replicas);
    int64_t damaged = 0;
    int lowest = T;
    double extra_w = 0.0;
    for (int d = cut; d < T; ++d) {
      const int64_t u = used(d);
      if (u == 0) continue;
      damaged += u;
      lowest = std::min(lowest, d);
      s.running_gpus += u * d;
      extra_w += static_cast<double>(u * d) * table_.extra_w[d];
    }
    s.running_gpus += used(T) * T;
    s.power_w = static_cast<double>(s.running_gpus) * c.nominal_gpu_power_w + extra_w;
    s.boost_power_w = extra_w;

    // Damaged replicas and their degrees, accumulated as (share sum, slowest iteration).
    double shares = 0.0;
    double slowest_s = c.healthy_iteration_s;
    int64_t damaged_replicas = 0;
    auto add_replicas = [&](int d, int64_t n) {
      if (n <= 0) return;
      damaged_replicas += n;
      shares += static_cast<double>(n) * table_.share[d];
      slowest_s = std::max(slowest_s, table_.iteration_s[d]);
    };
    if (damaged > 0) {
      const int64_t packed = (damaged + c.pp - 1) / c.pp;
      const int64_t spread = std::min<int64_t>(damaged, replicas);
      if (opt_.parity) {
        add_replicas(lowest, opt_.pack ? packed : spread);
      } else if (opt_.pack) {
        // Chunks of P groups in decreasing degree; a chunk runs at its lowest degree.
        int64_t fill = 0;  // groups in the open chunk
        int open_degree = T;
        for (int d = T - 1; d >= cut; --d) {
          int64_t u = used(d);
          if (u == 0) continue;
          if (fill > 0) {
            const int64_t take = std::min(u, c.pp - fill);
            fill += take;
            u -= take;
            open_degree = d;
            if (fill == c.pp) {
              add_replicas(open_degree, 1);
              fill = 0;
            }
          }
          add_replicas(d, u / c.pp);
          if (u % c.pp != 0) {
            fill = u % c.pp;
            open_degree = d;
          }
        }
        if (fill > 0) add_replicas(open_degree, 1);
      } else {
        // Spread: the `spread` lowest-degree groups each slow down a different replica.
        int64_t left = spread;
        for (int d = cut; d < T && left > 0; ++d) {
          const int64_t take = std::min(used(d), left);
          add_replicas(d, take);
          left -= take;
        }
      }
    }
    const double tokens = static_cast<double>(replicas - damaged_replicas) + shares;
    const double job_iter = opt_.keep_pace ? c.healthy_iteration_s : slowest_s;
    const double reshard = damaged_replicas > 0 ? table_.reshard_s[lowest] : 0.0;
    const double base = tokens / c.dp * c.healthy_iteration_s;
    s.batch_replicas = tokens;
    s.rate_no_reshard = base / job_iter;
    s.rate = base / (job_iter + reshard);
    s.iteration_s = job_iter + reshard;
    return s;
  }

  RecoveryKind recovery(Coverage) const override { return RecoveryKind::kReconfigure; }
  double power_ratio(int degree) const override {
    return degree >= 1 && degree < static_cast<int>(table_.ratio.size()) ? table_.ratio[degree]
                                                                          : 1.0;
  }

 private:
  Options opt_;
  Table table_;
};

// Least x in [lo, hi] with ok(x), for a monotone predicate that holds at hi (bisection to 1e-7).
template <typename Ok>
double least(double lo, double hi, Ok ok) {
  if (ok(lo)) return lo;
  while (hi - lo > 1e-7) {
    const double mid = 0.5 * (lo + hi);
    if (ok(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

// `idle_per_domain` and `idle_power_w` enter the domain power budget of the boosted variant.
std::unique_ptr<Strategy> make_ntp(const std::string& name, bool boost, const std::string& label,
                                   const StrategyParams& p, const ShapeContext& ctx,
                                   const models::StepModel& model, int idle_per_domain,
                                   double idle_power_w, int state_min_tp, StrategyUse use) {
  const int T = ctx.tp;
  NTPSIM_CHECK(model.nominal_tp() == T);
  NTPSIM_CHECK(T >= 1);
  const int min_tp =
      std::max<int>({static_cast<int>(p.integer("min_tp")), model.min_tp(), state_min_tp});
  const int step = std::max<int>(1, static_cast<int>(p.integer("tp_step")));

  MembershipRules r;
  r.degree_by_failed.assign(T + 1, 0);
  r.degree_by_failed[0] = T;
  for (int k = 1; k <= T; ++k) {
    const int t = (T - k) / step * step;
    r.degree_by_failed[k] = t >= std::max(1, min_tp) ? t : 0;
  }
  r.use_spare_domains = p.flag("use_spare_domains");
  r.needs_full_job = false;

  Ntp::Options o;
  o.parity = p.choice("rule") == "parity";
  o.keep_pace = p.flag("keep_pace");
  o.pack = p.flag("pack");

  const double target = ctx.healthy_iteration_s;
  const double p1 = model.gpu_power_w(1.0);
  double cap = 1.0;
  if (boost) {
    cap = 1.0 + p.number("max_power");
    if (model.max_power_ratio() > 1.0) cap = std::min(cap, model.max_power_ratio());
  }
  // The per-degree table is shape()'s alone, and a screen-only strategy is never shaped.
  if (use == StrategyUse::kScreen) {
    return std::make_unique<Ntp>(name, label, std::move(r), ctx, o, Ntp::Table{});
  }
  Ntp::Table t;
  t.share.assign(T + 1, 1.0);
  t.iteration_s.assign(T + 1, target);
  t.ratio.assign(T + 1, 1.0);
  t.reshard_s.assign(T + 1, 0.0);
  t.extra_w.assign(T + 1, 0.0);
  for (int d = std::max(1, min_tp); d < T; ++d) {
    double ratio_cap = cap;
    if (boost && p.flag("domain_budget")) {
      // The damaged group may use its own T nominal shares plus the domain's idle GPUs' shares,
      // less the idle draw of every GPU of the domain that is not computing.
      const double idle_gpus = static_cast<double>(idle_per_domain + (T - d));
      const double budget_w =
          static_cast<double>(T + idle_per_domain) * p1 - idle_gpus * idle_power_w;
      const double per_gpu_w = budget_w / d;
      if (model.gpu_power_w(cap) > per_gpu_w) {
        // Highest ratio whose draw fits: bisect on the (increasing) power curve.
        ratio_cap = least(1.0, cap, [&](double x) { return model.gpu_power_w(x) > per_gpu_w; });
        ratio_cap = std::max(1.0, ratio_cap - 1e-7);
      }
    }
    double ratio = 1.0;
    if (boost) {
      ratio = model.replica_iteration_s(d, 1.0, ratio_cap) <= target
                  ? least(1.0, ratio_cap, [&](double x) {
                      return model.replica_iteration_s(d, 1.0, x) <= target;
                    })
                  : ratio_cap;
    }
    t.ratio[d] = ratio;
    t.extra_w[d] = model.gpu_power_w(ratio) - p1;
    t.reshard_s[d] = model.reshard_overhead_s(d);
    if (o.keep_pace) {
      t.share[d] = models::max_batch_share(model, d, ratio, target);
      t.iteration_s[d] = target;
    } else {
      t.share[d] = 1.0;
      t.iteration_s[d] = model.replica_iteration_s(d, 1.0, ratio);
    }
  }
  return std::make_unique<Ntp>(name, label, std::move(r), ctx, o, std::move(t));
}

// Damaged replicas carry a smaller batch share: one damaged group per damaged domain, at TP - 1,
// at the power cap for the boosted variant.
double screen(const ScreenInputs& in, const StrategyParams& p, bool boost) {
  const models::StepModel& m = *in.model;
  double ratio = 1.0;
  if (boost) ratio = std::min(m.max_power_ratio(), 1 + p.number("max_power"));
  const int tp1 = std::max(m.min_tp(), in.tp - 1);
  const double share =
      in.tp > m.min_tp() ? models::max_batch_share(m, tp1, ratio, in.healthy_iteration_s) : 0.0;
  const double damaged = std::min<double>(in.dp, in.damaged_domains);
  return (1 - in.interruptions_per_s * in.reconfigure_loss_s) *
         std::max(0.0, 1 - damaged * (1 - share) / in.dp);
}

StrategyPlugin ntp_plugin() {
  StrategyPlugin p;
  p.info = {"ntp",
            "Nonuniform TP: a damaged TP group runs at a reduced degree with a smaller batch "
            "share; healthy replicas reshard gradients on the DP sync",
            ntp_param_specs(false), "reduce_tp"};
  p.make = [](const std::string& label, const StrategyParams& params,
              const StrategyBuildContext& ctx) -> Result<std::unique_ptr<Strategy>> {
    return make_ntp("ntp", false, label, params, ctx.shape, ctx.model, ctx.layout.idle_per_domain,
                    ctx.hardware.idle_power_w, ctx.state_min_tp, ctx.use);
  };
  p.screen = [](const ScreenInputs& in, const StrategyParams& params) {
    return screen(in, params, false);
  };
  p.serves_as_fallback = true;
  // The NTP paper restarts the job on every failure and re-packs the damaged domains; an in-place
  // NTP reconfiguration is unpublished (README.md, "Resume mechanisms").
  p.default_resume = "restart_from_checkpoint";
  return p;
}

StrategyPlugin ntp_power_boost_plugin() {
  StrategyPlugin p;
  auto table = ntp_param_specs(true);
  p.info = {"ntp_power_boost",
            "NTP, and the surviving GPUs of damaged domains run at higher power (up to a cap) "
            "to keep their full batch share; energy is accounted",
            std::move(table), "reduce_tp (power_boost: true)"};
  p.make = [](const std::string& label, const StrategyParams& params,
              const StrategyBuildContext& ctx) -> Result<std::unique_ptr<Strategy>> {
    return make_ntp("ntp_power_boost", true, label, params, ctx.shape, ctx.model,
                    ctx.layout.idle_per_domain, ctx.hardware.idle_power_w, ctx.state_min_tp,
                    ctx.use);
  };
  p.screen = [](const ScreenInputs& in, const StrategyParams& params) {
    return screen(in, params, true);
  };
  p.default_resume = "restart_from_checkpoint";  // as ntp
  return p;
}

NTPSIM_REGISTER_STRATEGY(ntp_plugin())
NTPSIM_REGISTER_STRATEGY(ntp_power_boost_plugin())

}  // namespace

std::vector<ParamSpec> ntp_param_specs(bool power_boost) {
  std::vector<ParamSpec> table = {
      {"rule",
       ParamKind::kChoice,
       "per_group: each damaged TP group runs at T-k; parity: every damaged replica runs at one "
       "shared degree T-max(k) (Megatron-LM's NTP)",
       "",
       "per_group",
       0,
       0,
       {"per_group", "parity"}},
      {"min_tp",
       ParamKind::kInt,
       "smallest TP degree a damaged group may run at; 0 = from the memory model",
       "GPUs",
       "0",
       0,
       4096,
       {}},
      {"tp_step",
       ParamKind::kInt,
       "reduced degrees are rounded down to a multiple of this (2 = even degrees only)",
       "GPUs",
       "1",
       1,
       64,
       {}},
      {"keep_pace",
       ParamKind::kBool,
       "true: a damaged replica takes the largest batch share that keeps pace with healthy "
       "replicas; false: it keeps its full share and the whole job slows to its pace",
       "",
       "true",
       0,
       0,
       {}},
      {"pack",
       ParamKind::kBool,
       "pack damaged TP groups into as few DP replicas as possible at each reconfiguration",
       "",
       "true",
       0,
       0,
       {}},
      {"use_spare_domains",
       ParamKind::kBool,
       "spare domains replace damaged domains at reconfiguration",
       "",
       "true",
       0,
       0,
       {}},
  };
  if (power_boost) {
    table.push_back({"max_power",
                     ParamKind::kFraction,
                     "per-GPU power cap of boosted GPUs, above TDP",
                     "fraction of TDP",
                     "30%",
                     0,
                     2,
                     {}});
    table.push_back({"domain_budget",
                     ParamKind::kBool,
                     "limit a boosted domain to its nominal power budget, including the failed "
                     "GPUs' freed share",
                     "",
                     "true",
                     0,
                     0,
                     {}});
  }
  return table;
}

}  // namespace ntpsim::sim
