// Sweeps: parsing of --vary specs, a two-parameter sweep over a scenario file, the sweep JSON,
// and atomic result writing.
#include "sim/montecarlo/sweep.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "models/base/atomic_file.h"
#include "sim/io/results_json.h"
#include "sim/io/results_table.h"
#include "sim/metrics/aggregate.h"
#include "tests/fixtures/tiny_job.h"

namespace ntpsim::sim {
namespace {

namespace fs = std::filesystem;

TEST(Sweep, ParsesListsAndRanges) {
  auto list = parse_vary("recovery.restart=5min,20min");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->path, "recovery.restart");
  EXPECT_EQ(list->values, (std::vector<std::string>{"5min", "20min"}));
  auto range = parse_vary("cluster.spare_domains=0:2:1");
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(range->values, (std::vector<std::string>{"0", "1", "2"}));
  auto frac = parse_vary("x=0.1:0.3:0.1");
  ASSERT_TRUE(frac.ok());
  EXPECT_EQ(frac->values.size(), 3u);
  for (const char* bad : {"novalue", "=1,2", "a=1,,2", "a=3:1:1", "a=0:1:0", "a=1:2", "a=x:2:1",
                          "a=0:1e9:1"}) {
    auto r = parse_vary(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);
    }
  }
}

class SweepFile : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test: ctest runs the tests of this fixture in parallel processes.
    dir_ =
        fs::temp_directory_path() /
        ("ntpsim_sweep_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    file_ = (dir_ / "tiny.yaml").string();
    std::ofstream(file_) << test_fixtures::kTinySweep;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string file_;
};

TEST_F(SweepFile, TwoParametersGiveTheCartesianProduct) {
  auto a = parse_vary("cluster.spare_domains=0:2:2");
  auto b = parse_vary("recovery.restart=5min,20min");
  ASSERT_TRUE(a.ok() && b.ok());
  RunOptions o;
  o.threads = 2;
  o.timeline = false;
  auto sweep = run_sweep(file_, {}, {*a, *b}, o);
  ASSERT_TRUE(sweep.ok()) << sweep.error().message;
  ASSERT_EQ(sweep->points.size(), 4u);
  EXPECT_EQ(sweep->points[1].values[0].second, "0");
  EXPECT_EQ(sweep->points[1].values[1].second, "20min");
  EXPECT_EQ(sweep->points[2].scenario.cluster.spare_domains, 2);
  EXPECT_EQ(sweep->points[3].scenario.recovery.restart_s, 1200.0);
  // Spare domains cut checkpoint_restart's stalls (same seeds: common random numbers).
  auto stall = [&](size_t point) {
    std::vector<double> v;
    for (const auto& rep : sweep->points[point].result.strategies[0].replications) {
      v.push_back(at(rep, Metric::kBadputStall));
    }
    return summarize(v).mean;
  };
  EXPECT_GT(stall(0), 0.0);
  EXPECT_LT(stall(2), 0.5 * stall(0));
  const auto doc = sweep_document(*sweep);
  EXPECT_EQ(doc["kind"], "sweep");
  EXPECT_EQ(doc["sweep"]["points"].size(), 4u);
  EXPECT_EQ(doc["sweep"]["parameters"][1], "recovery.restart");
  EXPECT_FALSE(doc["sweep"]["points"][0]["strategies"][0].contains("replications"));
  const std::string table = sweep_table(*sweep);
  EXPECT_NE(table.find("20min"), std::string::npos);
  EXPECT_NE(table.find("checkpoint_restart"), std::string::npos);
}

TEST_F(SweepFile, UnknownVariedFieldIsBadInput) {
  auto a = parse_vary("cluster.spare_domainz=1,2");
  ASSERT_TRUE(a.ok());
  auto sweep = run_sweep(file_, {}, {*a}, RunOptions{});
  ASSERT_FALSE(sweep.ok());
  EXPECT_EQ(sweep.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(sweep.error().message.find("spare_domainz"), std::string::npos);
}

TEST_F(SweepFile, AtomicWriteLeavesNothingOnError) {
  const std::string good = (dir_ / "out.json").string();
  ASSERT_TRUE(write_file_atomic(good, "{}\n").ok());
  EXPECT_TRUE(fs::exists(good));
  EXPECT_FALSE(fs::exists(good + ".tmp"));
  const std::string bad = (dir_ / "missing" / "out.json").string();
  const Status st = write_file_atomic(bad, "{}\n");
  EXPECT_FALSE(st.ok());
  EXPECT_FALSE(fs::exists(bad));
}

}  // namespace
}  // namespace ntpsim::sim
