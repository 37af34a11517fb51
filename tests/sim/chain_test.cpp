// Policy chains (sim/strategies/chain.cpp): a chain of one terminal action is that action's
// strategy, metric for metric on common failures; in-domain spares that never run out make a
// spares-first chain equal spare_substitution; without spares it equals ntp; the closed forms
// compose; the engine's invariants hold (goodput + badputs = 1, no GPU lost by swaps).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "models/base/random.h"
#include "sim/engine/engine.h"
#include "sim/engine/job_state.h"
#include "sim/io/results_json.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/strategies/plugin.h"
#include "sim_fixture.h"

namespace ntpsim::sim {
namespace {

using testing::Bench;
using testing::gpu_failure;
using testing::small_scenario;

ChainStep step(const std::string& action, std::map<std::string, ParamValue> params = {}) {
  return ChainStep{action, std::move(params)};
}

StrategyConfig chain(const std::string& name, std::vector<ChainStep> steps) {
  return StrategyConfig{name, name, {}, std::move(steps)};
}

StrategyConfig registered(const std::string& name, std::map<std::string, ParamValue> params = {},
                          const std::string& label = "") {
  // ntp's default restarts from the checkpoint; the chains it is compared with recover in place.
  if (name == "ntp" || name == "ntp_power_boost") params.emplace("resume", std::string("in_place"));
  return StrategyConfig{name, label.empty() ? name : label, std::move(params), {}};
}

// Bit-for-bit equality of two replications' metrics (NaN, the unused time-to-train, included).
void expect_same_bits(const ReplicationMetrics& a, const ReplicationMetrics& b,
                      const std::string& what) {
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(std::bit_cast<uint64_t>(a[k]), std::bit_cast<uint64_t>(b[k]))
        << what << ": metric " << k << ": " << a[k] << " vs " << b[k];
  }
}

// Domains of `gpus_per_domain` GPUs with TP `tp` and PP 1, every job domain in use; GPU failures
// at `rate_per_h` per GPU, repaired after `repair_s`.
Scenario mc_scenario(int domains, int gpus_per_domain, int tp, int spare_domains, double rate_per_h,
                     double repair_s) {
  Scenario s = testing::tiny_job(domains, gpus_per_domain, tp, spare_domains, rate_per_h, repair_s);
  s.name = "chains";
  s.replications.fixed = 6;
  s.seed = 5;
  return s;
}

RunResult run(const Scenario& s) {
  RunOptions o;
  o.threads = 1;
  o.timeline = false;
  auto r = run_monte_carlo(s, o);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : RunResult{};
}

// Pairs (strategy, its chain) run on the same failures give the same metrics, bit for bit.
RunResult expect_pairs_equal(Scenario s,
                             const std::vector<std::pair<StrategyConfig, StrategyConfig>>& pairs) {
  s.strategies.clear();
  for (const auto& [a, b] : pairs) {
    s.strategies.push_back(a);
    s.strategies.push_back(b);
  }
  const RunResult r = run(s);
  EXPECT_EQ(r.strategies.size(), 2 * pairs.size());
  for (size_t i = 0; 2 * i + 1 < r.strategies.size(); ++i) {
    const StrategyRun& a = r.strategies[2 * i];
    const StrategyRun& b = r.strategies[2 * i + 1];
    EXPECT_EQ(a.replications.size(), b.replications.size());
    for (size_t j = 0; j < a.replications.size() && j < b.replications.size(); ++j) {
      expect_same_bits(a.replications[j], b.replications[j], a.label + " vs " + b.label);
    }
  }
  return r;
}

// Mean of one metric over a run's replications.
double mean_of(const StrategyRun& r, Metric m) {
  double sum = 0;
  for (const auto& x : r.replications) sum += at(x, m);
  return r.replications.empty() ? 0 : sum / static_cast<double>(r.replications.size());
}

const StrategyRun& by_label(const RunResult& r, const std::string& label) {
  for (const auto& s : r.strategies) {
    if (s.label == label) return s;
  }
  ADD_FAILURE() << "no strategy labelled " << label;
  return r.strategies.front();
}

const std::vector<std::pair<StrategyConfig, StrategyConfig>>& equivalent_pairs() {
  static const std::vector<std::pair<StrategyConfig, StrategyConfig>> kPairs = {
      {registered("checkpoint_restart"), chain("c_restart", {step("restart")})},
      {registered("dp_drop"), chain("c_drop", {step("drop_replica")})},
      {registered("spare_substitution"),
       chain("c_spares",
             {step("swap_in_domain"), step("replace_with_spare_domain"), step("restart")})},
      {registered("ntp"), chain("c_ntp", {step("reduce_tp")})},
      {registered("ntp_power_boost"),
       chain("c_boost", {step("reduce_tp", {{"power_boost", true}})})},
      {registered("spare_substitution", {{"fallback", std::string("ntp")}}, "subst_ntp"),
       registered("spares_then_ntp")},
      {registered("ntp", {{"rule", std::string("parity")}, {"use_spare_domains", false}},
                  "ntp_parity"),
       chain("c_parity",
             {step("reduce_tp", {{"rule", std::string("parity")}, {"use_spare_domains", false}})})},
  };
  return kPairs;
}

// In-domain idle GPUs (2 per domain) that run out, a spare domain, frequent failures: every
// branch of the chains is taken.
TEST(Chain, OneActionChainsAndSpareChainsEqualTheirStrategies) {
  const RunResult r =
      expect_pairs_equal(mc_scenario(8, 10, 4, 1, 2e-3, 2 * 86400.0), equivalent_pairs());
  // Not vacuous: spares_then_ntp swapped (fewer interruptions than ntp: no rejoins after swaps)
  // and also ran reduced (its spares ran out).
  const StrategyRun& ntp = by_label(r, "ntp");
  const StrategyRun& chained = by_label(r, "spares_then_ntp");
  EXPECT_LT(mean_of(chained, Metric::kInterruptions), mean_of(ntp, Metric::kInterruptions));
  EXPECT_GT(mean_of(chained, Metric::kBadputDegraded), 0.0);
  EXPECT_GT(mean_of(by_label(r, "c_restart"), Metric::kBadputRollback), 0.0);
}

TEST(Chain, EqualTheirStrategiesWithoutInDomainSpares) {
  expect_pairs_equal(mc_scenario(8, 8, 4, 2, 1e-3, 86400.0), equivalent_pairs());
}

// No in-domain idle GPU, no spare domain, PP 1 (so no healthy group is ever left unused): every
// interruption goes to reduce_tp, as ntp's do.
TEST(Chain, WithoutSparesSparesThenNtpIsNtp) {
  expect_pairs_equal(mc_scenario(8, 8, 4, 0, 2e-3, 86400.0),
                     {{registered("ntp"), registered("spares_then_ntp")},
                      {registered("ntp_power_boost"), registered("spares_then_ntp_power_boost")}});
}

// Hand-built failures one at a time, each repaired before the next: the domain's idle GPUs never
// run out, so every interruption is a swap (detection + spare_swap) and the NTP fallback is never
// reached: the chain is spare_substitution, and both pay exactly n (100 s + 300 s).
TEST(Chain, InDomainSparesThatNeverRunOutMakeTheChainSpareSubstitution) {
  Bench b(small_scenario(0, 10, 4));  // 2 domains x 10 GPUs: 2 TP-4 groups + 2 idle GPUs each
  std::vector<FailureEvent> f;
  for (int i = 0; i < 6; ++i) {
    f.push_back(gpu_failure(500.0 + 1500.0 * i, (i * 7) % 20, 1, 600.0));
  }
  const auto subst = b.strategy("spare_substitution");
  auto chained =
      make_strategy(registered("spares_then_ntp"), b.model, b.layout, b.scenario.hardware);
  ASSERT_TRUE(subst != nullptr);
  ASSERT_TRUE(chained.ok()) << chained.error().message;
  Engine e1(b.config), e2(b.config);
  e1.keep_fingerprint(true);
  e2.keep_fingerprint(true);
  const ReplicationMetrics a = e1.run(*subst, f);
  const ReplicationMetrics c = e2.run(**chained, f);
  expect_same_bits(a, c, "spare_substitution vs spares_then_ntp");
  EXPECT_EQ(e1.trajectory_hash(), e2.trajectory_hash());
  // Swaps move GPUs between groups and the idle set, so which failure hits the job follows the
  // swaps; each one that does costs one swap pause.
  const double hits = at(c, Metric::kInterruptions);
  EXPECT_GE(hits, 4.0);
  EXPECT_NEAR(at(c, Metric::kBadputRecovery) * b.scenario.horizon_s, hits * (100.0 + 300.0), 1e-6);
  EXPECT_EQ(at(c, Metric::kBadputDegraded), 0.0);
}

// Without spares the chain reduces TP at reconfigure cost, as ntp: a failure at t=1000 (group
// 0 runs at TP 3), another at 3000 in the other domain, repairs after 2000 s.
TEST(Chain, WithoutSparesTheChainReducesTpAsNtp) {
  Bench b(small_scenario());  // 2 domains x 8 GPUs, TP 4: no idle GPU, no spare domain
  std::vector<FailureEvent> f = {gpu_failure(1000, 0, 1, 2000), gpu_failure(3000, 9, 1, 2000),
                                 gpu_failure(3500, 1, 2, 500)};
  const auto ntp = b.strategy("ntp", testing::in_place());
  auto chained = make_strategy(
      chain("mine", {step("swap_in_domain"), step("replace_with_spare_domain"), step("reduce_tp")}),
      b.model, b.layout, b.scenario.hardware);
  ASSERT_TRUE(chained.ok()) << chained.error().message;
  EXPECT_EQ((*chained)->name(), "mine");
  Engine e1(b.config), e2(b.config);
  const ReplicationMetrics a = e1.run(*ntp, f);
  const ReplicationMetrics c = e2.run(**chained, f);
  expect_same_bits(a, c, "ntp vs chain");
  EXPECT_GT(at(c, Metric::kBadputReshard), 0.0);
}

// The recovery kind per Coverage: the first action that made the job whole, else the terminal's.
TEST(Chain, RecoveryKindIsTheFirstActionThatResolved) {
  Bench b(small_scenario(1, 10, 4));
  auto make = [&](std::vector<ChainStep> steps) {
    auto r = make_strategy(chain("k", std::move(steps)), b.model, b.layout, b.scenario.hardware);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return std::move(r.value());
  };
  const auto full =
      make({step("swap_in_domain"), step("replace_with_spare_domain"), step("reduce_tp")});
  EXPECT_EQ(full->recovery(Coverage::kInDomainSpares), RecoveryKind::kSwap);
  EXPECT_EQ(full->recovery(Coverage::kFreeGroups), RecoveryKind::kSwap);
  EXPECT_EQ(full->recovery(Coverage::kShort), RecoveryKind::kReconfigure);
  EXPECT_TRUE(full->rules().in_domain_spares);
  EXPECT_TRUE(full->rules().use_spare_domains);
  EXPECT_FALSE(full->rules().needs_full_job);

  const auto swap_restart = make({step("swap_in_domain"), step("restart")});
  EXPECT_EQ(swap_restart->recovery(Coverage::kInDomainSpares), RecoveryKind::kSwap);
  EXPECT_EQ(swap_restart->recovery(Coverage::kFreeGroups), RecoveryKind::kRestart);
  EXPECT_EQ(swap_restart->recovery(Coverage::kShort), RecoveryKind::kRestart);
  EXPECT_TRUE(swap_restart->rules().needs_full_job);

  // A restart re-forms groups from the domain's idle GPUs itself: without swap_in_domain that
  // costs a restart.
  const auto replace_restart = make({step("replace_with_spare_domain"), step("restart")});
  EXPECT_EQ(replace_restart->recovery(Coverage::kInDomainSpares), RecoveryKind::kRestart);
  EXPECT_EQ(replace_restart->recovery(Coverage::kFreeGroups), RecoveryKind::kSwap);

  const auto drop = make({step("drop_replica", {{"use_spare_domains", false}})});
  EXPECT_FALSE(drop->rules().use_spare_domains);
  EXPECT_FALSE(drop->rules().in_domain_spares);
  EXPECT_EQ(drop->recovery(Coverage::kShort), RecoveryKind::kReconfigure);
}

// make_chain_strategy refuses what the scenario reader refuses (for configs built in code).
TEST(Chain, BadChainsAreBadInput) {
  Bench b(small_scenario(1, 10, 4));
  auto err = [&](std::vector<ChainStep> steps) {
    auto r = make_strategy(chain("bad", std::move(steps)), b.model, b.layout, b.scenario.hardware);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.error().message;
  };
  EXPECT_EQ(err({step("swap_in_domain")}),
            "strategies.bad.chain: no terminal action: end the chain with reduce_tp, "
            "drop_replica or restart (what happens when no spare is left)");
  EXPECT_EQ(err({step("restart"), step("swap_in_domain")}).rfind("strategies.bad.chain[1]: ", 0),
            0u);
  EXPECT_NE(err({step("reduce_tp"), step("drop_replica")}).find("incompatible"), std::string::npos);
  EXPECT_NE(err({step("reduce_tp", {{"max_power", 0.2}})}).find("only with power_boost: true"),
            std::string::npos);
  EXPECT_NE(
      err({step("reduce_tp", {{"power_boost", std::string("yes")}})}).find("wrong value type"),
      std::string::npos);
  EXPECT_NE(
      err({step("replace_with_spare_domain"), step("restart", {{"use_spare_domains", false}})})
          .find("contradicts replace_with_spare_domain"),
      std::string::npos);
  EXPECT_NE(err({step("restart", {{"rule", std::string("parity")}})})
                .find("restart has no option 'rule'"),
            std::string::npos);
}

TEST(Chain, CheckChainRules) {
  EXPECT_FALSE(check_chain({"swap_in_domain", "replace_with_spare_domain", "reduce_tp"}));
  EXPECT_FALSE(check_chain({"restart"}));
  EXPECT_FALSE(check_chain({"replace_with_spare_domain", "drop_replica"}));
  const auto unknown = check_chain({"swap_in_domain", "reduce_tpp"});
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->index, 1u);
  EXPECT_NE(unknown->message.find("did you mean \"reduce_tp\""), std::string::npos);
  const auto dup = check_chain({"swap_in_domain", "swap_in_domain", "restart"});
  ASSERT_TRUE(dup);
  EXPECT_EQ(dup->index, 1u);
  const auto order = check_chain({"replace_with_spare_domain", "swap_in_domain", "restart"});
  ASSERT_TRUE(order);
  EXPECT_EQ(order->index, 1u);
  const auto two = check_chain({"restart", "reduce_tp"});
  ASSERT_TRUE(two);
  EXPECT_NE(two->message.find("second terminal action"), std::string::npos);
  const auto none = check_chain({"swap_in_domain"});
  ASSERT_TRUE(none);
  EXPECT_EQ(none->index, 1u);  // the chain as a whole
  ASSERT_TRUE(check_chain({}));
  EXPECT_FALSE(check_chain({"swap_in_domain", "add_spare_replica", "reduce_tp"}));
  const auto both = check_chain({"replace_with_spare_domain", "add_spare_replica", "reduce_tp"});
  ASSERT_TRUE(both);
  EXPECT_EQ(both->index, 1u);
  EXPECT_NE(both->message.find("incompatible"), std::string::npos) << both->message;
  const auto drop = check_chain({"add_spare_replica", "drop_replica"});
  ASSERT_TRUE(drop);
  EXPECT_EQ(drop->index, 1u);
  EXPECT_NE(drop->message.find("add_spare_replica needs reduce_tp"), std::string::npos)
      << drop->message;
  ASSERT_TRUE(check_chain({"add_spare_replica", "restart"}));
  const auto late = check_chain({"reduce_tp", "add_spare_replica"});
  ASSERT_TRUE(late);
  EXPECT_NE(late->message.find("after the terminal action"), std::string::npos);
}

// Fixed mini-batch (add_spare_replica): one failed GPU leaves group 0 at TP 3 in the job (no
// trade with the spare domain's healthy groups); the spare domain's two groups are two whole
// spare replicas (PP 1), of which one joins: the job delivers the whole batch (R = 4) and runs
// 3 + 3 x 4 + 4 GPUs. Plain ntp instead trades the damaged group for a spare group.
TEST(Chain, SpareReplicasMakeUpTheBatchDamagedReplicasGiveUp) {
  Bench b(small_scenario(1, 8, 4));
  auto fixed = make_strategy(chain("fixed", {step("add_spare_replica"), step("reduce_tp")}),
                             b.model, b.layout, b.scenario.hardware);
  ASSERT_TRUE(fixed.ok()) << fixed.error().message;
  EXPECT_TRUE((*fixed)->rules().spare_replicas);
  EXPECT_TRUE((*fixed)->rules().use_spare_domains);
  EXPECT_EQ((*fixed)->recovery(Coverage::kShort), RecoveryKind::kReconfigure);
  JobState job(b.layout);
  job.reset((*fixed)->rules());
  EXPECT_EQ(job.spare_replicas(), 2);
  job.fail(GpuRange{0, 1});
  job.reassign();
  EXPECT_EQ(job.histogram()[3], 1);
  EXPECT_EQ(job.histogram()[4], 3);
  EXPECT_EQ(job.spare_replicas(), 2);
  const JobShape own = (*fixed)->shape(job.histogram());
  ASSERT_GT(own.batch_replicas, 3.0);
  ASSERT_LT(own.batch_replicas, 4.0);
  EXPECT_NEAR(own.rate_no_reshard, own.batch_replicas / 4, 1e-12);
  const JobShape s = with_spare_replicas(own, job.spare_replicas(), (*fixed)->shape_context());
  EXPECT_DOUBLE_EQ(s.batch_replicas, 4.0);
  EXPECT_NEAR(s.rate_no_reshard, 1.0, 1e-12);
  EXPECT_NEAR(s.rate, own.rate * 4 / own.batch_replicas, 1e-12);
  EXPECT_EQ(s.active_replicas, 5);
  EXPECT_EQ(s.running_gpus, 3 + 3 * 4 + 4);
  EXPECT_EQ(s.iteration_s, own.iteration_s);
  // No spare replica, or a whole job: unchanged.
  const JobShape none = with_spare_replicas(own, 0, (*fixed)->shape_context());
  EXPECT_EQ(none.rate, own.rate);
  EXPECT_EQ(none.running_gpus, own.running_gpus);

  const auto ntp = b.strategy("ntp", testing::in_place());
  JobState traded(b.layout);
  traded.reset(ntp->rules());
  traded.fail(GpuRange{0, 1});
  traded.reassign();
  EXPECT_EQ(traded.histogram()[4], 4);
  EXPECT_EQ(traded.spare_replicas(), 1);
}

// Over time: one failure at t=1000 repaired at 3000. The spare replica keeps the batch whole
// (no degraded badput, which ntp without spares pays) while the damaged group stays in the job
// (reshard badput, which ntp's one-for-one trade avoids); without spare domains the chain is ntp.
TEST(Chain, SpareReplicasInTheEngine) {
  const std::vector<FailureEvent> f = {gpu_failure(1000, 0, 1, 2000)};
  auto run_one = [&](int spare_domains, const StrategyConfig& c) {
    Bench b(small_scenario(spare_domains, 8, 4));
    auto st = make_strategy(c, b.model, b.layout, b.scenario.hardware);
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
    Engine e(b.config);
    return e.run(**st, f);
  };
  const StrategyConfig fixed = chain("fixed", {step("add_spare_replica"), step("reduce_tp")});
  const ReplicationMetrics with = run_one(1, fixed);
  EXPECT_EQ(at(with, Metric::kBadputDegraded), 0.0);
  EXPECT_GT(at(with, Metric::kBadputReshard), 0.0);
  const ReplicationMetrics ntp_traded = run_one(1, registered("ntp"));
  EXPECT_EQ(at(ntp_traded, Metric::kBadputReshard), 0.0);
  const ReplicationMetrics without = run_one(0, fixed);
  EXPECT_GT(at(without, Metric::kBadputDegraded), 0.0);
  expect_same_bits(without, run_one(0, registered("ntp")), "fixed batch without spares vs ntp");
}

// Random failures and repairs under a spares-first NTP chain: after every re-pick the job holds
// at most R*P whole replicas and no more GPUs than are up; once every GPU is repaired the job is
// whole again (in-domain swaps move GPUs between groups, they never lose one).
TEST(Chain, JobStateConservesGpusUnderAChain) {
  Bench b(small_scenario(1, 10, 4));
  auto st = make_strategy(registered("spares_then_ntp"), b.model, b.layout, b.scenario.hardware);
  ASSERT_TRUE(st.ok()) << st.error().message;
  JobState job(b.layout);
  job.reset((*st)->rules());
  Stream rng(3, 0, "test.chain");
  std::vector<GpuRange> down;
  for (int i = 0; i < 2000; ++i) {
    if (down.empty() || rng.uniform01() < 0.55) {
      const GpuRange g{
          static_cast<int64_t>(rng.uniform_int(static_cast<uint64_t>(b.layout.cluster_gpus))), 1};
      job.fail(g);
      down.push_back(g);
    } else {
      const size_t k = static_cast<size_t>(rng.uniform_int(down.size()));
      job.repair(down[k]);
      down.erase(down.begin() + static_cast<std::ptrdiff_t>(k));
    }
    job.reassign();
    const JobShape s = (*st)->shape(job.histogram());
    // The engine's entry, given the usable count JobState keeps, gives the same shape.
    const JobShape counted =
        (*st)->shape_counted(job.histogram(), job.job_members() - job.histogram()[0]);
    ASSERT_EQ(counted.rate, s.rate);
    ASSERT_EQ(counted.iteration_s, s.iteration_s);
    ASSERT_EQ(counted.running_gpus, s.running_gpus);
    ASSERT_EQ(counted.power_w, s.power_w);
    ASSERT_EQ(counted.batch_replicas, s.batch_replicas);
    ASSERT_LE(job.job_members(), b.layout.job_groups);
    ASSERT_EQ(job.job_members() % b.layout.pp, 0);
    ASSERT_EQ(job.histogram()[0], 0);
    ASSERT_LE(s.running_gpus + job.failed_gpus(), b.layout.cluster_gpus);
    int64_t running = 0;
    for (int d = 1; d <= b.layout.tp; ++d) running += int64_t{job.histogram()[d]} * d;
    ASSERT_EQ(s.running_gpus, running);
  }
  for (const auto& g : down) job.repair(g);
  job.reassign();
  EXPECT_EQ(job.failed_gpus(), 0);
  EXPECT_EQ(job.histogram()[b.layout.tp], b.layout.job_groups);
}

// Goodput and the six badputs sum to one in every replication of every chain.
TEST(Chain, GoodputAndBadputsSumToOne) {
  Scenario s = mc_scenario(8, 10, 4, 1, 2e-3, 2 * 86400.0);
  s.strategies = {registered("spares_then_ntp"), registered("spares_then_ntp_power_boost"),
                  chain("swap_drop", {step("swap_in_domain"), step("drop_replica")}),
                  chain("swap_restart", {step("swap_in_domain"), step("restart")}),
                  chain("fixed_batch", {step("swap_in_domain"), step("add_spare_replica"),
                                        step("reduce_tp", {{"rule", std::string("parity")}})})};
  const RunResult r = run(s);
  ASSERT_EQ(r.strategies.size(), 5u);
  for (const auto& st : r.strategies) {
    EXPECT_EQ(st.name, st.label);
    for (const auto& m : st.replications) {
      double sum = 0;
      for (Metric k : {Metric::kGoodput, Metric::kBadputCheckpoint, Metric::kBadputRollback,
                       Metric::kBadputRecovery, Metric::kBadputStall, Metric::kBadputDegraded,
                       Metric::kBadputReshard}) {
        EXPECT_GE(at(m, k), 0.0);
        sum += at(m, k);
      }
      EXPECT_NEAR(sum, 1.0, 1e-9) << st.name;
      EXPECT_GT(at(m, Metric::kInterruptions), 0.0);
    }
  }
}

// A chain that wins the verdict names its actions and options in the setting line.
TEST(Chain, VerdictSettingNamesTheChain) {
  Scenario s = mc_scenario(8, 10, 4, 1, 2e-3, 2 * 86400.0);
  s.strategies = {chain("swap_then_ntp", {step("swap_in_domain"),
                                          step("reduce_tp", {{"rule", std::string("parity")}})})};
  const RunResult r = run(s);
  const auto v = run_verdict(s, r);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->winner, "swap_then_ntp");
  EXPECT_NE(v->setting.find("; chain: swap_in_domain -> reduce_tp (rule=parity)"),
            std::string::npos)
      << v->setting;
}

// Two strategies of one name under different labels, identical in behaviour (so tied): the
// verdict names the tied one by its label, which is unique, beside its name.
TEST(Chain, VerdictTiesCarryLabels) {
  Scenario s = mc_scenario(8, 10, 4, 1, 2e-3, 2 * 86400.0);
  s.strategies = {registered("ntp", {}, "ntp_a"), registered("ntp", {}, "ntp_b")};
  const RunResult r = run(s);
  const auto v = run_verdict(s, r);
  ASSERT_TRUE(v.has_value());
  ASSERT_EQ(v->tied_with.size(), 1u);
  EXPECT_EQ(v->tied_with[0], "ntp");
  ASSERT_EQ(v->tied_with_labels.size(), 1u);
  EXPECT_NE(v->tied_with_labels[0], v->winner_label);
  EXPECT_TRUE(v->tied_with_labels[0] == "ntp_a" || v->tied_with_labels[0] == "ntp_b");
}

// The composed closed form: a one-action chain screens as its strategy; a spares-first chain
// pays the swap loss for what in-domain spares or free groups absorb, the terminal's otherwise.
TEST(Chain, ScreenComposesTheActionsClosedForms) {
  testing::FakeModel model(4, 10.0, 1000.0);
  ScreenInputs in;
  in.model = &model;
  in.tp = 4;
  in.dp = 8;
  in.interruptions_per_s = 1e-4;
  in.healthy_iteration_s = 10.0;
  in.restart_loss_s = 900;
  in.reconfigure_loss_s = 250;
  in.swap_loss_s = 405;
  in.short_probability = 0.25;
  in.short_groups = 0.5;
  in.damaged_domains = 1.5;
  in.in_domain_cover = 0.6;
  auto screen = [&](const StrategyConfig& c) {
    auto g = screen_strategy(in, c);
    EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error().message);
    return g.ok() ? *g : -1.0;
  };
  for (const auto& [strategy, same] : equivalent_pairs()) {
    if (!same.chain.empty() && same.chain.size() == 1 && same.chain[0].action != "restart") {
      EXPECT_EQ(screen(strategy), screen(same)) << same.name;
    }
  }
  EXPECT_NEAR(screen(chain("r", {step("restart")})), screen(registered("checkpoint_restart")),
              1e-12);
  // spares_then_ntp: q = 0.6 swaps; of the rest, 75% find a free group (swap), 25% reduce TP.
  ScreenInputs quiet = in;
  quiet.interruptions_per_s = 0;
  auto ntp_running = screen_strategy(quiet, registered("ntp"));
  ASSERT_TRUE(ntp_running.ok());
  const double loss = 0.6 * 405 + 0.4 * (0.75 * 405 + 0.25 * 250);
  EXPECT_NEAR(screen(registered("spares_then_ntp")), (1 - 1e-4 * loss) * *ntp_running, 1e-12);
  // No in-domain cover and a cluster always short: the chain screens as ntp.
  in.in_domain_cover = 0;
  in.short_probability = 1;
  EXPECT_NEAR(screen(registered("spares_then_ntp")), screen(registered("ntp")), 1e-12);
  // Fixed mini-batch: the spare replicas (here 0.25 of one, on average) make up the degraded
  // replicas' batch, up to the whole batch; the interruptions still cost reconfigurations.
  const StrategyConfig fixed = chain("fixed", {step("add_spare_replica"), step("reduce_tp")});
  in.spare_replicas = 0.25;
  ASSERT_LT(*ntp_running + 0.25 / 8, 1.0);
  EXPECT_NEAR(screen(fixed), (1 - 1e-4 * 250) * (*ntp_running + 0.25 / 8), 1e-12);
  in.spare_replicas = 8;
  EXPECT_NEAR(screen(fixed), 1 - 1e-4 * 250, 1e-12);
}

}  // namespace
}  // namespace ntpsim::sim
