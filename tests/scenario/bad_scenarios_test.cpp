// Malformed scenarios: each file under tests/scenario/bad/ ends with a line
//   # expect: LINE:COL: field.path: message        (the exact rest of the message), or
//   # expect-prefix: LINE:COL: field.path: message  (the message starts with this)
// and loading it must fail with exit code 2 and "<file>:" + that text. None may crash or throw.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "sim/scenario/loader.h"
#include "test_util.h"

namespace ntpsim::sim {
namespace {

const std::vector<std::string> kCases = {
    "bad_rate_unit",
    "bad_strategy_choice",
    "batch_below_dp",
    "burst_too_large",
    "chain_after_terminal",
    "chain_boost_option_without_boost",
    "chain_duplicate_action",
    "chain_empty",
    "chain_item_two_keys",
    "chain_name_is_registered",
    "chain_reduce_tp_and_drop_replica",
    "chain_spare_replica_with_replace",
    "chain_spare_replica_with_drop",
    "chain_spare_domains_contradiction",
    "chain_unknown_action",
    "chain_unknown_option",
    "chain_without_terminal",
    "chain_wrong_order",
    "checkpoint_bad_duration",
    "cluster_absurd",
    "cp_groups_do_not_fit",
    "cp_not_dividing_sequence",
    "cp_zero",
    "domains_negative",
    "domains_not_a_number",
    "duplicate_key",
    "duplicate_labels",
    "empirical_without_values",
    "excitation_without_hawkes",
    "exposed_fraction_range",
    "failures_during_pause_choice",
    "gpus_per_node_not_dividing",
    "hardware_unknown",
    "hawkes_branching_one",
    "hawkes_branching_sum_one",
    "hawkes_delay_zero",
    "hawkes_excitation_unknown_key",
    "hawkes_regime_share_one",
    "hawkes_regime_without_duration",
    "hawkes_slow_without_delay",
    "hawkes_with_shape",
    "hawkes_without_excitation",
    "horizon_absurd",
    "horizon_and_train",
    "include_not_a_file",
    "interval_shorter_than_write",
    "kind_without_repair",
    "kv_heads_do_not_divide",
    "layout_does_not_fit",
    "lemon_multiplier_below_one",
    "memory_interval_word",
    "missing_cluster",
    "missing_include",
    "model_choice",
    "node_component_without_nodes",
    "override_through_scalar_type",
    "pipeline_exceeds_layers",
    "pipeline_split_uneven",
    "rate_and_mtbf",
    "rate_noun_mismatch",
    "regime_high_repair_unknown_law",
    "regime_low_repair_bad_value",
    "regime_low_repair_without_high",
    "regime_without_hawkes",
    "replications_min_above_max",
    "replications_zero",
    "resume_in_place_restart_only",
    "seed_negative",
    "shape_with_exponential",
    "shares_do_not_sum",
    "sigma_with_fixed",
    "state_copy_none_in_place",
    "strategies_empty",
    "strategy_param_range",
    "too_many_failures",
    "top_level_not_a_map",
    "tp_exceeds_domain",
    "tp_exceeds_heads",
    "trace_component_pod_without_pods",
    "trace_missing_file",
    "unknown_cluster_key",
    "unknown_strategy",
    "unknown_strategy_param",
    "unknown_top_key",
    "unknown_workload",
    "workload_is_a_list",
    "yaml_syntax",
};

std::string bad_file(const std::string& name) {
  return testing::source_path("tests/scenario/bad/" + name + ".yaml");
}

struct Expectation {
  std::string text;
  bool prefix = false;
};

Expectation expectation_of(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  Expectation e;
  while (std::getline(in, line)) {
    if (line.rfind("# expect: ", 0) == 0) e = {line.substr(10), false};
    if (line.rfind("# expect-prefix: ", 0) == 0) e = {line.substr(17), true};
  }
  return e;
}

class BadScenarioTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BadScenarioTest, FailsWithExactLocationAndField) {
  const std::string file = bad_file(GetParam());
  const Expectation expect = expectation_of(file);
  ASSERT_FALSE(expect.text.empty()) << file << " has no '# expect:' line";
  auto s = load_scenario(file);
  ASSERT_FALSE(s.ok()) << file << " loaded without error";
  EXPECT_EQ(s.error().exit_code, ExitCode::kBadInput);
  const std::string want = file + ":" + expect.text;
  if (expect.prefix) {
    EXPECT_EQ(s.error().message.substr(0, want.size()), want);
  } else {
    EXPECT_EQ(s.error().message, want);
  }
  EXPECT_EQ(s.error().message.find('\n'), std::string::npos) << "one line only";
}

INSTANTIATE_TEST_SUITE_P(All, BadScenarioTest, ::testing::ValuesIn(kCases),
                         [](const auto& p) { return p.param; });

TEST(BadScenarioSuite, EveryFileIsListedAndThereAreAtLeastThirty) {
  std::set<std::string> on_disk;
  for (const auto& e :
       std::filesystem::directory_iterator(testing::source_path("tests/scenario/bad"))) {
    if (e.path().extension() == ".yaml") on_disk.insert(e.path().stem().string());
  }
  const std::set<std::string> listed(kCases.begin(), kCases.end());
  EXPECT_EQ(on_disk, listed);
  EXPECT_GE(listed.size(), 30u);
}

}  // namespace
}  // namespace ntpsim::sim
