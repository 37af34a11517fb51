// Terminal table, JSON and CSV of a plan result (plan_output.h).
#include "sim/planner/plan_output.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <optional>

#include "models/base/build_info.h"
#include "models/base/statistics.h"
#include "sim/metrics/aggregate.h"

namespace ntpsim::sim {
namespace {

using ojson = nlohmann::ordered_json;

ojson number(double v) { return std::isfinite(v) ? ojson(v) : ojson(nullptr); }

std::string money(double v) {
  if (!std::isfinite(v)) return "-";
  if (v >= 1e9) return fmt::format("${:.2f}B", v / 1e9);
  if (v >= 1e6) return fmt::format("${:.2f}M", v / 1e6);
  if (v >= 1e3) return fmt::format("${:.1f}k", v / 1e3);
  return fmt::format("${:.0f}", v);
}

std::string money_signed(double v) {
  return (v < 0 ? "-" : "+") + money(std::fabs(v));
}

bool monte_carlo(const Candidate& c) {
  return c.status == CandidateStatus::kConfirmed || c.status == CandidateStatus::kRefuted;
}

ojson candidate_json(const Candidate& c, int index, bool ttt) {
  ojson j;
  j["index"] = index;
  j["family"] = c.family;
  j["strategy"] = c.strategy;
  j["power_cap"] = c.power_cap;
  j["hardware"] = c.hardware;
  j["domains"] = c.domains;
  j["spare_domains"] = c.spare_domains;
  j["gpus_per_domain"] = c.gpus_per_domain;
  j["gpus"] = c.cluster_gpus;
  j["spare_gpus"] = static_cast<int64_t>(c.spare_domains) * c.gpus_per_domain;
  j["hardware_origin"] = c.hardware_origin;
  j["tp"] = c.tp;
  j["pp"] = c.pp;
  j["dp"] = c.dp;
  if (c.cp > 1) j["cp"] = c.cp;  // absent: CP 1
  j["checkpoint_interval"] = c.auto_interval ? ojson("auto") : ojson(c.checkpoint_interval_s);
  j["checkpoint_interval_s"] = number(c.checkpoint_interval_s);
  j["status"] = to_string(c.status);
  j["reason"] = c.reason;
  ojson cf;
  cf["ideal_tokens_per_s_per_gpu"] = number(c.ideal_tokens_per_s_per_gpu);
  cf["interruptions_per_day"] = number(c.interruptions_per_day);
  cf["goodput_bound"] = number(c.goodput_bound);
  cf["goodput_expected"] = number(c.goodput_expected);
  if (ttt) {
    cf["ideal_days"] = number(c.ideal_days);
    cf["days_bound"] = number(c.days_bound);
    cf["days_expected"] = number(c.days_expected);
  }
  cf["cost_bound"] = number(c.cost_bound);
  cf["cost_expected"] = number(c.cost_expected);
  j["closed_form"] = std::move(cf);
  if (monte_carlo(c)) {
    ojson mc;
    mc["replications"] = c.replications;
    mc["p_meet"] = c.p_meet;
    if (ttt) {
      mc["days_p50"] = number(c.days_p50);
      mc["days_q"] = number(c.days_q);
    }
    mc["goodput_mean"] = number(c.goodput_mean);
    mc["goodput_q"] = number(c.goodput_q);
    mc["energy_mwh"] = number(c.energy_mwh);
    mc["cost"] = number(c.cost);
    mc["cost_ci95_lo"] = number(c.cost_ci95_lo);
    mc["cost_ci95_hi"] = number(c.cost_ci95_hi);
    mc["cost_sd"] = number(c.cost_sd);
    mc["compute_cost"] = number(c.compute_cost);
    mc["energy_cost"] = number(c.energy_cost);
    j["monte_carlo"] = std::move(mc);
  }
  return j;
}

std::string target_text(const PlanTarget& t) {
  if (t.time_to_train()) {
    return fmt::format("{:.4g} tokens within {:.1f} days at {:.0f}% confidence", t.tokens,
                       t.deadline_s / 86400, 100 * t.confidence);
  }
  return fmt::format("goodput >= {:.2f}% at {:.0f}% confidence", 100 * t.goodput, 100 * t.confidence);
}

}  // namespace

std::optional<PlanVerdict> plan_verdict(const PlanResult& r) {
  if (r.best < 0) return std::nullopt;
  PlanVerdict v;
  v.best = r.best;
  const Candidate& b = r.candidates[static_cast<size_t>(r.best)];
  // The runner-up: the cheapest best of another family.
  for (const auto& f : r.families) {
    if (f.best < 0 || f.best == r.best) continue;
    const Candidate& c = r.candidates[static_cast<size_t>(f.best)];
    if (v.runner_up < 0 || c.cost < r.candidates[static_cast<size_t>(v.runner_up)].cost)
      v.runner_up = f.best;
  }
  if (v.runner_up < 0) return v;
  const Candidate& u = r.candidates[static_cast<size_t>(v.runner_up)];
  // Runner-up minus pick. The two are different clusters (their replications share seeds but
  // not failure sequences), so the difference is unpaired: Welch's standard error from each
  // cost's own CI half-width, Student-t with the smaller sample's degrees of freedom.
  v.margin = u.cost - b.cost;
  v.margin_relative = b.cost > 0 ? v.margin / b.cost : std::nan("");
  auto se = [](const Candidate& c) {
    if (!std::isfinite(c.cost_sd) || c.replications < 2) return std::nan("");
    return c.cost_sd / std::sqrt(static_cast<double>(c.replications));
  };
  const double sb = se(b), su = se(u);
  if (std::isfinite(sb) && std::isfinite(su)) {
    const int n = std::min(b.replications, u.replications);
    const double half = student_t_quantile(0.975, n - 1) * std::sqrt(sb * sb + su * su);
    v.margin_ci95_lo = v.margin - half;
    v.margin_ci95_hi = v.margin + half;
    v.tied = v.margin_ci95_lo <= 0.0 && v.margin_ci95_hi >= 0.0;
  } else {
    v.tied = true;  // no CI: the difference cannot be told from zero
  }
  return v;
}

std::string plan_table(const PlanResult& r) {
  const bool ttt = r.plan.target.time_to_train();
  std::string s = fmt::format("plan {}: {}\n", r.plan.name, target_text(r.plan.target));
  std::map<std::string, int> counts;
  for (const auto& c : r.candidates) ++counts[to_string(c.status)];
  s += fmt::format("{} candidates:", r.candidates.size());
  for (const auto& [k, v] : counts) s += fmt::format(" {} {},", v, k);
  s.back() = '\n';
  s += fmt::format("Monte Carlo: {} runs, {} replications (seed {})\n\n", r.monte_carlo_runs,
                   r.replications, r.seed);
  const std::string qcol = fmt::format("p{:.0f}", 100 * r.plan.target.confidence);
  s += fmt::format("{:<24} {:<40} {:>8} {:>8} {:>9} {:>9} {:>10} {:>10}\n", "strategy",
                   "configuration", ttt ? "TTT p50" : "goodput", ttt ? "TTT " + qcol : "gp p" +
                   fmt::format("{:.0f}", 100 * (1 - r.plan.target.confidence)),
                   "goodput", "P(meet)", "energy MWh", ttt ? "cost" : "cost/hzn");
  for (const auto& f : r.families) {
    if (f.best < 0) {
      s += fmt::format("{:<24} no configuration meets the target\n", f.family);
      continue;
    }
    const Candidate& c = r.candidates[static_cast<size_t>(f.best)];
    const std::string cfg = describe(c).substr(c.family.size() + 1);
    s += fmt::format("{:<24} {:<40} {:>8} {:>8} {:>8.2f}% {:>9.3f} {:>10.4g} {:>10}{}\n", f.family,
                     cfg, ttt ? fmt::format("{:.1f} d", c.days_p50) : fmt::format("{:.2f}%", 100 * c.goodput_mean),
                     ttt ? fmt::format("{:.1f} d", c.days_q) : fmt::format("{:.2f}%", 100 * c.goodput_q),
                     100 * c.goodput_mean, c.p_meet, c.energy_mwh, money(c.cost),
                     f.best == r.best ? "  <- best" : "");
  }
  if (auto v = plan_verdict(r); v && v->runner_up >= 0) {
    const Candidate& u = r.candidates[static_cast<size_t>(v->runner_up)];
    s += fmt::format("\nverdict: {} {} by {} ({:+.2f}%, 95% CI [{}, {}]) against {}\n",
                     describe(r.candidates[static_cast<size_t>(v->best)]),
                     v->tied ? "is statistically tied on cost (CI contains 0); cheaper in the mean"
                             : "is cheaper",
                     money(std::fabs(v->margin)), 100 * v->margin_relative,
                     std::isfinite(v->margin_ci95_lo) ? money_signed(v->margin_ci95_lo) : "-",
                     std::isfinite(v->margin_ci95_hi) ? money_signed(v->margin_ci95_hi) : "-",
                     describe(u));
  }
  s += "\nRecommended: ";
  if (r.best >= 0) {
    const Candidate& b = r.candidates[static_cast<size_t>(r.best)];
    s += fmt::format("{}, {} ({:.1f} tokens/s/GPU failure-free)\n", describe(b), money(b.cost),
                     b.ideal_tokens_per_s_per_gpu);
  } else {
    s += "none: no candidate meets the target\n";
  }
  bool header = false;
  for (const auto& f : r.families) {
    if (f.best >= 0) continue;
    if (!header) s += "\nWhy families fail (first binding constraint of the closest candidate):\n";
    header = true;
    s += fmt::format("  {}: {}\n", f.family, f.why_not);
  }
  s += fmt::format("\nPareto frontier ({} vs cost, Monte Carlo candidates):\n", ttt ? "TTT " + qcol : "goodput");
  for (int i : r.frontier) {
    const Candidate& c = r.candidates[static_cast<size_t>(i)];
    s += fmt::format("  {:>10}  {:>9}  {}{}\n", money(c.cost),
                     ttt ? fmt::format("{:.1f} d", c.days_q) : fmt::format("{:.2f}%", 100 * c.goodput_q),
                     describe(c), c.status == CandidateStatus::kConfirmed ? "" : " (misses target)");
  }
  return s;
}

ojson plan_document(const PlanResult& r) {
  const bool ttt = r.plan.target.time_to_train();
  const BuildInfo& b = build_info();
  ojson d;
  d["schema_version"] = 1;
  d["kind"] = "plan";
  ojson ctx;
  ctx["tool"] = "ntpsim";
  ctx["version"] = b.version;
  ctx["git_sha"] = b.git_sha;
  ctx["build_type"] = b.build_type;
  ctx["plan_name"] = r.plan.name;
  ctx["plan_file"] = r.plan.file;
  ctx["description"] = r.plan.description;
  ctx["base_scenario"] = r.plan.base;
  ctx["seed"] = r.seed;
  d["context"] = std::move(ctx);
  ojson t;
  t["kind"] = ttt ? "time_to_train" : "goodput";
  if (ttt) {
    t["tokens"] = r.plan.target.tokens;
    t["deadline_s"] = r.plan.target.deadline_s;
  } else {
    t["goodput"] = r.plan.target.goodput;
  }
  t["confidence"] = r.plan.target.confidence;
  d["target"] = std::move(t);
  ojson p;
  p["gpu_hour"] = r.plan.prices.gpu_hour;
  p["rack_capex"] = r.plan.prices.rack_capex;
  p["amortisation_s"] = r.plan.prices.amortisation_s;
  p["spare_factor"] = r.plan.prices.spare_factor;
  p["energy_per_mwh"] = r.plan.prices.energy_per_mwh;
  d["prices"] = std::move(p);
  ojson sum;
  sum["candidates"] = r.candidates.size();
  sum["monte_carlo_runs"] = r.monte_carlo_runs;
  sum["replications"] = r.replications;
  d["search"] = std::move(sum);
  d["best"] = r.best >= 0 ? ojson(r.best) : ojson(nullptr);
  ojson fams = ojson::array();
  for (const auto& f : r.families) {
    ojson j;
    j["family"] = f.family;
    j["best"] = f.best >= 0 ? ojson(f.best) : ojson(nullptr);
    j["why_not"] = f.why_not;
    fams.push_back(std::move(j));
  }
  d["families"] = std::move(fams);
  d["frontier"] = r.frontier;
  if (auto v = plan_verdict(r)) {
    ojson j;
    j["best"] = v->best;
    j["runner_up"] = v->runner_up >= 0 ? ojson(v->runner_up) : ojson(nullptr);
    if (v->runner_up >= 0) {
      j["margin"] = number(v->margin);
      j["margin_relative"] = number(v->margin_relative);
      j["margin_ci95_lo"] = number(v->margin_ci95_lo);
      j["margin_ci95_hi"] = number(v->margin_ci95_hi);
    }
    j["tied"] = v->tied;
    d["verdict"] = std::move(j);
  }
  ojson cands = ojson::array();
  for (size_t i = 0; i < r.candidates.size(); ++i) {
    cands.push_back(candidate_json(r.candidates[i], static_cast<int>(i), ttt));
  }
  d["candidates"] = std::move(cands);
  return d;
}

std::string plan_csv(const PlanResult& r) {
  auto num = [](double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string(); };
  // Tidy: no comment lines; the plan and seed are columns of every row.
  auto field = [](const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string out = "\"";
    for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return out + "\"";
  };
  std::string s;
  // The job's GPUs are tp x cp x pp x dp (cp 1 without context parallelism); gpus is the cluster's.
  s += "plan,seed,index,family,hardware,domains,spare_domains,gpus,tp,pp,dp,cp,"
       "checkpoint_interval_s,status,ideal_tokens_per_s_per_gpu,"
       "goodput_expected,days_expected,cost_expected,cost_bound,replications,p_meet,days_p50,"
       "days_q,goodput_mean,goodput_q,energy_mwh,cost,cost_ci95_lo,cost_ci95_hi,compute_cost,"
       "energy_cost,reason\n";
  for (size_t i = 0; i < r.candidates.size(); ++i) {
    const Candidate& c = r.candidates[i];
    const bool mc = monte_carlo(c);
    s += fmt::format("{},{},", field(r.plan.name), r.seed);
    s += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},", i, c.family,
        c.hardware, c.domains, c.spare_domains, c.cluster_gpus, c.tp, c.pp, c.dp, c.cp,
        num(c.checkpoint_interval_s), to_string(c.status), num(c.ideal_tokens_per_s_per_gpu),
        num(c.goodput_expected), num(c.days_expected), num(c.cost_expected), num(c.cost_bound),
        mc ? std::to_string(c.replications) : "", mc ? num(c.p_meet) : "",
        mc ? num(c.days_p50) : "", mc ? num(c.days_q) : "", mc ? num(c.goodput_mean) : "",
        mc ? num(c.goodput_q) : "", mc ? num(c.energy_mwh) : "", mc ? num(c.cost) : "");
    s += fmt::format("{},{},{},{},{}\n", mc ? num(c.cost_ci95_lo) : "",
                     mc ? num(c.cost_ci95_hi) : "", mc ? num(c.compute_cost) : "",
                     mc ? num(c.energy_cost) : "", field(c.reason));
  }
  return s;
}

}  // namespace ntpsim::sim
