// The capacity planner's search (planner.h): enumerate, screen, confirm.
#include "sim/planner/planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <thread>

#include "models/base/check.h"
#include "models/base/statistics.h"
#include "models/base/time.h"
#include "models/layout_search.h"
#include "sim/metrics/aggregate.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/planner/plan_progress.h"
#include "sim/planner/screen.h"
#include "sim/scenario/loader.h"
#include "sim/simulation/simulation.h"

namespace ntpsim::sim {
namespace {

constexpr double kZ = 1.959964;  // Wilson interval, 95%

// Wilson score interval of a proportion k / n at 95%.
void wilson(int k, int n, double& lo, double& hi) {
  const double p = static_cast<double>(k) / n, z2 = kZ * kZ, nn = n;
  const double center = (p + z2 / (2 * nn)) / (1 + z2 / nn);
  const double half = kZ / (1 + z2 / nn) * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
  lo = center - half;
  hi = center + half;
}

std::string strategy_yaml(const PlanStrategy& s) {
  if (!s.entry.empty()) return fmt::format("strategies=[{}]", s.entry);
  if (!s.cap && s.resume.empty()) return fmt::format("strategies=[{}]", s.name);
  std::string params;
  if (s.cap) params += fmt::format(", max_power: {:.17g}", *s.cap);
  if (!s.resume.empty()) params += fmt::format(", resume: {}", s.resume);
  return fmt::format("strategies=[{{name: {}, label: \"{}\"{}}}]", s.name, s.label(), params);
}

// A candidate's checkpoint.interval override: a duration, or (s <= 0) the base's own auto mode,
// so that a base with `auto_shared` keeps it.
std::string interval_text(double s, const Scenario& base) {
  if (s > 0) return fmt::format("{:.17g}s", s);
  return base.checkpoint.shared_auto_interval ? "auto_shared" : "auto_per_strategy";
}

using Json = nlohmann::ordered_json;

struct Searcher {
  const Plan& plan;
  const PlanOptions& opts;
  PlanResult out;
  // The confirmations' topologies and step models (screen_all's threads keep their own):
  // finalists of one cluster or layout share them instead of rebuilding them.
  PrepareCache prepared;
  int finished = 0;                 // finalist confirmations done (run or recorded)
  bool recorded = false;            // the last confirmation came from the progress file

  void progress(const std::string& line) const {
    if (opts.progress) opts.progress(line);
  }

  // Loads the base (with the plan's overrides) and checks it suits the target.
  Result<Scenario> load_base() {
    auto base = load_scenario(plan.base, base_load_options(plan));
    if (!base.ok()) return base.error();
    if (plan.target.time_to_train() && !(base->train_tokens > 0)) {
      return Error::bad_input(fmt::format(
          "{}: target.tokens: the base scenario '{}' has a horizon; a token target needs a base "
          "scenario with train:",
          plan.file, plan.base));
    }
    if (!plan.target.time_to_train() && base->train_tokens > 0) {
      return Error::bad_input(fmt::format(
          "{}: target.goodput: the base scenario '{}' has a token budget; a goodput target needs "
          "a base scenario with horizon:",
          plan.file, plan.base));
    }
    return base;
  }

  Status enumerate(const Scenario& base) {
    const PlanSearch& sp = plan.search;
    auto or_base = [](const std::vector<int>& v, int b) { return v.empty() ? std::vector<int>{b} : v; };
    const auto hardware = sp.hardware.empty() ? std::vector<std::string>{base.hardware.name} : sp.hardware;
    const auto spares = or_base(sp.spare_domains, base.cluster.spare_domains);
    const auto tps = or_base(sp.tp, base.layout.tp);
    const auto pps = or_base(sp.pp, base.layout.pp);
    const auto intervals = sp.checkpoint_interval_s.empty()
                               ? std::vector<double>{base.checkpoint.auto_interval ? 0.0 : base.checkpoint.interval_s}
                               : sp.checkpoint_interval_s;
    std::vector<std::string> target_overrides;
    if (plan.target.time_to_train()) {
      target_overrides.push_back(fmt::format("train.tokens={:.17g}", plan.target.tokens));
      target_overrides.push_back(fmt::format("train.max_time={:.17g}s", 1.5 * plan.target.deadline_s));
    }
    for (const auto& hw : hardware) {
      // The profile's domain size replaces the base's when the hardware changes.
      std::vector<std::string> hw_overrides;
      if (hw != base.hardware.name) {
        hw_overrides.push_back("hardware=" + hw);
        auto probe = load_scenario(plan.base, base_load_options(plan, hw_overrides));
        if (!probe.ok()) return probe.error();
        const int g = probe->hardware.gpus_per_domain;
        if (g > 0 && g != base.cluster.gpus_per_domain) {
          hw_overrides.push_back(fmt::format("cluster.gpus_per_domain={}", g));
          if (base.cluster.gpus_per_node > 0 && g % base.cluster.gpus_per_node != 0) {
            hw_overrides.push_back("cluster.gpus_per_node=0");
          }
        }
      }
      for (int d : sp.domains) {
        for (int sd : spares) {
          if (sp.layout_auto) {
            const AutoLayout l = auto_layout(hw_overrides, d, sd, base);
            for (double iv : intervals) {
              for (const auto& st : sp.strategies) {
                add(base, hw, hw_overrides, target_overrides, d, sd, l.tp, l.pp, iv, st, l.dp,
                    l.virtual_stages, l.cp);
              }
            }
            continue;
          }
          for (int tp : tps) {
            for (int pp : pps) {
              for (double iv : intervals) {
                for (const auto& st : sp.strategies) {
                  add(base, hw, hw_overrides, target_overrides, d, sd, tp, pp, iv, st);
                }
              }
            }
          }
        }
      }
    }
    return Status::Ok();
  }

  static std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  }

  // `layout: auto`: the layout of the most healthy tokens/s the candidate's domains give
  // (models/layout_search.h, analytic step model, filling the domains), at the base's CP; where
  // none fits at it, or with `cp: auto`, at the CP of the most tokens/s among those that fit.
  // Where the probe does not load or no layout fits, the base's TP and PP with derived DP: the
  // candidate then shows the loader's or the screen's reason.
  struct AutoLayout {
    int tp = 1, pp = 1, dp = 0, virtual_stages = 0;  // dp 0: derive; virtual_stages 0: the base's
    int cp = 0;                                      // 0: the base's
  };
  AutoLayout auto_layout(const std::vector<std::string>& hw_overrides, int d, int sd,
                         const Scenario& base) const {
    const AutoLayout fallback{base.layout.tp, base.layout.pp, 0, 0, 0};
    const std::vector<std::string> more =
        concat(hw_overrides,
               {fmt::format("cluster.domains={}", d), fmt::format("cluster.spare_domains={}", sd)});
    auto probe = load_scenario(plan.base, base_load_options(plan, more));
    if (!probe.ok()) return fallback;
    models::LayoutSearch search{0, probe->cluster.gpus_per_domain, d, probe->layout.virtual_stages};
    search.exact_gpus = false;
    // The base's CP is kept unless `cp: auto` asks to choose it (then 0).
    search.cp = plan.search.cp_auto ? 0 : probe->layout.cp;
    auto best = models::fastest_layout(probe->workload, probe->hardware, search);
    if (!best && search.cp > 0) {
      // Nothing fits at the base's CP (a long sequence's activations): choose CP as well.
      search.cp = 0;
      best = models::fastest_layout(probe->workload, probe->hardware, search);
    }
    if (!best) return fallback;
    return {best->layout.tp, best->layout.pp, best->layout.dp, best->layout.virtual_stages,
            best->layout.cp};
  }

  void add(const Scenario& base, const std::string& hw,
           const std::vector<std::string>& hw_overrides,
           const std::vector<std::string>& target_overrides, int d, int sd, int tp, int pp,
           double iv, const PlanStrategy& st, int dp_choice = 0, int virtual_stages = 0,
           int cp = 0) {
    const int g = base.cluster.gpus_per_domain;  // replaced below once loaded
    std::vector<int> dps = plan.search.dp;
    if (dp_choice > 0) dps = {dp_choice};
    Candidate c;
    c.family = st.label();
    c.strategy = st.name;
    c.power_cap = st.cap.value_or(0.0);
    c.hardware = hw;
    c.domains = d;
    c.spare_domains = sd;
    c.tp = tp;
    c.cp = cp > 0 ? cp : base.layout.cp;
    c.pp = pp;
    c.auto_interval = iv <= 0;
    c.checkpoint_interval_s = iv;
    c.overrides = concat(hw_overrides, target_overrides);
    c.overrides.push_back(fmt::format("cluster.domains={}", d));
    c.overrides.push_back(fmt::format("cluster.spare_domains={}", sd));
    c.overrides.push_back(fmt::format("layout.tp={}", tp));
    c.overrides.push_back(fmt::format("layout.pp={}", pp));
    if (cp > 0 && cp != base.layout.cp) c.overrides.push_back(fmt::format("layout.cp={}", cp));
    if (virtual_stages > 0 && virtual_stages != base.layout.virtual_stages) {
      c.overrides.push_back(fmt::format("layout.virtual_stages={}", virtual_stages));
    }
    c.overrides.push_back("checkpoint.interval=" + interval_text(iv, base));
    c.overrides.push_back(strategy_yaml(st));
    if (dps.empty()) {  // derive: the most replicas the job domains hold
      int gd = g;
      for (const auto& o : hw_overrides) {
        if (o.rfind("cluster.gpus_per_domain=", 0) == 0) gd = std::stoi(o.substr(24));
      }
      dps.push_back(std::max(1, static_cast<int>(static_cast<int64_t>(d) * (gd / std::max(1, tp)) / pp)));
    }
    for (int dp : dps) {
      Candidate x = c;
      x.dp = dp;
      x.overrides.push_back(fmt::format("layout.dp={}", dp));
      out.candidates.push_back(std::move(x));  // loaded and screened by screen_all()
    }
  }

  // Loads and screens every candidate, on up to opts.threads threads. Each candidate's outcome
  // depends on its own overrides only, and is stored at its index, so the result is the same for
  // any thread count. Each thread takes a contiguous block of candidates (a cluster's candidates
  // are adjacent) with its own topology cache.
  Status screen_all() {
    const size_t n = out.candidates.size();
    const int wanted =
        opts.threads > 0 ? opts.threads : static_cast<int>(std::thread::hardware_concurrency());
    const size_t workers = std::clamp<size_t>(static_cast<size_t>(std::max(1, wanted)), 1,
                                              std::max<size_t>(1, n / kMinScreensPerThread));
    std::vector<std::string> failed(workers);  // what escaped a worker (bad_alloc), by worker
    auto work = [&](size_t w) {
      try {
        PrepareCache cache;
        ScenarioLoader loader;
        for (size_t i = n * w / workers; i < n * (w + 1) / workers; ++i) {
          load_and_screen(i, cache, loader);
        }
      } catch (const std::exception& e) {
        failed[w] = e.what();
      }
    };
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (size_t w = 1; w < workers; ++w) pool.emplace_back(work, w);
    work(0);
    for (auto& t : pool) t.join();
    for (const auto& f : failed) {
      if (!f.empty()) return Error::runtime(fmt::format("screening the candidates: {}", f));
    }
    return Status::Ok();
  }

  // Below this many candidates per thread, starting a thread costs more than it saves.
  static constexpr size_t kMinScreensPerThread = 8;

  // Candidate c's scenario: the base with its overrides (and the plan's seed). Loaded again
  // for a confirmation rather than kept from the screen: the same files give the same scenario,
  // and thousands of screened candidates then hold no scenario each. A screen's loader rereads
  // only the checkpoint and strategies of a candidate whose cluster and layout are the last
  // one's (the candidates are enumerated with those innermost).
  Result<Scenario> load_candidate(const Candidate& c, ScenarioLoader* loader = nullptr) const {
    const LoadOptions options = base_load_options(plan, c.overrides);
    auto s = loader != nullptr ? loader->load(plan.base, options)
                               : load_scenario(plan.base, options);
    if (!s.ok()) return s.error();
    if (plan.seed) s->seed = *plan.seed;
    return s;
  }

  // Loads and screens candidate i.
  void load_and_screen(size_t i, PrepareCache& cache, ScenarioLoader& loader) {
    Candidate& c = out.candidates[i];
    auto s = load_candidate(c, &loader);
    if (!s.ok()) {
      c.status = CandidateStatus::kInvalid;
      c.reason = "invalid: " + s.error().message;
      return;
    }
    c.hardware_origin = s->hardware.origin;
    screen(c, *s, cache);
  }

  void screen(Candidate& c, const Scenario& s, PrepareCache& cache) {
    auto r = screen_candidate(s, &cache);
    if (!r.ok()) {
      c.status = CandidateStatus::kInvalid;
      c.reason = "invalid: " + r.error().message;
      return;
    }
    c.gpus_per_domain = s.cluster.gpus_per_domain;
    c.cluster_gpus = s.cluster.total_gpus();
    c.ideal_tokens_per_s_per_gpu = r->ideal_tokens_per_s / s.layout.gpus();
    c.checkpoint_interval_s = r->interval_s;
    const double dh = plan.prices.domain_hour(c.gpus_per_domain);
    c.domain_hour = dh * (c.domains + plan.prices.spare_factor * c.spare_domains);
    c.interruptions_per_day = r->interruptions_per_s * kSecondsPerDay;
    c.goodput_bound = r->goodput_bound;
    c.goodput_expected = r->goodput_expected;
    const double energy_price_per_s = r->power_w / 3.6e9 * plan.prices.energy_per_mwh;
    const double margin = plan.confirm.screen_margin;
    if (plan.target.time_to_train()) {
      const double work_s = plan.target.tokens / r->ideal_tokens_per_s;
      const double ckpts = std::isfinite(r->interval_s) && r->interval_s > 0
                               ? std::max(0.0, std::floor(work_s / r->interval_s) - 1)
                               : 0.0;
      c.ideal_days = work_s / kSecondsPerDay;
      c.days_bound = (work_s + ckpts * r->exposed_s) / kSecondsPerDay;
      c.days_expected = c.goodput_expected > 0 ? c.ideal_days / c.goodput_expected : std::numeric_limits<double>::infinity();
      c.cost_bound = c.domain_hour * c.days_bound * 24;
      c.cost_expected = c.domain_hour * c.days_expected * 24 + energy_price_per_s * c.days_expected * kSecondsPerDay;
      const double deadline = plan.target.deadline_s / kSecondsPerDay;
      if (c.days_bound > deadline) {
        c.status = CandidateStatus::kRejected;
        c.reason = fmt::format("deadline: failure-free time to train {:.1f} d > {:.1f} d", c.days_bound, deadline);
      } else if (c.days_expected > margin * deadline) {
        c.status = CandidateStatus::kPruned;
        c.reason = fmt::format("closed form: expected time to train {:.1f} d > {:.2g} x {:.1f} d "
                               "(expected goodput {:.1f}%)", c.days_expected, margin, deadline,
                               100 * c.goodput_expected);
      } else {
        c.status = CandidateStatus::kUnexplored;
      }
    } else {
      const double horizon = s.horizon_s;
      c.cost_bound = c.domain_hour * horizon / 3600;
      c.cost_expected = c.cost_bound + energy_price_per_s * horizon;
      const double floor = plan.target.goodput;
      // A window edge can add at most one checkpoint pause to the bound.
      const double bound = std::min(1.0, c.goodput_bound + r->exposed_s / horizon);
      if (bound < floor) {
        c.status = CandidateStatus::kRejected;
        c.reason = fmt::format("goodput: checkpoint overhead alone leaves {:.2f}% < {:.2f}%", 100 * bound, 100 * floor);
      } else if (1 - c.goodput_expected > margin * (1 - floor)) {
        c.status = CandidateStatus::kPruned;
        c.reason = fmt::format("closed form: expected badput {:.2f}% > {:.2g} x {:.2f}%",
                               100 * (1 - c.goodput_expected), margin, 100 * (1 - floor));
      } else {
        c.status = CandidateStatus::kUnexplored;
      }
    }
  }

  // Confirms candidate i: its recorded outcome when the progress file has one, else Monte Carlo
  // (then handed to the progress file).
  Status confirm(int i) {
    const std::string key = fmt::format("candidate/{}", i);
    if (opts.resume.find) {
      if (const Json* rec = opts.resume.find(key)) {
        recorded = true;
        return read_confirmation_record(*rec, opts.resume.source + ": " + key, plan.confirm,
                                        out.candidates[static_cast<size_t>(i)],
                                        out.monte_carlo_runs, out.replications);
      }
    }
    recorded = false;
    const int runs_before = out.monte_carlo_runs;
    const int64_t replications_before = out.replications;
    NTPSIM_RETURN_IF_ERROR(simulate(i));
    if (!opts.resume.record) return Status::Ok();
    return opts.resume.record(key, confirmation_record(out.candidates[static_cast<size_t>(i)],
                                                       out.monte_carlo_runs - runs_before,
                                                       out.replications - replications_before));
  }

  // Monte Carlo of candidate i in doubling batches until the confidence statement is decided.
  Status simulate(int i) {
    Candidate& c = out.candidates[static_cast<size_t>(i)];
    auto loaded = load_candidate(c);
    if (!loaded.ok()) return loaded.error();
    const Scenario& s = *loaded;
    const PlanTarget& t = plan.target;
    // Prepared once; every batch below runs on it.
    auto sim = Simulation::prepare(s, &prepared);
    if (!sim.ok()) return sim.error();
    int n = plan.confirm.min_replications;
    while (true) {
      RunOptions ro;
      ro.replications = n;
      ro.threads = opts.threads;
      ro.timeline = false;
      ro.distribution = opts.distribution;
      ro.cancel = opts.cancel;
      ro.progress = opts.replications;
      auto r = run_monte_carlo(**sim, ro);
      if (!r.ok()) return r.error();
      for (const auto& note : r->notices) progress("note: " + note);
      ++out.monte_carlo_runs;
      out.replications += n;
      const auto& reps = r->strategies.front().replications;
      std::vector<double> days, goodput, energy;
      int k = 0;
      for (const auto& m : reps) {
        const double d = at(m, Metric::kTimeToTrainDays);
        const double gp = at(m, Metric::kGoodput);
        days.push_back(d);
        goodput.push_back(gp);
        energy.push_back(at(m, Metric::kEnergyMwh));
        const bool met = t.time_to_train() ? (std::isfinite(d) && d * kSecondsPerDay <= t.deadline_s) : gp >= t.goodput;
        k += met ? 1 : 0;
      }
      double lo = 0, hi = 1;
      wilson(k, n, lo, hi);
      const bool decided = lo >= t.confidence || hi < t.confidence || n >= plan.confirm.max_replications;
      if (!decided) {
        n = std::min(2 * n, plan.confirm.max_replications);
        continue;
      }
      c.replications = n;
      c.p_meet = static_cast<double>(k) / n;
      c.goodput_mean = std::accumulate(goodput.begin(), goodput.end(), 0.0) / n;
      c.goodput_q = nearest_rank_quantile(goodput, 1 - t.confidence);
      c.energy_mwh = std::accumulate(energy.begin(), energy.end(), 0.0) / n;
      const double hours = t.time_to_train()
                               ? std::accumulate(days.begin(), days.end(), 0.0) / n * 24
                               : s.horizon_s / 3600;
      if (t.time_to_train()) {
        c.days_p50 = nearest_rank_quantile(days, 0.5);
        c.days_q = nearest_rank_quantile(days, t.confidence);
      }
      c.cost = c.domain_hour * hours + c.energy_mwh * plan.prices.energy_per_mwh;
      c.compute_cost = c.domain_hour * hours;
      c.energy_cost = c.energy_mwh * plan.prices.energy_per_mwh;
      // Each replication priced alike (its own time to train and energy): the CI of the cost.
      std::vector<double> costs;
      for (size_t k2 = 0; k2 < days.size(); ++k2) {
        const double h = t.time_to_train() ? days[k2] * 24 : s.horizon_s / 3600;
        costs.push_back(c.domain_hour * h + energy[k2] * plan.prices.energy_per_mwh);
      }
      const Stat cs = summarize(costs);
      c.cost_ci95_lo = cs.ci95_lo;
      c.cost_ci95_hi = cs.ci95_hi;
      c.cost_sd = cs.sd;
      const bool ok = lo >= t.confidence || (hi >= t.confidence && c.p_meet >= t.confidence);
      c.status = ok ? CandidateStatus::kConfirmed : CandidateStatus::kRefuted;
      const std::string what = t.time_to_train()
                                   ? fmt::format("time to train <= {:.1f} d", t.deadline_s / kSecondsPerDay)
                                   : fmt::format("goodput >= {:.2f}%", 100 * t.goodput);
      c.reason = fmt::format("Monte Carlo: P({}) = {:.3f} (95% CI {:.3f}..{:.3f}, n = {}) {} {:.2f}",
                             what, c.p_meet, std::max(0.0, lo), std::min(1.0, hi), n,
                             ok ? ">=" : "<", t.confidence);
      return Status::Ok();
    }
  }

  Status confirm_families() {
    // The confirmations still possible in the families not reached yet: for counts().
    std::map<std::string, int> open;
    for (const auto& c : out.candidates) {
      if (c.status == CandidateStatus::kUnexplored) ++open[c.family];
    }
    int later = 0;
    for (const auto& st : plan.search.strategies) {
      later += std::min(open[st.label()], plan.confirm.max_finalists);
    }
    int recorded_count = 0;
    auto counts = [&](int left_here, const std::string& current) {
      if (opts.counts)
        opts.counts({finished, recorded_count, finished + left_here + later, current});
    };
    for (const auto& st : plan.search.strategies) {
      later -= std::min(open[st.label()], plan.confirm.max_finalists);
      FamilyResult fr;
      fr.family = st.label();
      std::vector<int> order;
      for (size_t i = 0; i < out.candidates.size(); ++i) {
        const auto& c = out.candidates[i];
        if (c.family == fr.family && c.status == CandidateStatus::kUnexplored) order.push_back(static_cast<int>(i));
      }
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return out.candidates[static_cast<size_t>(a)].cost_expected <
               out.candidates[static_cast<size_t>(b)].cost_expected;
      });
      int confirmed = 0;
      for (size_t pos = 0; pos < order.size(); ++pos) {
        const int i = order[pos];
        Candidate& c = out.candidates[static_cast<size_t>(i)];
        if (fr.best >= 0 && c.cost_bound >= out.candidates[static_cast<size_t>(fr.best)].cost) {
          c.status = CandidateStatus::kDominated;
          c.reason = fmt::format("dominated: cost lower bound ${:.4g} >= confirmed ${:.4g}", c.cost_bound,
                                 out.candidates[static_cast<size_t>(fr.best)].cost);
          continue;
        }
        if (confirmed >= plan.confirm.max_finalists) {
          c.reason = fmt::format("unexplored: over the cap of {} finalists", plan.confirm.max_finalists);
          continue;
        }
        counts(
            std::min(static_cast<int>(order.size() - pos), plan.confirm.max_finalists - confirmed),
            describe(c));
        ++confirmed;
        const Status done = confirm(i);
        if (!done.ok()) {
          if (opts.cancel == nullptr || !opts.cancel->load()) return done;
          return Error::runtime(fmt::format(
              "interrupted after {} finalist confirmation{}; the finalist being run ({}): {}",
              finished, finished == 1 ? "" : "s", describe(c), done.error().message));
        }
        ++finished;
        if (recorded) ++recorded_count;
        progress(fmt::format("{}: {}{}", describe(c), c.reason,
                             recorded ? " (recorded in the progress file)" : ""));
        if (c.status == CandidateStatus::kConfirmed &&
            (fr.best < 0 || c.cost < out.candidates[static_cast<size_t>(fr.best)].cost)) {
          fr.best = i;
        }
      }
      if (fr.best < 0) fr.why_not = why_not(fr.family);
      out.families.push_back(fr);
    }
    counts(0, "");
    return Status::Ok();
  }

  // The first binding constraint of the family's closest candidate: the refuted one with the
  // highest chance, else the pruned one with the best expectation, else a rejected, else invalid.
  std::string why_not(const std::string& family) const {
    const Candidate* best = nullptr;
    const bool ttt = plan.target.time_to_train();
    // Within a status, closer = higher chance, shorter expected/bound time, or higher goodput.
    auto rank = [ttt](const Candidate& c) {
      switch (c.status) {
        case CandidateStatus::kRefuted: return 3.0 + c.p_meet;
        case CandidateStatus::kPruned:
          return 2.0 + (ttt ? 1 / (1 + c.days_expected) : c.goodput_expected);
        case CandidateStatus::kRejected:
          return 1.0 + (ttt ? 1 / (1 + c.days_bound) : c.goodput_bound);
        default: return 0.0;
      }
    };
    for (const auto& c : out.candidates) {
      if (c.family != family) continue;
      if (!best || rank(c) > rank(*best)) best = &c;
    }
    if (!best) return "no candidates";
    return fmt::format("{} -> {}", describe(*best), best->reason);
  }

  void finish() {
    for (const auto& f : out.families) {
      if (f.best >= 0 && (out.best < 0 || out.candidates[static_cast<size_t>(f.best)].cost <
                                              out.candidates[static_cast<size_t>(out.best)].cost)) {
        out.best = f.best;
      }
    }
    // Pareto front over the Monte Carlo candidates: cheaper first, each strictly better in time
    // (the confidence quantile) or, with a goodput target, in the goodput quantile.
    std::vector<int> mc;
    for (size_t i = 0; i < out.candidates.size(); ++i) {
      const auto st = out.candidates[i].status;
      if (st == CandidateStatus::kConfirmed || st == CandidateStatus::kRefuted) mc.push_back(static_cast<int>(i));
    }
    std::stable_sort(mc.begin(), mc.end(), [&](int a, int b) {
      return out.candidates[static_cast<size_t>(a)].cost < out.candidates[static_cast<size_t>(b)].cost;
    });
    const bool ttt = plan.target.time_to_train();
    double best_score = std::numeric_limits<double>::infinity();
    for (int i : mc) {
      const auto& c = out.candidates[static_cast<size_t>(i)];
      const double score = ttt ? c.days_q : -c.goodput_q;
      if (score < best_score) {
        out.frontier.push_back(i);
        best_score = score;
      }
    }
  }
};

}  // namespace

std::string describe(const Candidate& c) {
  std::string s =
      fmt::format("{} {} {}+{} domains TP{}{} PP{} DP{}", c.family, c.hardware, c.domains,
                  c.spare_domains, c.tp, c.cp > 1 ? fmt::format(" CP{}", c.cp) : "", c.pp, c.dp);
  if (!c.auto_interval) s += fmt::format(" ckpt {:g}s", c.checkpoint_interval_s);
  return s;
}

const char* to_string(CandidateStatus s) {
  switch (s) {
    case CandidateStatus::kInvalid: return "invalid";
    case CandidateStatus::kRejected: return "rejected";
    case CandidateStatus::kPruned: return "pruned";
    case CandidateStatus::kDominated: return "dominated";
    case CandidateStatus::kUnexplored: return "unexplored";
    case CandidateStatus::kRefuted: return "refuted";
    case CandidateStatus::kConfirmed: return "confirmed";
  }
  return "?";
}

Result<PlanResult> run_plan(const Plan& plan, const PlanOptions& options) {
  Searcher s{plan, options, {}, {}};
  s.out.plan = plan;
  auto base = s.load_base();
  if (!base.ok()) return base.error();
  s.out.seed = plan.seed.value_or(base->seed);
  NTPSIM_RETURN_IF_ERROR(s.enumerate(*base));
  NTPSIM_RETURN_IF_ERROR(s.screen_all());
  NTPSIM_RETURN_IF_ERROR(s.confirm_families());
  s.finish();
  return std::move(s.out);
}

}  // namespace ntpsim::sim
