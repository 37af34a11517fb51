// Determinism of the Monte Carlo runner across thread counts and MPI rank counts.
// Ranks are simulated in one process: each "rank" runs its block through run_monte_carlo with an
// exchange that records the block, and the blocks merged must equal a single-process run
// bit for bit. The real 2-rank mpirun comparison is tests/mpi/compare_mpi.cmake.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "sim/montecarlo/montecarlo.h"
#include "sim/scenario/loader.h"

namespace ntpsim::sim {
namespace {

Scenario small_quickstart() {
  auto s = load_scenario(std::string(NTPSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml",
                         {"horizon=20d", "seed=7"});
  EXPECT_TRUE(s.ok());
  return *s;
}

RunResult run_with(const Scenario& s, int threads, const Distribution& d) {
  RunOptions o;
  o.replications = 7;
  o.threads = threads;
  o.timeline = false;
  o.distribution = d;
  auto r = run_monte_carlo(s, o);
  EXPECT_TRUE(r.ok());
  return *r;
}

void expect_same(const RunResult& a, const RunResult& b) {
  ASSERT_EQ(a.strategies.size(), b.strategies.size());
  for (size_t k = 0; k < a.strategies.size(); ++k) {
    ASSERT_EQ(a.strategies[k].replications.size(), b.strategies[k].replications.size());
    for (size_t i = 0; i < a.strategies[k].replications.size(); ++i) {
      // Bit for bit (metrics that do not apply are NaN, which == would never match).
      const auto& x = a.strategies[k].replications[i];
      const auto& y = b.strategies[k].replications[i];
      EXPECT_EQ(std::memcmp(x.data(), y.data(), sizeof(x)), 0)
          << a.strategies[k].name << " replication " << i;
    }
  }
  EXPECT_EQ(a.events, b.events);
}

TEST(Distribution, ThreadCountsGiveIdenticalResults) {
  const Scenario s = small_quickstart();
  const RunResult one = run_with(s, 1, {});
  expect_same(one, run_with(s, 2, {}));
  expect_same(one, run_with(s, 3, {}));
}

// Each simulated rank keeps only its own block; the merge of all ranks' blocks (and the summed
// events) must be the single-process result.
TEST(Distribution, RankCountsGiveIdenticalResults) {
  const Scenario s = small_quickstart();
  const RunResult one = run_with(s, 1, {});
  for (int ranks : {2, 3, 8}) {
    RunResult merged = one;
    for (auto& st : merged.strategies) {
      for (auto& rep : st.replications) rep.fill(-1.0);
    }
    uint64_t events = 0;
    int exchanges = 0;
    for (int rank = 0; rank < ranks; ++rank) {
      Distribution d;
      d.rank = rank;
      d.ranks = ranks;
      d.exchange = [&, rank, ranks](int begin, int end, bool ok, std::vector<StrategyRun>& runs,
                                    uint64_t& batch_events) {
        EXPECT_TRUE(ok);
        EXPECT_EQ(begin, 0);
        EXPECT_EQ(end, 7);
        ++exchanges;
        const int b = begin + (end - begin) * rank / ranks;
        const int e = begin + (end - begin) * (rank + 1) / ranks;
        for (size_t k = 0; k < runs.size(); ++k) {
          for (int i = b; i < e; ++i) {
            merged.strategies[k].replications[static_cast<size_t>(i)] =
                runs[k].replications[static_cast<size_t>(i)];
          }
        }
        events += batch_events;
        return true;
      };
      run_with(s, 2, d);
    }
    EXPECT_EQ(exchanges, ranks);
    merged.events = events;
    expect_same(one, merged);
  }
}

TEST(Distribution, AFailedRankFailsTheRun) {
  const Scenario s = small_quickstart();
  Distribution d;
  d.rank = 1;
  d.ranks = 2;
  d.exchange = [](int, int, bool, std::vector<StrategyRun>&, uint64_t&) { return false; };
  RunOptions o;
  o.replications = 4;
  o.threads = 1;
  o.distribution = d;
  auto r = run_monte_carlo(s, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("another MPI rank failed"), std::string::npos);
}

}  // namespace
}  // namespace ntpsim::sim
