// Capacity planner tests: the planner's pick equals the optimum found by running the full Monte
// Carlo on every candidate of a small plan; a looser deadline never costs more and a higher
// goodput floor never costs less; invalid plans give located errors (exit 2); same plan and seed
// give byte-identical output for any thread count.
#include "sim/planner/planner.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <string>

#include "models/layout_search.h"
#include "reports/report.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/planner/plan.h"
#include "sim/planner/plan_output.h"
#include "sim/planner/screen.h"
#include "sim/scenario/loader.h"
#include "sim/simulation/simulation.h"
#include "tests/fixtures/tiny_job.h"

namespace ntpsim::sim {
namespace {

namespace fs = std::filesystem;

// A 32-GPU-class job (Llama 3 8B, HGX H100 domains of 8) with a high failure rate, so that
// candidates differ within a few simulated days.
const std::string kBase =
    std::string("name: tiny-plan-base\n") + test_fixtures::kTinyJob;

class PlanFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ntpsim_planner_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    write("train.yaml", std::string(kBase) + "train: {tokens: \"6e10\"}\nseed: 7\n");
    write("window.yaml", std::string(kBase) + "horizon: \"10d\"\nseed: 7\n");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  // A plan over 3..6 domains, 0..1 spare domains and three strategies, with a fixed number of
  // replications (min = max) so that the planner and the exhaustive check see the same runs.
  std::string plan(const std::string& target, const std::string& base = "train.yaml") {
    return write("plan.yaml", "base: " + base + R"(
search:
  domains: [3, 4, 5, 6]
  spare_domains: [0, 1]
  dp: derive
  strategies: [checkpoint_restart, dp_drop, ntp/in_place]
target:
)" + target + R"(
prices: {gpu_hour: 2.0, energy_per_mwh: 100}
# One Young/Daly interval for every strategy: the scenario was sized for it, so that deadlines
# and goodput floors change the cheapest candidate.
overrides: ["checkpoint.interval=auto_shared"]
confirm: {min_replications: 24, max_replications: 24, max_finalists: 100}
)");
  }

  Result<PlanResult> run(const std::string& path, int threads = 1) {
    auto p = read_plan(path);
    if (!p.ok()) return p.error();
    PlanOptions o;
    o.threads = threads;
    return run_plan(*p, o);
  }

  fs::path dir_;
};

// Runs the full Monte Carlo on every valid candidate; returns the cheapest meeting the target
// (-1 when none) and checks the planner's status agrees wherever the planner ran Monte Carlo.
int exhaustive_best(const PlanResult& r) {
  const PlanTarget& t = r.plan.target;
  int best = -1;
  double best_cost = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < r.candidates.size(); ++i) {
    const Candidate& c = r.candidates[i];
    if (c.status == CandidateStatus::kInvalid) continue;
    std::vector<std::string> ov = r.plan.overrides;
    ov.insert(ov.end(), c.overrides.begin(), c.overrides.end());
    auto s = load_scenario(r.plan.base, ov);
    EXPECT_TRUE(s.ok());
    if (!s.ok()) continue;
    RunOptions o;
    o.replications = r.plan.confirm.max_replications;
    o.threads = 2;
    o.timeline = false;
    auto mc = run_monte_carlo(*s, o);
    EXPECT_TRUE(mc.ok());
    if (!mc.ok()) continue;
    int met = 0;
    double days = 0, energy = 0;
    const auto& reps = mc->strategies.front().replications;
    for (const auto& m : reps) {
      const double d = at(m, Metric::kTimeToTrainDays);
      met += t.time_to_train() ? (d * 86400 <= t.deadline_s) : (at(m, Metric::kGoodput) >= t.goodput);
      days += d;
      energy += at(m, Metric::kEnergyMwh);
    }
    const double n = static_cast<double>(reps.size());
    const double hours = t.time_to_train() ? days / n * 24 : s->horizon_s / 3600;
    const double cost = c.domain_hour * hours + energy / n * r.plan.prices.energy_per_mwh;
    const bool ok = met / n >= t.confidence;
    if (c.status == CandidateStatus::kConfirmed || c.status == CandidateStatus::kRefuted) {
      EXPECT_EQ(c.status == CandidateStatus::kConfirmed, ok) << describe(c);
      EXPECT_NEAR(c.cost, cost, 1e-9 * cost) << describe(c);
    }
    if (c.status == CandidateStatus::kRejected) {
      EXPECT_FALSE(ok) << describe(c) << ": " << c.reason;
    }
    if (ok && cost < best_cost) {
      best_cost = cost;
      best = static_cast<int>(i);
    }
  }
  return best;
}

double best_cost(const PlanResult& r) {
  return r.best >= 0 ? r.candidates[static_cast<size_t>(r.best)].cost : std::numeric_limits<double>::infinity();
}

// Every table of two topologies, unit by unit.
void expect_same_topology(const Topology& a, const Topology& b, const std::string& what) {
  EXPECT_EQ(a.gpus(), b.gpus()) << what;
  EXPECT_EQ(a.domains(), b.domains()) << what;
  EXPECT_EQ(a.job_domains(), b.job_domains()) << what;
  EXPECT_EQ(a.gpus_per_node(), b.gpus_per_node()) << what;
  EXPECT_EQ(a.domains_per_pod(), b.domains_per_pod()) << what;
  for (Component c : {Component::kGpu, Component::kNode, Component::kDomain, Component::kPod}) {
    ASSERT_EQ(a.units(c), b.units(c)) << what;
    for (int64_t u = 0; u < a.units(c); ++u) {
      ASSERT_EQ(a.blast_radius(c, u), b.blast_radius(c, u)) << what << " unit " << u;
    }
  }
}

// The planner screens with one PrepareCache across candidates: each candidate's topology, step
// model and screen equal those of a fresh Simulation, also when consecutive candidates differ
// only in one of the cluster sizes the cache compares (a stale topology would show in units or
// radii) or in one input of the step model (a stale model in the iteration time).
TEST_F(PlanFiles, SharedTopologyScreensAsAFreshOne) {
  const std::string base = (dir_ / "train.yaml").string();
  const std::vector<std::vector<std::string>> candidates = {
      {},
      {},  // the same cluster again: served from the cache
      {"cluster.spare_domains=1"},
      {"cluster.spare_domains=1", "cluster.gpus_per_node=4"},
      {"cluster.spare_domains=1", "cluster.gpus_per_node=4", "cluster.domains_per_pod=2"},
      {"cluster.spare_domains=1", "cluster.gpus_per_node=4", "cluster.domains_per_pod=2",
       "cluster.domains=5"},
      {"cluster.spare_domains=1", "cluster.gpus_per_node=4", "cluster.domains_per_pod=2",
       "cluster.domains=5", "strategies=[ntp]"},
      {"cluster.gpus_per_node=2"},
      {"cluster.domains=3", "layout.dp=3", "strategies=[dp_drop]"},
      {"strategies=[{name: ntp_power_boost, max_power: 0.3}]"},
      {"strategies=[spares_then_ntp]"},
      {"model=analytic"},
      {"model=analytic", "strategies=[ntp]"},  // the same model again: served from the cache
      {"model=analytic", "layout.tp=4", "layout.dp=8"},
      {"model=analytic", "layout.tp=4", "layout.dp=8", "hardware=h200-sxm"},
      {"model=analytic", "layout.tp=4", "layout.dp=8", "hardware=h200-sxm"},
  };
  PrepareCache cache;
  const Topology* previous = nullptr;
  const models::StepModel* previous_model = nullptr;
  ClusterConfig previous_cluster;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string what = fmt::format("candidate {}", i);
    auto s = load_scenario(base, candidates[i]);
    ASSERT_TRUE(s.ok()) << what << ": " << s.error().message;
    auto fresh = Simulation::prepare(*s);
    auto shared = Simulation::prepare(*s, &cache);
    ASSERT_TRUE(fresh.ok()) << what << ": " << fresh.error().message;
    ASSERT_TRUE(shared.ok()) << what << ": " << shared.error().message;
    expect_same_topology((*shared)->topology(), (*fresh)->topology(), what);
    // Served from the cache exactly when the cluster did not change (the ntp candidate differs
    // from the one before only in its strategy).
    const ClusterConfig& c = s->cluster;
    const bool same_cluster = i > 0 && c.domains == previous_cluster.domains &&
                              c.spare_domains == previous_cluster.spare_domains &&
                              c.gpus_per_node == previous_cluster.gpus_per_node &&
                              c.domains_per_pod == previous_cluster.domains_per_pod;
    EXPECT_EQ(&(*shared)->topology() == previous, same_cluster) << what;
    EXPECT_EQ(same_cluster, i == 1 || i == 6 || i >= 10) << what;
    previous = &(*shared)->topology();
    previous_cluster = c;
    EXPECT_EQ((*shared)->interruption_rate_per_s(), (*fresh)->interruption_rate_per_s()) << what;
    // The step model is shared exactly when its kind, workload, layout and hardware did not
    // change (the strategy, the cluster's spares and nodes are not its inputs).
    const bool same_model = (i >= 1 && i <= 7) || i == 10 || i == 12 || i == 15;
    EXPECT_EQ(&(*shared)->step_model() == previous_model, same_model) << what;
    previous_model = &(*shared)->step_model();
    EXPECT_EQ((*shared)->healthy_iteration_s(), (*fresh)->healthy_iteration_s()) << what;
    EXPECT_EQ((*shared)->step_model().name(), (*fresh)->step_model().name()) << what;
    EXPECT_EQ((*shared)->step_model().min_tp(), (*fresh)->step_model().min_tp()) << what;
    for (int t = (*fresh)->step_model().min_tp(); t <= (*fresh)->step_model().nominal_tp(); ++t) {
      EXPECT_EQ((*shared)->step_model().replica_iteration_s(t, 0.7, 1.1),
                (*fresh)->step_model().replica_iteration_s(t, 0.7, 1.1))
          << what << " TP " << t;
    }

    // The screen prepares its simulation for the screen alone (no per-degree strategy tables);
    // on one prepared to run replications it gives the same values.
    auto a = screen_candidate(*s);
    auto b = screen_candidate(*s, &cache);
    auto c_run = screen_candidate(**fresh);
    ASSERT_TRUE(a.ok()) << what << ": " << a.error().message;
    ASSERT_TRUE(b.ok()) << what << ": " << b.error().message;
    ASSERT_TRUE(c_run.ok()) << what << ": " << c_run.error().message;
    EXPECT_EQ((*fresh)->use(), StrategyUse::kRun);
    for (const Screen* o : {&*b, &*c_run}) {
      EXPECT_EQ(a->ideal_tokens_per_s, o->ideal_tokens_per_s) << what;
      EXPECT_EQ(a->interruptions_per_s, o->interruptions_per_s) << what;
      EXPECT_EQ(a->interval_s, o->interval_s) << what;
      EXPECT_EQ(a->exposed_s, o->exposed_s) << what;
      EXPECT_EQ(a->down_fraction, o->down_fraction) << what;
      EXPECT_EQ(a->short_probability, o->short_probability) << what;
      EXPECT_EQ(a->short_groups, o->short_groups) << what;
      EXPECT_EQ(a->damaged_domains, o->damaged_domains) << what;
      EXPECT_EQ(a->goodput_bound, o->goodput_bound) << what;
      EXPECT_EQ(a->goodput_expected, o->goodput_expected) << what;
      EXPECT_EQ(a->power_w, o->power_w) << what;
    }
  }
  // A bad cluster is the builder's error, and the kept topology still serves its cluster.
  ClusterConfig bad;
  bad.domains = 4;
  bad.gpus_per_domain = 8;
  bad.gpus_per_node = 3;
  auto err = cache.topology(bad);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error().message, Topology::build(bad).error().message);
}

TEST_F(PlanFiles, DeadlinePlanFindsTheExhaustiveOptimum) {
  auto r = run(plan("  tokens: \"6e10\"\n  deadline: \"1.2d\"\n  confidence: \"80%\""));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->candidates.size(), 24u);
  const int best = exhaustive_best(*r);
  ASSERT_GE(best, 0) << "the test plan should have a feasible candidate";
  EXPECT_EQ(r->best, best) << describe(r->candidates[static_cast<size_t>(best)]);
  // Fewer Monte Carlo runs than candidates: the screen and the cost bound pruned some.
  EXPECT_LT(r->monte_carlo_runs, static_cast<int>(r->candidates.size()));
}

// Policy chains are strategy families like the others: screened by their composed closed form,
// confirmed by Monte Carlo, a power cap where they have max_power; the pick is still the
// exhaustive optimum.
TEST_F(PlanFiles, PolicyChainsAreCandidates) {
  const std::string path = write("chains.yaml", R"(base: window.yaml
search:
  domains: [3, 4, 5]
  spare_domains: [0, 1]
  dp: derive
  strategies: [ntp/in_place, spares_then_ntp, "spares_then_ntp_power_boost@20%"]
target: {goodput: "93%", confidence: "80%"}
prices: {gpu_hour: 2.0, energy_per_mwh: 100}
confirm: {min_replications: 24, max_replications: 24, max_finalists: 100}
)");
  auto r = run(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::set<std::string> families;
  for (const auto& c : r->candidates) {
    families.insert(c.family);
    if (c.status == CandidateStatus::kInvalid) continue;
    EXPECT_GT(c.goodput_expected, 0.0) << describe(c);
    EXPECT_LE(c.goodput_expected, c.goodput_bound + 1e-12) << describe(c);
  }
  EXPECT_EQ(families, (std::set<std::string>{"ntp/in_place", "spares_then_ntp",
                                             "spares_then_ntp_power_boost@20%"}));
  const int best = exhaustive_best(*r);
  ASSERT_GE(best, 0);
  EXPECT_EQ(r->best, best) << describe(r->candidates[static_cast<size_t>(best)]);
}

// A user's policy chain (and a registered strategy with parameters) written in the plan as a
// scenario's strategies entry: its candidates load exactly that entry, and the planner's best is
// still the exhaustive one.
TEST_F(PlanFiles, UserChainsInThePlanAreCandidates) {
  const std::string path = write("user_chains.yaml", R"(base: window.yaml
search:
  domains: [3, 4, 5]
  spare_domains: [0, 1]
  dp: derive
  strategies:
    - ntp/in_place
    - name: rack_then_ntp
      resume: in_place
      chain:
        - swap_in_domain
        - reduce_tp: {rule: parity}
    - {name: spare_replicas_boost, chain: [add_spare_replica, {reduce_tp: {power_boost: true, max_power: "20%"}}]}
    - {name: dp_drop, label: drop_keep_batch, keep_global_batch: true}
target: {goodput: "93%", confidence: "80%"}
prices: {gpu_hour: 2.0, energy_per_mwh: 100}
confirm: {min_replications: 24, max_replications: 24, max_finalists: 100}
)");
  auto plan = read_plan(path);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->search.strategies.size(), 4u);
  const PlanStrategy& rack = plan->search.strategies[1];
  EXPECT_EQ(rack.label(), "rack_then_ntp");
  EXPECT_FALSE(rack.entry.empty());
  EXPECT_EQ(plan->search.strategies[2].cap, 0.2);
  EXPECT_EQ(plan->search.strategies[3].label(), "drop_keep_batch");
  // The entry travels as an override and loads as the same strategy the plan wrote.
  auto s = load_scenario(plan->base, {"strategies=[" + rack.entry + "]"});
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->strategies.size(), 1u);
  EXPECT_EQ(s->strategies[0].name, "rack_then_ntp");
  ASSERT_EQ(s->strategies[0].chain.size(), 2u);
  EXPECT_EQ(s->strategies[0].chain[1].action, "reduce_tp");
  EXPECT_EQ(std::get<std::string>(s->strategies[0].chain[1].params.at("rule")), "parity");
  EXPECT_EQ(std::get<std::string>(s->strategies[0].params.at("resume")), "in_place");
  auto r = run(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::set<std::string> families;
  for (const auto& c : r->candidates) families.insert(c.family);
  EXPECT_EQ(families, (std::set<std::string>{"ntp/in_place", "rack_then_ntp",
                                             "spare_replicas_boost", "drop_keep_batch"}));
  const int best = exhaustive_best(*r);
  ASSERT_GE(best, 0);
  EXPECT_EQ(r->best, best) << describe(r->candidates[static_cast<size_t>(best)]);
}

TEST_F(PlanFiles, GoodputPlanFindsTheExhaustiveOptimum) {
  auto r = run(plan("  goodput: \"93%\"\n  confidence: \"80%\"", "window.yaml"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const int best = exhaustive_best(*r);
  ASSERT_GE(best, 0);
  EXPECT_EQ(r->best, best) << describe(r->candidates[static_cast<size_t>(best)]);
}

TEST_F(PlanFiles, LooserDeadlineNeverCostsMore) {
  double previous = std::numeric_limits<double>::infinity();
  std::set<double> seen;
  for (const char* deadline : {"1d", "1.2d", "2d", "4d"}) {
    auto r = run(plan(std::string("  tokens: \"6e10\"\n  deadline: \"") + deadline +
                      "\"\n  confidence: \"80%\""));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_LE(best_cost(*r), previous) << deadline;
    previous = best_cost(*r);
    seen.insert(previous);
  }
  EXPECT_TRUE(std::isfinite(previous));
  EXPECT_GE(seen.size(), 2u) << "the deadlines should change the answer";
}

TEST_F(PlanFiles, HigherGoodputFloorNeverCostsLess) {
  double previous = 0;
  std::set<double> seen;
  for (const char* floor : {"70%", "90%", "93%", "95%"}) {
    auto r = run(plan(std::string("  goodput: \"") + floor + "\"\n  confidence: \"80%\"", "window.yaml"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_GE(best_cost(*r), previous) << floor;
    previous = best_cost(*r);
    seen.insert(previous);
  }
  EXPECT_GE(seen.size(), 3u) << "the floors should change the answer";
}

TEST_F(PlanFiles, SameSeedSameBytesForAnyThreadCount) {
  const std::string p = plan("  tokens: \"6e10\"\n  deadline: \"4d\"\n  confidence: \"80%\"");
  auto one = run(p, 1);
  auto two = run(p, 2);
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_EQ(plan_document(*one).dump(1), plan_document(*two).dump(1));
  EXPECT_EQ(plan_csv(*one), plan_csv(*two));
  EXPECT_EQ(plan_table(*one), plan_table(*two));
}

TEST_F(PlanFiles, PlanReportInTheReportFamily) {
  auto r = run(plan("  tokens: \"6e10\"\n  deadline: \"4d\"\n  confidence: \"80%\""));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto doc = plan_document(*r);
  const std::string html = reports::render_plan_html(nlohmann::json(doc));
  // The run report's layout: verdict first, then the context block, the cost breakdown.
  const size_t verdict = html.find("<section id=\"verdict\"");
  const size_t context = html.find("<section id=\"context\">");
  ASSERT_NE(verdict, std::string::npos);
  ASSERT_NE(context, std::string::npos);
  EXPECT_LT(verdict, context);
  EXPECT_NE(html.find("<section id=\"costs\">"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  // Every Monte Carlo candidate carries its cost's parts and a CI that contains the mean.
  for (const auto& c : doc["candidates"]) {
    if (!c.contains("monte_carlo")) continue;
    const auto& m = c["monte_carlo"];
    EXPECT_NEAR(m["compute_cost"].get<double>() + m["energy_cost"].get<double>(),
                m["cost"].get<double>(), 1e-6 * m["cost"].get<double>());
    EXPECT_LE(m["cost_ci95_lo"].get<double>(), m["cost"].get<double>());
    EXPECT_GE(m["cost_ci95_hi"].get<double>(), m["cost"].get<double>());
  }
  const std::string path = (dir_ / "plan.html").string();
  ASSERT_TRUE(reports::write_report_files(doc, "plan.json", path, "").ok());
  EXPECT_TRUE(fs::exists(path));
  // Markdown too, with the chart beside it.
  ASSERT_TRUE(reports::write_report_files(doc, "plan.json", (dir_ / "p.md").string(), "").ok());
  EXPECT_TRUE(fs::exists(dir_ / "p.md"));
  EXPECT_TRUE(fs::exists(dir_ / "p-plan-frontier.svg"));
  // No CSV report and no timeline: bad input, nothing written.
  auto csv = reports::write_report_files(doc, "plan.json", (dir_ / "p.csv").string(), "");
  ASSERT_FALSE(csv.ok());
  EXPECT_EQ(csv.error().exit_code, ExitCode::kBadInput);
  EXPECT_FALSE(fs::exists(dir_ / "p.csv"));
  auto tl = reports::write_report_files(doc, "plan.json", "", (dir_ / "t.json").string());
  ASSERT_FALSE(tl.ok());
  EXPECT_FALSE(fs::exists(dir_ / "t.json"));
}

struct BadPlan {
  std::string text;
  int line;            // the line the message must point at
  const char* expect;  // substring of the message
};

TEST_F(PlanFiles, InvalidPlansGiveLocatedErrors) {
  const std::string head = "base: train.yaml\n";
  const std::string search = "search: {domains: [4], strategies: [ntp]}\n";
  const std::string target = "target: {tokens: 6e10, deadline: 4d}\n";
  const std::string prices = "prices: {gpu_hour: 2}\n";
  const BadPlan cases[] = {
      {head + "search: {domains: [4], strategies: [ntp], spare_domain: [1]}\n" + target + prices, 2,
       "search.spare_domain: unknown key (did you mean \"spare_domains\"?)"},
      {head + "search: {domains: [4], strategies: [ntpp]}\n" + target + prices, 2,
       "did you mean 'ntp'"},
      {head + "search: {domains: [0], strategies: [ntp]}\n" + target + prices, 2,
       "search.domains[0]: "},
      {head + "search: {domains: [4], strategies: [\"dp_drop@30%\"]}\n" + target + prices, 2,
       "only for a strategy with max_power"},
      {head + "search: {domains: [4], strategies: [checkpoint_restart/in_place]}\n" + target +
           prices,
       2,
       "'in_place': checkpoint_restart resumes by one of: restart_from_checkpoint, "
       "restart_from_memory"},
      {head + search + "target: {tokens: 6e10, deadline: 4d, goodput: 90%}\n" + prices, 3,
       "target: give either tokens"},
      {head + search + target + "prices: {energy_per_mwh: 80}\n", 4,
       "prices: give either gpu_hour"},
      {head + search + target + "prices: {gpu_hour: ~}\n", 4,
       "prices: missing required field \"gpu_hour\""},
      {head + search + target + "prices: {rack_capex: null, amortisation: 4y}\n", 4,
       "prices: missing required field \"rack_capex\""},
      {head + search + "target: {tokens: 6e10, deadline: 4 parsecs}\n" + prices, 3,
       "target.deadline: "},
      {"base: missing.yaml\n" + search + target + prices, 1, "base: base scenario"},
      {head + search + target + prices + "confirm: {min_replications: 1}\n", 5,
       "confirm.min_replications: "},
      {head + search + prices, 1, "missing required field \"target\""},
      {head +
           "search:\n  domains: [4]\n  strategies:\n    - ntp\n    - {name: mine, chain: "
           "[swap_in_domain, reduce_tpp]}\n" +
           target + prices,
       6, "search.strategies[1].chain[1]: unknown action \"reduce_tpp\""},
      {head +
           "search:\n  domains: [4]\n  strategies:\n    - {name: mine, chain: [restart]}\n"
           "    - {name: other, label: mine, chain: [restart]}\n" +
           target + prices,
       6, "search.strategies[1]: \"mine\" is listed twice"},
      {head + "search:\n  domains: [4]\n  strategies:\n    - {name: ntp, rull: parity}\n" + target +
           prices,
       5, "search.strategies[0].rull: unknown key (did you mean \"rule\"?)"},
      {head + "search: {domains: [4], strategies: [ntp], layout: given}\n" + target + prices, 2,
       "search.layout: 'auto' is the only value"},
      {head + "search: {domains: [4], strategies: [ntp], layout: auto, tp: [8]}\n" + target +
           prices,
       2, "search.layout: 'auto' chooses TP, PP and DP: remove search.tp"},
      {head + "search: {domains: [4], strategies: [ntp], layout: auto, cp: 4}\n" + target + prices,
       2, "search.cp: 'auto' is the only value (omit it to keep the base's CP)"},
      {head + "search: {domains: [4], strategies: [ntp], cp: auto}\n" + target + prices, 2,
       "search.cp: 'auto' chooses CP with the layout: add search.layout: auto"},
  };
  for (const auto& c : cases) {
    const std::string path = write("bad.yaml", c.text);
    auto p = read_plan(path);
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_EQ(p.error().exit_code, ExitCode::kBadInput) << c.text;
    EXPECT_NE(p.error().message.find(path + ":" + std::to_string(c.line) + ":"), std::string::npos)
        << p.error().message;
    EXPECT_NE(p.error().message.find(c.expect), std::string::npos) << p.error().message;
  }
}

// A first batch above the default last one (128) is also the last: the plan reader once kept
// max_replications at 128 below min_replications 1012 (fuzz_plan finding). Given, it must be at
// least min_replications.
TEST_F(PlanFiles, ConfirmationBatchesNeverEndBelowTheFirst) {
  const std::string head = "base: train.yaml\nsearch: {domains: [4], strategies: [ntp]}\n"
                           "target: {tokens: 6e10, deadline: 4d}\nprices: {gpu_hour: 2}\n";
  auto p = read_plan(write("a.yaml", head + "confirm: {min_replications: 1012}\n"));
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->confirm.min_replications, 1012);
  EXPECT_EQ(p->confirm.max_replications, 1012);
  p = read_plan(write("b.yaml", head + "confirm: {min_replications: 20}\n"));
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->confirm.max_replications, 128);
  p = read_plan(write("c.yaml", head + "confirm: {min_replications: 200, max_replications: 100}\n"));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("c.yaml:5:"), std::string::npos) << p.error().message;
  EXPECT_NE(p.error().message.find("confirm.max_replications: "), std::string::npos)
      << p.error().message;
  // Raised by min_replications alone past the worst-case bound: the message names it.
  p = read_plan(write("d.yaml", head + "confirm: {min_replications: 10000, max_finalists: 8}\n"));
  ASSERT_TRUE(p.ok()) << p.error().message;  // 1 family x 8 x 10^4 is within 10^6
  const std::string many =
      "base: train.yaml\nsearch: {domains: [4], strategies: [ntp, dp_drop, checkpoint_restart, "
      "spare_substitution, ntp_power_boost, \"ntp_power_boost@30%\", \"ntp_power_boost@20%\", "
      "\"ntp_power_boost@10%\", \"ntp_power_boost@40%\", \"ntp_power_boost@50%\", "
      "\"ntp_power_boost@60%\", \"ntp_power_boost@70%\", \"ntp_power_boost@80%\"]}\n"
      "target: {tokens: 6e10, deadline: 4d}\nprices: {gpu_hour: 2}\n";
  p = read_plan(write("e.yaml", many + "confirm: {min_replications: 10000}\n"));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("confirm.min_replications: "), std::string::npos)
      << p.error().message;
  EXPECT_NE(p.error().message.find("lower max_finalists or min_replications"), std::string::npos)
      << p.error().message;
  // With max_replications given, it is the one the advice names.
  p = read_plan(write("f.yaml", many + "confirm: {max_replications: 10000}\n"));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("lower max_finalists or max_replications"), std::string::npos)
      << p.error().message;
}

TEST_F(PlanFiles, TargetMustSuitTheBaseScenario) {
  const std::string path = write("p.yaml", R"(base: window.yaml
search: {domains: [4], strategies: [ntp]}
target: {tokens: 6e10, deadline: 4d}
prices: {gpu_hour: 2}
)");
  auto r = run(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(r.error().message.find("needs a base scenario with train:"), std::string::npos);
}

TEST_F(PlanFiles, InvalidCombinationsAreReportedNotFatal) {
  // TP 16 does not fit a domain of 8 GPUs: the loader's own message, kept per candidate.
  const std::string path = write("p.yaml", R"(base: train.yaml
search: {domains: [4], tp: [8, 16], strategies: [ntp]}
target: {tokens: 6e10, deadline: 8d}
prices: {gpu_hour: 2}
confirm: {min_replications: 8, max_replications: 8}
)");
  auto r = run(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->candidates.size(), 2u);
  EXPECT_EQ(r->candidates[1].status, CandidateStatus::kInvalid);
  EXPECT_NE(r->candidates[1].reason.find("does not fit"), std::string::npos) << r->candidates[1].reason;
  EXPECT_EQ(r->best, 0);
}

// `layout: auto`: each cluster size gets the layout of the most healthy tokens/s its domains give
// under the analytic step model (models/layout_search.h), whatever the base's step model.
TEST_F(PlanFiles, LayoutAutoChoosesTheFastestLayoutPerClusterSize) {
  const std::string path = write("p.yaml", R"(base: train.yaml
search: {domains: [4, 6], layout: auto, strategies: [ntp]}
target: {tokens: 6e10, deadline: 8d}
prices: {gpu_hour: 2}
confirm: {min_replications: 4, max_replications: 4}
)");
  auto r = run(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->candidates.size(), 2u);
  for (const Candidate& c : r->candidates) {
    EXPECT_NE(c.status, CandidateStatus::kInvalid) << c.reason;
    auto s = load_scenario(
        r->plan.base, base_load_options(r->plan, {"cluster.domains=" + std::to_string(c.domains)}));
    ASSERT_TRUE(s.ok());
    models::LayoutSearch search{0, 8, c.domains, 1};
    search.exact_gpus = false;
    const auto best = models::fastest_layout(s->workload, s->hardware, search);
    ASSERT_TRUE(best.has_value());
    EXPECT_EQ(c.tp, best->layout.tp) << c.domains;
    EXPECT_EQ(c.pp, best->layout.pp) << c.domains;
    EXPECT_EQ(c.dp, best->layout.dp) << c.domains;
    // No slower than the base's TP 8 x PP 1 with the replicas the domains hold.
    const models::Layout base_layout{8, 1, c.domains, 1};
    const double base_rate = models::AnalyticStepModel(s->workload, base_layout, s->hardware)
                                 .breakdown(8, 1, 1)
                                 .tokens_per_s_per_gpu *
                             8 * c.domains;
    EXPECT_GE(
        best->healthy.tokens_per_s_per_gpu * best->layout.tp * best->layout.pp * best->layout.dp,
        base_rate * (1 - 1e-12));
  }
}

// The target, prices and confirmation of the one-candidate `layout: auto` plans below.
constexpr const char* kOneCandidateTail = R"(target: {tokens: 6e10, deadline: 8d}
prices: {gpu_hour: 2}
confirm: {min_replications: 4, max_replications: 4}
)";

// The candidate runs the layout search's choice.
void expect_layout(const Candidate& c, const models::Layout& l, const std::string& what) {
  EXPECT_EQ(c.cp, l.cp) << what;
  EXPECT_EQ(c.tp, l.tp) << what;
  EXPECT_EQ(c.pp, l.pp) << what;
  EXPECT_EQ(c.dp, l.dp) << what;
}

// `layout: auto` for a 128K-token sequence: no layout of the domains fits at the base's CP 1, so
// CP is chosen as well (models/layout_search.h); with `cp: auto` CP is chosen even where CP 1
// fits. The candidate carries its CP in its overrides, its description and its JSON.
TEST_F(PlanFiles, LayoutAutoChoosesCpWhereNothingFitsWithoutIt) {
  std::string text = std::string(kBase) + "train: {tokens: \"6e10\"}\nseed: 7\n";
  const std::string name = "workload: llama3-8b\n";
  ASSERT_NE(text.find(name), std::string::npos);
  text.replace(text.find(name), name.size(),
               "workload: {base: llama3-8b, seq_len: 131072, global_batch: 64}\n");
  write("long.yaml", text);
  const std::string path =
      write("p.yaml", std::string("base: long.yaml\n"
                                  "search: {domains: [4], layout: auto, strategies: [ntp]}\n") +
                          kOneCandidateTail);
  auto r = run(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->candidates.size(), 1u);
  const Candidate& c = r->candidates[0];
  EXPECT_NE(c.status, CandidateStatus::kInvalid) << c.reason;
  auto s = load_scenario(r->plan.base, base_load_options(r->plan, {}));
  ASSERT_TRUE(s.ok()) << s.error().message;
  models::LayoutSearch search{0, 8, 4, 1};
  search.exact_gpus = false;
  EXPECT_FALSE(models::fastest_layout(s->workload, s->hardware, search).has_value());
  search.cp = 0;
  const auto best = models::fastest_layout(s->workload, s->hardware, search);
  ASSERT_TRUE(best.has_value());
  EXPECT_GT(best->layout.cp, 1);
  expect_layout(c, best->layout, "128K");
  // The candidate's failure-free rate per GPU is the one its time to train is made of, over all
  // of its GPUs (CP ranks included).
  EXPECT_NEAR(c.ideal_tokens_per_s_per_gpu * c.tp * c.cp * c.pp * c.dp * c.ideal_days * 86400, 6e10,
              6e10 * 1e-12);
  EXPECT_NE(std::find(c.overrides.begin(), c.overrides.end(),
                      "layout.cp=" + std::to_string(best->layout.cp)),
            c.overrides.end());
  EXPECT_NE(describe(c).find(" CP" + std::to_string(best->layout.cp) + " "), std::string::npos)
      << describe(c);
  const auto doc = plan_document(*r);
  EXPECT_EQ(doc["candidates"][0]["cp"].get<int>(), best->layout.cp);
  // The CSV row names the CP too, so tp x cp x pp x dp is the job's GPU count.
  const std::string csv = plan_csv(*r);
  EXPECT_NE(csv.find(",tp,pp,dp,cp,"), std::string::npos) << csv;
  // The header names every column a row has.
  EXPECT_NE(csv.find(",status,ideal_tokens_per_s_per_gpu,goodput_expected,"), std::string::npos)
      << csv;
  const std::string header = csv.substr(0, csv.find('\n'));
  const size_t row_end = csv.find('\n', header.size() + 1);
  std::string row = csv.substr(header.size() + 1, row_end - header.size() - 1);
  row = row.substr(0, row.find('"'));  // the reason, last, is quoted when it holds a comma
  EXPECT_EQ(std::count(header.begin(), header.end(), ','), std::count(row.begin(), row.end(), ','))
      << csv;
  EXPECT_NE(csv.find(fmt::format(",{},{},{},{},", c.tp, c.pp, c.dp, best->layout.cp)),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(fmt::format(",{},{},", to_string(c.status), c.ideal_tokens_per_s_per_gpu)),
            std::string::npos)
      << csv;
  EXPECT_EQ(doc["candidates"][0]["closed_form"]["ideal_tokens_per_s_per_gpu"].get<double>(),
            c.ideal_tokens_per_s_per_gpu);

  // The shipped 8K sequence fits at CP 1: `layout: auto` keeps CP 1 (no "cp" in the JSON),
  // `cp: auto` takes the CP of the most tokens/s.
  for (const bool cp_auto : {false, true}) {
    const std::string p2 = write(
        "p2.yaml", std::string("base: train.yaml\nsearch: {domains: [4], layout: auto, ") +
                       (cp_auto ? "cp: auto, " : "") + "strategies: [ntp]}\n" + kOneCandidateTail);
    auto r2 = run(p2);
    ASSERT_TRUE(r2.ok()) << r2.error().message;
    ASSERT_EQ(r2->candidates.size(), 1u);
    const Candidate& c2 = r2->candidates[0];
    auto s2 = load_scenario(r2->plan.base, base_load_options(r2->plan, {}));
    ASSERT_TRUE(s2.ok());
    models::LayoutSearch fill{0, 8, 4, 1};
    fill.exact_gpus = false;
    fill.cp = cp_auto ? 0 : 1;
    const auto b2 = models::fastest_layout(s2->workload, s2->hardware, fill);
    ASSERT_TRUE(b2.has_value());
    expect_layout(c2, b2->layout, cp_auto ? "cp: auto" : "8K");
    if (!cp_auto) {
      EXPECT_EQ(c2.cp, 1);
      EXPECT_FALSE(plan_document(*r2)["candidates"][0].contains("cp"));
      EXPECT_NE(plan_csv(*r2).find(fmt::format(",{},{},{},1,", c2.tp, c2.pp, c2.dp)),
                std::string::npos);
    }
  }
}

// An override written in a plan is reported at its line and column in the plan file, never as a
// command-line "--set" (errors of the override itself, of its value, and of checks it fails).
TEST_F(PlanFiles, OverrideErrorsNameThePlanFileAndLine) {
  const std::string rest =
      "search: {domains: [4], strategies: [ntp]}\n"
      "target: {tokens: 6e10, deadline: 4d}\nprices: {gpu_hour: 2}\n";
  struct Case {
    std::string overrides;  // the plan's line 2 onwards
    std::string expect;     // the message after the plan's path
  };
  const Case cases[] = {
      {"overrides:\n  - nosuch.x=1\n", ":3:5: nosuch: unknown key"},
      {"overrides:\n  - cluster.domains=abc\n", ":3:21: cluster.domains: expected a whole number"},
      {"overrides:\n  - \"layout.tp=80\"\n", ":3:16: layout.tp: TP 80 does not fit in a domain"},
      {"overrides: [seed=1, horizon=null]\n", ":2:29: horizon: null is not a value"},
      {"overrides:\n  - failures.processes[7].rate=1/h\n",
       ":3:5: failures.processes[7].rate: failures.processes has no element [7]"},
      {"overrides:\n  - layout..tp=8\n", ":3:5: (override): bad field path \"layout..tp\""},
      {
          "overrides:\n  - \"layout.tp=[1, 2\"\n",
          ":3:",
      },
  };
  for (const auto& c : cases) {
    const std::string path = write("bad.yaml", "base: train.yaml\n" + c.overrides + rest);
    auto p = read_plan(path);
    ASSERT_TRUE(p.ok()) << p.error().message;
    PlanOptions o;
    o.threads = 1;
    auto r = run_plan(*p, o);
    ASSERT_FALSE(r.ok()) << c.overrides;
    EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);
    EXPECT_EQ(r.error().message.rfind(path + c.expect, 0), 0u) << r.error().message;
    EXPECT_EQ(r.error().message.find("--set"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace ntpsim::sim
