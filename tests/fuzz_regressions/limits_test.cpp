// Absurd sizes in scenarios (issue 11 "Limits"): each is refused up front by load_scenario with a
// bad-input Error that names the field and the limit, instead of running out of memory or time.
//
// Limits (sim/scenario/sections.h, loader.cpp): at most 10^7 GPUs, horizons up to 1000 years,
// 1..10^6 replications, about 10^7 expected failures per replication, and about 10^9 expected
// failures over all replications of a run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/scenario/loader.h"

namespace ntpsim::sim {
namespace {

// A small valid scenario (40 GPUs, 1e-4 failures per GPU-hour, 4 replications).
constexpr const char* kBase = R"(name: limits
cluster: {domains: 4, gpus_per_domain: 8, spare_domains: 1, gpus_per_node: 4}
workload: {name: tiny, layers: 4, hidden: 256, heads: 8, kv_heads: 2, ffn: 1024, vocab: 1000,
           seq_len: 128, global_batch: 16}
layout: {tp: 8, pp: 2, dp: 2}
hardware: h100-sxm
failures:
  processes:
    - component: gpu
      rate: "1e-4/h"
      kinds: [{name: hard, share: "100%", repair: {mean: "2d"}}]
strategies: [checkpoint_restart]
horizon: "1d"
replications: 4
seed: 3
)";

class Limits : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(NTPSIM_BINARY_DIR) / "test-scratch" / "fuzz_regressions" /
           info->name();
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "base.yaml") << kBase;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Loads base.yaml with `overrides` ("a.b=value") applied.
  Result<Scenario> load(const std::vector<std::string>& overrides) {
    LoadOptions options;
    options.overrides = overrides;
    options.data_dir = NTPSIM_SOURCE_DIR;
    return load_scenario((dir_ / "base.yaml").string(), options);
  }

  // Expects a bad-input error whose message contains every one of `parts`.
  void expect_refused(const std::vector<std::string>& overrides,
                      const std::vector<std::string>& parts) {
    const Result<Scenario> s = load(overrides);
    ASSERT_FALSE(s.ok()) << "accepted: " << ::testing::PrintToString(overrides);
    EXPECT_EQ(s.error().exit_code, ExitCode::kBadInput) << s.error().message;
    for (const auto& p : parts) {
      EXPECT_NE(s.error().message.find(p), std::string::npos)
          << "message lacks \"" << p << "\": " << s.error().message;
    }
  }

 private:
  std::filesystem::path dir_;
};

TEST_F(Limits, BaseScenarioLoads) {
  const Result<Scenario> s = load({});
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cluster.total_gpus(), 40);
}

TEST_F(Limits, BillionGpusAreRefused) {
  // 13,888,889 domains of 72 GPUs = 10^9 GPUs: the domain count itself is over its limit.
  expect_refused({"cluster.domains=13888889", "cluster.gpus_per_domain=72"},
                 {"cluster.domains", "10000000"});
  // Within the per-field limits but 10^9 GPUs in total.
  expect_refused({"cluster.domains=1000000", "cluster.gpus_per_domain=1000"},
                 {"cluster", "1000001000 GPUs", "more than the 10000000 this simulator accepts"});
}

TEST_F(Limits, ThousandYearsIsTheLongestHorizon) {
  expect_refused({"horizon=1001y"}, {"horizon", "between 1s and 1000y"});
  // 1000 years of this small cluster (about 35,000 failures per replication) is accepted.
  const Result<Scenario> s = load({"horizon=1000y"});
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_DOUBLE_EQ(s->horizon_s, 1000.0 * 365 * 86400);
}

TEST_F(Limits, ThousandYearsOfABigClusterAreRefused) {
  // 16,392 GPUs at 1e-4/h for 1000 years: about 1.4e7 failures per replication.
  expect_refused(
      {"horizon=1000y", "cluster.domains=2048"},
      {"failures.processes[0].rate", "failures per replication expected", "cannot be simulated"});
}

TEST_F(Limits, TenMillionReplicationsAreRefused) {
  expect_refused({"replications=10000000"}, {"replications", "[1, 1000000]"});
  expect_refused({"replications=10M"}, {"replications", "[1, 1000000]"});
  expect_refused({"replications={target_ci_halfwidth: 1%, max: 10000000}"},
                 {"replications.max", "1000000"});
}

TEST_F(Limits, TotalFailuresOverAllReplicationsAreBounded) {
  // About 35,000 failures per replication (1000 years) is fine once, not a million times.
  expect_refused({"horizon=1000y", "replications=1000000"},
                 {"failures over 1000000 replications", "more than 1e+09"});
  expect_refused({"horizon=1000y", "replications={target_ci_halfwidth: 1%, max: 1000000}"},
                 {"failures over 1000000 replications"});
  // The same rate over one year and 1000 replications (about 35,000 failures in all) is fine.
  const Result<Scenario> s = load({"horizon=1y", "replications=1000"});
  ASSERT_TRUE(s.ok()) << s.error().message;
}

TEST_F(Limits, IntegerOverflowInSizesIsRefused) {
  expect_refused({"cluster.domains=99999999999999999999"}, {"cluster.domains"});
  expect_refused({"cluster.gpus_per_domain=-9223372036854775808"}, {"cluster.gpus_per_domain"});
  expect_refused({"seed=18446744073709551616"}, {"seed"});
}

}  // namespace
}  // namespace ntpsim::sim
