// Engine::run_together: strategies that share a cluster trajectory run in lockstep over one
// JobState, and each result is bit for bit the result of its own run, including when a follower
// parts from the leader and is run alone, and when the runs recover in different ways.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/engine.h"
#include "tests/sim/lcg.h"
#include "tests/sim/sim_fixture.h"

namespace ntpsim::sim {
namespace {

using testing::Bench;
using testing::gpu_failure;
using testing::in_place;

// Four job domains of 8 GPUs at TP 4 and one spare domain; 400,000 s.
Scenario four_domains() {
  Scenario s = testing::small_scenario(1);
  s.cluster.domains = 4;
  s.layout.dp = 8;
  s.workload.global_batch = 8;
  s.horizon_s = 400000;
  return s;
}

// `n` failures in time order from a fixed pseudo-random sequence: mostly single GPUs (3 in 4
// interrupting), every `domain_every`-th a whole domain (a host's memory lost), repairs of 500 to
// 20,000 s.
std::vector<FailureEvent> failures(int n, int gpus, int gpus_per_domain, int domain_every,
                                   uint64_t seed) {
  std::vector<FailureEvent> out;
  testing::Lcg rng{seed};
  const auto domains = static_cast<uint64_t>(gpus / gpus_per_domain);
  double t = 0;
  for (int i = 0; i < n; ++i) {
    const uint64_t x = rng.next();
    t += 20.0 + static_cast<double>((x >> 33) % 1500);
    const double repair = 500.0 + static_cast<double>((x >> 13) % 19500);
    if (domain_every > 0 && i % domain_every == domain_every - 1) {
      const auto d = static_cast<int64_t>((x >> 41) % domains);
      out.push_back(gpu_failure(t, d * gpus_per_domain, gpus_per_domain, repair));
    } else {
      const auto g = static_cast<int64_t>((x >> 45) % static_cast<uint64_t>(gpus));
      out.push_back(gpu_failure(t, g, 1, repair, (x >> 7) % 4 != 0));
    }
  }
  return out;
}

bool same_bits(const ReplicationMetrics& a, const ReplicationMetrics& b) {
  return std::memcmp(&a, &b, sizeof(ReplicationMetrics)) == 0;
}

// The schedule of `f` up to the bench's end.
EventSchedule schedule_of(const Bench& b, const std::vector<FailureEvent>& f) {
  EventSchedule schedule;
  schedule.build(f, b.config.end);
  return schedule;
}

// Two runs at one checkpoint interval.
std::vector<Engine::StrategyRun> two_at(const Strategy& leader, const Strategy& follower,
                                        double interval_s) {
  return {{&leader, Duration::from_seconds(interval_s)},
          {&follower, Duration::from_seconds(interval_s)}};
}

// How the followers of one run_together ran.
struct Counts {
  size_t parted = 0, mirrored = 0, detached = 0, alone = 0;
};

// Runs `runs` together on `together` and each alone, and expects the same metrics bit for bit
// and the same event count; returns how the followers ran.
Counts expect_as_alone(const Bench& b, Engine& together,
                       const std::vector<Engine::StrategyRun>& runs,
                       const EventSchedule& schedule) {
  std::vector<ReplicationMetrics> out;
  const uint64_t events = together.run_together(runs, schedule, out);
  EXPECT_EQ(out.size(), runs.size());
  Engine alone(b.config);
  uint64_t alone_events = 0;
  for (size_t k = 0; k < runs.size(); ++k) {
    const ReplicationMetrics m =
        alone.run(*runs[k].strategy, runs[k].checkpoint_interval, schedule);
    alone_events += alone.events_processed();
    EXPECT_TRUE(same_bits(m, out[k])) << "run " << k << ": goodput " << at(out[k], Metric::kGoodput)
                                      << " together, " << at(m, Metric::kGoodput) << " alone";
  }
  EXPECT_EQ(events, alone_events);
  return {together.followers_parted(), together.followers_mirrored(),
          together.mirrors_detached(), together.followers_alone_by_history()};
}

// The same on a new engine.
Counts expect_as_alone(const Bench& b, const std::vector<Engine::StrategyRun>& runs,
                       const EventSchedule& schedule) {
  Engine together(b.config);
  return expect_as_alone(b, together, runs, schedule);
}

TEST(RunTogether, SharesTrajectoryWithEqualRulesAndRecoveryWithEqualRecovery) {
  Bench b(four_domains());
  const auto ntp = b.strategy("ntp");
  const auto boost = b.strategy("ntp_power_boost");
  const auto slow = b.strategy("ntp", {{"keep_pace", ParamValue(false)}});
  const auto ntp_in_place = b.strategy("ntp", in_place());
  const auto min_tp3 = b.strategy("ntp", {{"min_tp", ParamValue(int64_t{3})}});
  const auto cr = b.strategy("checkpoint_restart");
  ASSERT_TRUE(ntp && boost && slow && ntp_in_place && min_tp3 && cr);
  EXPECT_TRUE(Engine::shares_trajectory(*ntp, *boost));
  EXPECT_TRUE(Engine::shares_trajectory(*boost, *ntp));
  EXPECT_TRUE(Engine::shares_trajectory(*ntp, *slow));
  EXPECT_TRUE(Engine::shares_recovery(*ntp, *boost));
  EXPECT_TRUE(Engine::shares_recovery(*ntp, *slow));
  // Another resume mechanism: the same cluster state while the re-picks are the same.
  EXPECT_TRUE(Engine::shares_trajectory(*ntp, *ntp_in_place));
  EXPECT_FALSE(Engine::shares_recovery(*ntp, *ntp_in_place));
  EXPECT_FALSE(Engine::shares_trajectory(*ntp, *min_tp3));  // other degrees per failure
  EXPECT_FALSE(Engine::shares_trajectory(*ntp, *cr));
}

TEST(RunTogether, GroupsLedByTheLargestSetThatSharesItsRecovery) {
  Bench b(four_domains());
  const auto cr = b.strategy("checkpoint_restart");
  const auto ntp = b.strategy("ntp");
  const auto swap = b.strategy("spare_substitution");
  const auto boost = b.strategy("ntp_power_boost");
  const auto ntp_in_place = b.strategy("ntp", in_place());
  ASSERT_TRUE(cr && ntp && swap && boost && ntp_in_place);
  ASSERT_TRUE(Engine::shares_trajectory(*cr, *swap));
  ASSERT_FALSE(Engine::shares_recovery(*cr, *swap));
  // {ntp, boost} share their recovery and lead ntp in place; the restart leads the swap.
  const std::vector<const Strategy*> list = {cr.get(), ntp_in_place.get(), ntp.get(), swap.get(),
                                             boost.get()};
  const std::vector<std::vector<size_t>> expect = {{2, 4, 1}, {0, 3}};
  EXPECT_EQ(Engine::trajectory_groups(list, false), expect);
  // NTP lowers the degree without swapping in-domain idle GPUs first: its rules and the
  // restart's do not agree even where the layout leaves idle GPUs.
  EXPECT_EQ(Engine::trajectory_groups(list, true), expect);
  // spares_then_ntp swaps first: where in-domain swaps can keep the job whole, the restart and
  // the swap join its group, whose rules agree with theirs while the job is whole.
  const auto chain = b.strategy("spares_then_ntp");
  const auto chain_boost = b.strategy("spares_then_ntp_power_boost");
  ASSERT_TRUE(chain && chain_boost);
  const std::vector<const Strategy*> swapping = {cr.get(), chain.get(), swap.get(),
                                                 chain_boost.get()};
  const std::vector<std::vector<size_t>> apart = {{1, 3}, {0, 2}};
  const std::vector<std::vector<size_t>> joined = {{1, 3, 0, 2}};
  EXPECT_EQ(Engine::trajectory_groups(swapping, false), apart);
  EXPECT_EQ(Engine::trajectory_groups(swapping, true), joined);
  EXPECT_TRUE(Engine::trajectory_groups({}, true).empty());
}

TEST(RunTogether, ARestartAndASwapShareTheClusterStateWhileTheirRepicksAgree) {
  Bench b(four_domains());
  const auto cr = b.strategy("checkpoint_restart");
  const auto swap = b.strategy("spare_substitution");
  ASSERT_TRUE(cr && swap);
  const std::vector<Engine::StrategyRun> runs = two_at(*cr, *swap, 1000);
  // Two failures far apart, each met by a spare domain's group: the restart pauses 350 s, the
  // swap 400 s, so the first repair, 370 s on, finds the swap still recovering and the restart
  // running. The swap's re-pick of the whole job then changes nothing, and it follows to the end
  // with its own phases.
  const EventSchedule apart = schedule_of(
      b, {gpu_failure(10000.0, 0, 1, 370.0), gpu_failure(200000.0, 9, 1, 1500.0)});
  Engine together(b.config);
  const Counts c = expect_as_alone(b, together, runs, apart);
  EXPECT_EQ(c.parted + c.mirrored + c.detached + c.alone, 0u);
  Engine alone(b.config);
  const double restart_recovery = at(alone.run(*cr, apart), Metric::kBadputRecovery);
  EXPECT_LT(restart_recovery, at(alone.run(*swap, apart), Metric::kBadputRecovery));
  // Many failures: the job is often short and the two re-pick at different events; each result
  // is still its own run's, however the follower ran.
  expect_as_alone(b, runs, schedule_of(b, failures(400, 40, 8, 0, 11)));
}

TEST(RunTogether, EachResultIsItsOwnRunsBitForBit) {
  Bench b(four_domains());
  const EventSchedule schedule = schedule_of(b, failures(400, 40, 8, 0, 11));
  ASSERT_GT(schedule.events().size(), 700u);
  // Restarting from the checkpoint (the default) and in place, each with two followers that
  // differ in power and pace; the last at its own checkpoint interval.
  for (const bool recover_in_place : {false, true}) {
    auto params = [&](std::map<std::string, ParamValue> p) {
      return recover_in_place ? in_place(std::move(p)) : p;
    };
    const auto ntp = b.strategy("ntp", params({}));
    const auto boost = b.strategy("ntp_power_boost", params({}));
    const auto slow = b.strategy("ntp", params({{"keep_pace", ParamValue(false)}}));
    ASSERT_TRUE(ntp && boost && slow);
    const std::vector<Engine::StrategyRun> runs = {{ntp.get(), Duration::from_seconds(1000)},
                                                   {boost.get(), Duration::from_seconds(1000)},
                                                   {slow.get(), Duration::from_seconds(2500)}};
    // The boosted follower starts as a mirror (its interval and first shape are the leader's)
    // and is detached at the first boost; on the same engine it then runs in step.
    Engine together(b.config);
    const Counts first = expect_as_alone(b, together, runs, schedule);
    EXPECT_EQ(first.parted, 0u) << "in place: " << recover_in_place;
    EXPECT_EQ(first.mirrored, 0u);
    EXPECT_EQ(first.detached, 1u);
    const Counts second = expect_as_alone(b, together, runs, schedule);
    EXPECT_EQ(second.parted + second.mirrored + second.detached, 0u);
    // One strategy alone runs as run() does.
    expect_as_alone(b, {runs[1]}, schedule);
  }
}

// Every ordered pair of strategies with the same membership rules and other recoveries (NTP
// restarting from the checkpoint, from memory, or recovering in place; checkpoint_restart and
// spare_substitution), over random failures with and without whole-domain failures, with
// failures during a pause restarting it or ignored: each result is its own run's. Their re-picks
// part in every way a follower can part (a re-pick of a job that is not whole made by the
// leader alone or by the follower alone, at a repair or at a failure): the pairs must part.
TEST(RunTogether, PairsThatRecoverDifferentlyGiveTheirOwnResults) {
  size_t parted = 0, stayed = 0;
  for (const PauseFailures pause : {PauseFailures::kRestart, PauseFailures::kIgnore}) {
    Scenario s = four_domains();
    s.recovery.failures_during_pause = pause;
    Bench b(s);
    const auto resume = [](const char* r) {
      return std::map<std::string, ParamValue>{{"resume", ParamValue(std::string(r))}};
    };
    const auto restart = b.strategy("ntp", resume("restart_from_checkpoint"));
    const auto memory = b.strategy("ntp", resume("restart_from_memory"));
    const auto moved = b.strategy("ntp", in_place());
    const auto boosted = b.strategy("ntp_power_boost", in_place());
    const auto cr = b.strategy("checkpoint_restart");
    const auto swap = b.strategy("spare_substitution");
    // Another shape for the same rules: NTP that never lowers the degree drops damaged
    // replicas as dp_drop does, but keeps running where dp_drop stalls.
    const auto drop = b.strategy("dp_drop");
    const auto full_tp = b.strategy("ntp", {{"min_tp", ParamValue(int64_t{4})}});
    ASSERT_TRUE(restart && memory && moved && boosted && cr && swap && drop && full_tp);
    const std::vector<std::vector<const Strategy*>> sets = {
        {restart.get(), memory.get(), moved.get(), boosted.get()},
        {cr.get(), swap.get()},
        {drop.get(), full_tp.get()}};
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      const EventSchedule schedule =
          schedule_of(b, failures(300, 40, 8, seed % 2 == 0 ? 5 : 0, seed));
      for (const auto& set : sets) {
        for (const Strategy* leader : set) {
          for (const Strategy* follower : set) {
            if (leader == follower) continue;
            ASSERT_TRUE(Engine::shares_trajectory(*leader, *follower));
            const Counts c = expect_as_alone(b, two_at(*leader, *follower, 1000), schedule);
            parted += c.parted;
            stayed += c.parted + c.detached == 0 ? 1 : 0;
          }
        }
      }
    }
  }
  EXPECT_GT(parted, 0u);
  EXPECT_GT(stayed, 0u);
}

// Four job domains of `gpus_per_domain` GPUs at TP 4 (two groups and the rest idle) and one
// spare domain; 400,000 s.
Scenario four_domains_with_idle_gpus(int gpus_per_domain = 10) {
  Scenario s = four_domains();
  s.cluster.gpus_per_domain = gpus_per_domain;
  return s;
}

// `n` failures in time order, `gap_s` apart on average, repairs of 500 s to `repair_s`: if
// `calm`, single GPUs that interrupt; else 1 in 4 single GPUs not interrupting (its group stays
// damaged until the next re-pick), every 5th an aligned pair of GPUs (one failure that can
// damage two groups once swaps have mixed their GPUs) and every 23rd a whole domain. On five
// domains of `per_domain` GPUs.
std::vector<FailureEvent> mixed_failures(int n, double gap_s, double repair_s, bool calm,
                                         uint64_t seed, int per_domain = 10) {
  const int gpus = 5 * per_domain;
  std::vector<FailureEvent> out;
  testing::Lcg rng{seed};
  double t = 0;
  for (int i = 0; i < n; ++i) {
    const uint64_t x = rng.next();
    t += 20.0 + static_cast<double>((x >> 33) % static_cast<uint64_t>(2 * gap_s));
    const double repair =
        500.0 + static_cast<double>((x >> 13) % static_cast<uint64_t>(repair_s - 499.0));
    const auto g = static_cast<int64_t>((x >> 45) % static_cast<uint64_t>(gpus));
    if (!calm && i % 23 == 22) {
      out.push_back(gpu_failure(t, g / per_domain * per_domain, per_domain, repair));
    } else if (!calm && i % 5 == 4) {
      out.push_back(gpu_failure(t, std::min<int64_t>(g / 2 * 2, gpus - 2), 2, repair));
    } else {
      out.push_back(gpu_failure(t, g, 1, repair, calm || (x >> 7) % 4 != 0));
    }
  }
  return out;
}

TEST(RunTogether, RulesAgreeWhileWholeWhenBothSwapAndOnlyDamagedDegreesDiffer) {
  Bench b(four_domains_with_idle_gpus());
  const auto cr = b.strategy("checkpoint_restart");
  const auto swap = b.strategy("spare_substitution");
  const auto chain = b.strategy("spares_then_ntp");
  const auto ntp = b.strategy("ntp");  // lowers the degree without swapping first
  const auto drop = b.strategy("dp_drop");
  const auto no_spare_domains =
      b.strategy("checkpoint_restart", {{"use_spare_domains", ParamValue(false)}});
  ASSERT_TRUE(cr && swap && chain && ntp && drop && no_spare_domains);
  ASSERT_NE(cr->rules(), chain->rules());
  EXPECT_TRUE(Engine::agree_while_whole(*cr, *chain));
  EXPECT_TRUE(Engine::agree_while_whole(*chain, *cr));
  EXPECT_TRUE(Engine::agree_while_whole(*swap, *chain));
  EXPECT_FALSE(Engine::agree_while_whole(*cr, *ntp));
  EXPECT_FALSE(Engine::agree_while_whole(*ntp, *drop));
  EXPECT_FALSE(Engine::agree_while_whole(*cr, *no_spare_domains));
}

// Every ordered pair of strategies that swap in-domain idle GPUs, with other degrees for
// damaged groups or another needs_full_job (checkpoint_restart, spare_substitution and
// spares_then_ntp with its three resume mechanisms and its boost) or the same rules, over
// failures sparse enough that the job is mostly whole and dense enough that the swaps often run
// out, with failures during a pause restarting it or ignored, on domains with two idle GPUs
// (pipeline depth 1) and with one (depth 2): each result is its own run's. Followers with other
// rules stay in step through some runs and part in others.
TEST(RunTogether, PairsWhoseRulesAgreeWhileWholeGiveTheirOwnResults) {
  size_t parted = 0, stayed = 0;
  // (GPUs per domain, pipeline depth) x pause modes; plain variables, not structured bindings,
  // which clang before 16 does not let a lambda capture.
  for (int run = 0; run < 4; ++run) {
    const int per_domain = run < 2 ? 10 : 9;
    const int pp = run < 2 ? 1 : 2;
    const PauseFailures pause = run % 2 == 0 ? PauseFailures::kRestart : PauseFailures::kIgnore;
    Scenario s = four_domains_with_idle_gpus(per_domain);
    s.layout.pp = pp;
    s.layout.dp = 8 / pp;
    s.workload.global_batch = 8 / pp;
    s.recovery.failures_during_pause = pause;
    Bench b(s);
    const auto resume = [](const char* r) {
      return std::map<std::string, ParamValue>{{"resume", ParamValue(std::string(r))}};
    };
    const auto cr = b.strategy("checkpoint_restart");
    const auto swap = b.strategy("spare_substitution");
    const auto chain = b.strategy("spares_then_ntp");
    const auto moved = b.strategy("spares_then_ntp", in_place());
    const auto memory = b.strategy("spares_then_ntp", resume("restart_from_memory"));
    const auto boosted = b.strategy("spares_then_ntp_power_boost", in_place());
    ASSERT_TRUE(cr && swap && chain && moved && memory && boosted);
    const std::vector<const Strategy*> set = {cr.get(),    swap.get(),   chain.get(),
                                              moved.get(), memory.get(), boosted.get()};
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      const auto mixed = [&](int n, double gap_s, double repair_s, bool calm) {
        return mixed_failures(n, gap_s, repair_s, calm, seed, per_domain);
      };
      const uint64_t mode = seed % 4;
      const EventSchedule schedule = schedule_of(
          b, mode == 0   ? mixed(60, 6000.0, 3000.0, true)
             : mode == 1 ? mixed(250, 1500.0, 20000.0, false)
             : mode == 2 ? mixed(120, 3000.0, 8000.0, true)
                         : mixed(100, 3500.0, 5000.0, false));
      for (const Strategy* leader : set) {
        for (const Strategy* follower : set) {
          if (leader == follower) continue;
          const bool same = Engine::shares_trajectory(*leader, *follower);
          ASSERT_TRUE(same || Engine::agree_while_whole(*leader, *follower));
          const Counts c = expect_as_alone(b, two_at(*leader, *follower, 1000), schedule);
          if (same) continue;
          parted += c.parted;
          stayed += c.parted + c.detached + c.alone == 0 ? 1 : 0;
        }
      }
    }
  }
  EXPECT_GT(parted, 0u);
  EXPECT_GT(stayed, 0u);
}

TEST(RunTogether, AFollowerWithOtherRulesPartsWhereTheJobIsNotWhole) {
  Bench b(four_domains_with_idle_gpus());
  const auto cr = b.strategy("checkpoint_restart");
  const auto chain = b.strategy("spares_then_ntp");
  ASSERT_TRUE(cr && chain);
  // Domain 0 loses three GPUs of its first group and one of its second: its two idle GPUs
  // replace the first two, and the spare domain's two groups replace the damaged groups (the
  // job whole again under both rules). Domain 1 then loses three GPUs of one group: with no
  // idle GPU and no free group left, the restart's job is short (the damaged group is
  // unusable) and stalls, while spares_then_ntp runs the group at degree 3. No repair comes
  // before the end, so neither re-picks alone: only the job's not being whole parts them.
  std::vector<FailureEvent> f;
  const double never = 1e6;  // past the 400,000 s horizon
  for (const auto& [t, gpu] : std::vector<std::pair<double, int64_t>>{
           {1000, 0}, {20000, 1}, {40000, 2}, {60000, 4}, {80000, 10}, {100000, 11},
           {120000, 12}}) {
    f.push_back(gpu_failure(t, gpu, 1, never));
  }
  const EventSchedule schedule = schedule_of(b, f);
  for (const auto& [leader, follower] : {std::pair{cr.get(), chain.get()},
                                         std::pair{chain.get(), cr.get()}}) {
    const Counts c = expect_as_alone(b, two_at(*leader, *follower, 1000), schedule);
    EXPECT_EQ(c.parted, 1u) << leader->label() << " leading";
  }
  // Up to the sixth failure the job stays whole: in step to the end.
  const EventSchedule whole = schedule_of(b, {f.begin(), f.end() - 1});
  EXPECT_EQ(expect_as_alone(b, two_at(*cr, *chain, 1000), whole).parted, 0u);
}

TEST(RunTogether, AFollowerThatPartsRunsAloneWithTheSameResult) {
  // Restarting from memory with snapshots 300 s and 4000 s apart: whole-domain failures lose a
  // host's snapshot and its peer's within one snapshot period of the slower cycle but not of the
  // faster, so their restarts cost different times and their phases part.
  Scenario s = four_domains();
  Bench b(s);
  const EventSchedule schedule = schedule_of(b, failures(300, 40, 8, 2, 5));
  const auto fast = b.strategy("ntp", {{"resume", ParamValue(std::string("restart_from_memory"))}});
  const auto slow = b.strategy("ntp", {{"resume", ParamValue(std::string("restart_from_memory"))}});
  ASSERT_TRUE(fast && slow);
  ASSERT_TRUE(Engine::shares_trajectory(*fast, *slow));
  const std::vector<Engine::StrategyRun> runs = {{fast.get(), Duration::from_seconds(300)},
                                                 {slow.get(), Duration::from_seconds(4000)}};
  Engine together(b.config);
  EXPECT_EQ(expect_as_alone(b, together, runs, schedule).parted, 1u);
  // A pair that parted in one of its last 8 runs: the follower runs alone from the start, then
  // is stepped again.
  for (int i = 0; i < 8; ++i) {
    const Counts c = expect_as_alone(b, together, runs, schedule);
    EXPECT_EQ(c.alone, 1u) << "run " << i;
    EXPECT_EQ(c.parted + c.mirrored + c.detached, 0u) << "run " << i;
  }
  const Counts again = expect_as_alone(b, together, runs, schedule);
  EXPECT_EQ(again.parted, 1u);
  EXPECT_EQ(again.alone, 0u);
}

TEST(RunTogether, AFollowerWithTheLeadersShapesMirrorsIt) {
  Bench b(four_domains());
  const EventSchedule schedule = schedule_of(b, failures(400, 40, 8, 0, 11));
  // Two strategies with equal parameters: every shape the same, so the follower is not stepped.
  const auto ntp = b.strategy("ntp");
  const auto same = b.strategy("ntp");
  ASSERT_TRUE(ntp && same);
  const std::vector<Engine::StrategyRun> runs = two_at(*ntp, *same, 1000);
  Engine together(b.config);
  for (int i = 0; i < 2; ++i) {
    const Counts c = expect_as_alone(b, together, runs, schedule);
    EXPECT_EQ(c.mirrored, 1u);
    EXPECT_EQ(c.parted + c.detached, 0u);
  }
  // Another checkpoint interval: stepped as a follower.
  const std::vector<Engine::StrategyRun> other = {{ntp.get(), Duration::from_seconds(1000)},
                                                  {same.get(), Duration::from_seconds(1500)}};
  const Counts c = expect_as_alone(b, together, other, schedule);
  EXPECT_EQ(c.parted + c.mirrored + c.detached, 0u);
}

TEST(RunTogether, APairMirrorsAgainAfterEightRunsAlike) {
  Bench b(four_domains());
  const auto ntp = b.strategy("ntp");
  const auto boost = b.strategy("ntp_power_boost");
  ASSERT_TRUE(ntp && boost);
  const std::vector<Engine::StrategyRun> runs = two_at(*ntp, *boost, 1000);
  // Failures anywhere boost damaged groups: the mirror is detached. Failures of the spare
  // domain's GPUs (32 to 39) damage no job group: both runs alike.
  const EventSchedule boosted = schedule_of(b, failures(400, 40, 8, 0, 11));
  std::vector<FailureEvent> spare_only;
  for (int i = 0; i < 50; ++i) {
    spare_only.push_back(gpu_failure(1000.0 + 5000.0 * i, 32 + i % 8, 1, 3000.0));
  }
  const EventSchedule alike = schedule_of(b, spare_only);
  Engine together(b.config);
  EXPECT_EQ(expect_as_alone(b, together, runs, boosted).detached, 1u);
  // Stepped while a difference is among the pair's last 8 runs, then a mirror again.
  for (int i = 0; i < 8; ++i) {
    const Counts c = expect_as_alone(b, together, runs, alike);
    EXPECT_EQ(c.parted + c.mirrored + c.detached, 0u) << "run " << i;
  }
  EXPECT_EQ(expect_as_alone(b, together, runs, alike).mirrored, 1u);
  // Detached again where boosting starts.
  EXPECT_EQ(expect_as_alone(b, together, runs, boosted).detached, 1u);
}

TEST(RunTogether, ATokenBudgetRunsEachAlone) {
  Scenario s = four_domains();
  s.train_tokens = 1.0;  // ideal seconds at 1 token/s (Bench's EngineConfig)
  Bench b(s);
  b.config = *EngineConfig::make(s, b.layout, 0.0, 1.0 / 50000.0);  // 50,000 ideal seconds
  const EventSchedule schedule = schedule_of(b, failures(200, 40, 8, 0, 3));
  const auto ntp = b.strategy("ntp");
  const auto boost = b.strategy("ntp_power_boost");
  ASSERT_TRUE(ntp && boost);
  const std::vector<Engine::StrategyRun> runs = two_at(*ntp, *boost, 1000);
  const Counts c = expect_as_alone(b, runs, schedule);
  EXPECT_EQ(c.parted + c.mirrored + c.detached, 0u);
}

}  // namespace
}  // namespace ntpsim::sim
