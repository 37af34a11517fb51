// sim/simulation: a Simulation prepared once gives what run_monte_carlo gives from the scenario;
// the replication runner visits each replication exactly once with the failures its source
// draws, whatever the thread count; prepare() reports bad input before anything runs.
#include "sim/simulation/simulation.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/checkpoint_model.h"
#include "models/memory_model.h"
#include "sim/io/results_json.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/scenario/loader.h"
#include "sim/simulation/runner.h"
#include "tests/fixtures/tiny_job.h"

namespace ntpsim::sim {
namespace {

namespace fs = std::filesystem;

Scenario tiny_sweep() {
  const fs::path file = fs::temp_directory_path() /
                        ("ntpsim_simulation_test_" +
                         std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                         ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".yaml");
  std::ofstream(file) << test_fixtures::kTinySweep;
  auto s = load_scenario(file.string());
  fs::remove(file);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.ok() ? *s : Scenario{};
}

TEST(Simulation, PreparedOnceRunsAsTheScenario) {
  const Scenario s = tiny_sweep();
  auto sim = Simulation::prepare(s);
  ASSERT_TRUE(sim.ok()) << sim.error().message;
  EXPECT_EQ((*sim)->strategies().size(), 2u);
  EXPECT_EQ((*sim)->strategy_index("ntp"), 1);
  EXPECT_EQ((*sim)->strategy_index("dp_drop"), -1);
  EXPECT_GT((*sim)->interruption_rate_per_s(), 0.0);
  RunOptions o;
  o.threads = 2;
  auto from_scenario = run_monte_carlo(s, o);
  ASSERT_TRUE(from_scenario.ok()) << from_scenario.error().message;
  // Twice on the same prepared value: it is not changed by a run.
  for (int i = 0; i < 2; ++i) {
    auto from_sim = run_monte_carlo(**sim, o);
    ASSERT_TRUE(from_sim.ok()) << from_sim.error().message;
    EXPECT_EQ(run_document(s, *from_sim).dump(), run_document(s, *from_scenario).dump());
    EXPECT_EQ(from_sim->events, from_scenario->events);
  }
}

TEST(Simulation, RunnerVisitsEachReplicationOnceForAnyThreadCount) {
  const Scenario s = tiny_sweep();
  auto sim = Simulation::prepare(s);
  ASSERT_TRUE(sim.ok()) << sim.error().message;
  constexpr int kReps = 9;
  std::vector<size_t> reference;
  for (int threads : {1, 3}) {
    std::vector<std::atomic<int>> visits(kReps);
    std::vector<size_t> failures(kReps);
    ReplicationWork work;
    work.run = [&](const Replication& r) {
      visits[static_cast<size_t>(r.index)].fetch_add(1);
      failures[static_cast<size_t>(r.index)] = r.failures.size();
      return uint64_t{1};
    };
    RunnerOptions opts;
    opts.threads = threads;
    auto ran = run_replications(**sim, ReplicationCount::exactly(kReps), opts, work);
    ASSERT_TRUE(ran.ok()) << ran.error().message;
    EXPECT_EQ(ran->replications, kReps);
    EXPECT_EQ(ran->events, uint64_t{kReps});
    for (const auto& v : visits) EXPECT_EQ(v.load(), 1);
    // Replication i's failures come from failure_source(i), drawn the same on any thread.
    auto src = (*sim)->failure_source(4);
    ASSERT_TRUE(src.ok());
    size_t n = 0;
    FailureEvent e;
    while (src->next(e) && e.time < (*sim)->engine_config().end) ++n;
    EXPECT_EQ(failures[4], n);
    if (reference.empty()) reference = failures;
    EXPECT_EQ(failures, reference);
  }
}

TEST(Simulation, AdaptiveBatchesDoubleUntilTheTargetIsMet) {
  Scenario s = tiny_sweep();
  s.replications.fixed = 0;
  s.replications.min = 3;
  s.replications.max = 40;
  auto sim = Simulation::prepare(s);
  ASSERT_TRUE(sim.ok()) << sim.error().message;
  std::vector<int> batches;
  ReplicationWork work;
  work.grow = [&](int n) { batches.push_back(n); };
  work.run = [](const Replication&) { return uint64_t{0}; };
  work.target_met = [](int n) { return n >= 12; };  // met once 12 replications are in
  const auto count = ReplicationCount::of(s, 0);
  EXPECT_FALSE(count.fixed);
  auto ran = run_replications(**sim, count, RunnerOptions{}, work);
  ASSERT_TRUE(ran.ok()) << ran.error().message;
  EXPECT_EQ(batches, (std::vector<int>{3, 6, 12}));
  EXPECT_EQ(ran->replications, 12);
  EXPECT_TRUE(ran->target_met);
}

TEST(Simulation, PrepareReportsBadInputBeforeRunning) {
  Scenario s = tiny_sweep();
  s.strategies.clear();
  auto none = Simulation::prepare(s);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(none.error().message.find("strategies"), std::string::npos);

  s = tiny_sweep();
  s.layout.tp = 16;  // more than a domain's 8 GPUs
  auto layout = Simulation::prepare(s);
  ASSERT_FALSE(layout.ok());
  EXPECT_EQ(layout.error().exit_code, ExitCode::kBadInput);
}

// In place needs a second copy of every optimizer shard, and the memory model counts it: on a GPU
// with 1 GB of room left over the quick start's job, a peer copy (12 B/param / (T P R), about
// 0.17 GB) fits and a replicated optimizer (12 B/param / (T P), about 4.8 GB) is refused.
TEST(Simulation, InPlaceStateCopyMustFitInMemory) {
  auto loaded = load_scenario(std::string(NTPSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  Scenario s = *loaded;
  const auto base = models::memory_at(s.workload, s.layout, s.hardware, s.layout.tp);
  ASSERT_TRUE(base.fits());
  s.hardware.hbm_bytes = (base.total_bytes + 1e9 + s.hardware.memory.reserved_bytes) /
                         s.hardware.memory.usable_fraction;
  auto with_copy = [&](const char* copy) {
    Scenario t = s;
    t.strategies = {
        StrategyConfig{"ntp",
                       "ntp",
                       {{"resume", std::string("in_place")}, {"state_copy", std::string(copy)}},
                       {}}};
    return Simulation::prepare(t);
  };
  auto peer = with_copy("peer");
  ASSERT_TRUE(peer.ok()) << peer.error().message;
  auto replicated = with_copy("replicated");
  ASSERT_FALSE(replicated.ok());
  EXPECT_EQ(replicated.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(replicated.error().message.find("state_copy: replicated"), std::string::npos)
      << replicated.error().message;
  EXPECT_NE(replicated.error().message.find("no longer fits"), std::string::npos);
  // A restart keeps the distributed optimizer's single copy: nothing more to fit.
  Scenario t = s;
  t.strategies = {StrategyConfig{"ntp", "ntp", {}, {}}};
  EXPECT_TRUE(Simulation::prepare(t).ok());
}

// restart_from_memory states the host memory its snapshots take (profiles give no host memory
// to check it against): a GB200 tray of the quick start holds its 4 GPUs' state (weights and
// optimizer shard, models/checkpoint_model.h) twice, its own and its peer's copy.
TEST(Simulation, InMemorySnapshotsStateTheirHostFootprint) {
  auto loaded = load_scenario(std::string(NTPSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  Scenario s = *loaded;
  s.replications.fixed = 1;
  s.strategies = {StrategyConfig{
      "checkpoint_restart", "restart_mem", {{"resume", std::string("restart_from_memory")}}, {}}};
  const auto state = models::gpu_state_cost(s.workload, s.layout, s.hardware);
  ASSERT_TRUE(state.ok());
  auto r = run_monte_carlo(s, RunOptions{});
  ASSERT_TRUE(r.ok()) << r.error().message;
  const std::string expected =
      fmt::format("keeps {:.1f} GB of snapshots in each host's memory", 8 * state->bytes / 1e9);
  bool found = false;
  for (const auto& w : r->warnings) found = found || w.find(expected) != std::string::npos;
  EXPECT_TRUE(found) << expected;
}

}  // namespace
}  // namespace ntpsim::sim
