// The recovery-cost table and the recovery profiles: every row is sourced and its values lie in
// its range; a profile sets the table's fields, explicit keys override it, a bad name is one
// error at its line; `ntpsim check` shows each cost with its range and source.
#include "sim/scenario/recovery_costs.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "sim/io/results_json.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"
#include "test_util.h"

namespace ntpsim::sim {
namespace {

using testing::ScratchDir;
using testing::source_path;

std::string with_minimal(const std::string& extra) {
  return "include: " + source_path("tests/scenario/good/minimal.yaml") + "\n" + extra;
}

TEST(RecoveryCostsTest, EveryRowHasASourceAndItsValuesLieInItsRange) {
  std::set<std::string> fields;
  for (const auto& row : recovery_cost_ranges()) {
    SCOPED_TRACE(std::string(row.field));
    EXPECT_TRUE(fields.insert(std::string(row.field)).second) << "duplicate row";
    EXPECT_FALSE(row.source.empty());
    EXPECT_TRUE(row.unit == "s" || row.unit == "fraction" || row.unit == "exponent");
    EXPECT_LE(row.low, row.value);
    EXPECT_LE(row.value, row.high);
    EXPECT_LE(row.low, row.conservative);
    EXPECT_LE(row.conservative, row.high);
    EXPECT_TRUE(recovery_cost_value(Scenario{}, row.field).has_value());
  }
  // Every recovery cost and checkpoint cost the scenario has is in the table.
  EXPECT_EQ(fields, (std::set<std::string>{"checkpoint.write", "checkpoint.async_exposed_fraction",
                                           "checkpoint.async_slowdown", "checkpoint.restore",
                                           "recovery.detection", "recovery.restart",
                                           "recovery.restart_scaling.exponent",
                                           "recovery.reconfigure", "recovery.spare_swap"}));
  EXPECT_FALSE(recovery_cost_value(Scenario{}, "recovery.nonsense").has_value());
}

TEST(RecoveryCostsTest, ConservativeProfileIsTheStructDefaults) {
  CheckpointConfig ck;
  RecoveryConfig rc;
  ASSERT_TRUE(apply_recovery_profile("conservative", ck, rc));
  const CheckpointConfig ck0;
  const RecoveryConfig rc0;
  EXPECT_EQ(ck.write_s, ck0.write_s);
  EXPECT_EQ(ck.async_exposed_fraction, ck0.async_exposed_fraction);
  EXPECT_EQ(ck.async_slowdown, ck0.async_slowdown);
  EXPECT_EQ(ck.restore_s, ck0.restore_s);
  EXPECT_FALSE(ck.restore_scaling.scales());
  EXPECT_FALSE(rc.restart_scaling.scales());
  EXPECT_EQ(rc.detection_s, rc0.detection_s);
  EXPECT_EQ(rc.restart_s, rc0.restart_s);
  EXPECT_EQ(rc.reconfigure_s, rc0.reconfigure_s);
  EXPECT_EQ(rc.spare_swap_s, rc0.spare_swap_s);
  EXPECT_FALSE(apply_recovery_profile("optimistic", ck, rc));
  EXPECT_EQ(ck.write_s, ck0.write_s);
  EXPECT_EQ(recovery_profile_of(Scenario{}), "conservative");
}

TEST(RecoveryCostsTest, SourcedProfileSetsThePublishedValuesAndKeysOverrideIt) {
  ScratchDir dir;
  const std::string file =
      dir.write("s.yaml", with_minimal("recovery:\n  profile: sourced\n  reconfigure: \"20s\"\n"));
  auto s = load_scenario(file, std::vector<std::string>{});
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(recovery_profile_of(*s), "custom");      // reconfigure is overridden below
  EXPECT_DOUBLE_EQ(s->recovery.restart_s, 300.0);    // Kokolis et al. u0
  EXPECT_DOUBLE_EQ(s->checkpoint.restore_s, 129.0);  // ByteCheckpoint Table 8
  EXPECT_DOUBLE_EQ(s->checkpoint.write_s, 51.0);     // ByteCheckpoint Table 8
  EXPECT_NEAR(s->checkpoint.write_s * s->checkpoint.async_exposed_fraction, 0.59, 1e-12);
  EXPECT_DOUBLE_EQ(s->recovery.reconfigure_s, 20.0);  // the explicit key wins
  // The resolved text loads again to the same values (the profile's values are written out).
  const std::string again = dir.write("again.yaml", to_yaml_text(*s));
  auto t = load_scenario(again, std::vector<std::string>{});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(to_yaml_text(*t), to_yaml_text(*s));
}

TEST(RecoveryCostsTest, ProfileFromAnOverride) {
  auto s =
      load_scenario(source_path("tests/scenario/good/minimal.yaml"), {"recovery.profile=sourced"});
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_DOUBLE_EQ(s->recovery.spare_swap_s, 60.0);
  EXPECT_EQ(recovery_profile_of(*s), "sourced");
}

TEST(RecoveryCostsTest, UnknownProfileIsOneErrorAtItsLine) {
  ScratchDir dir;
  const std::string file = dir.write("s.yaml", with_minimal("recovery:\n  profile: optimistic\n"));
  auto s = load_scenario(file, std::vector<std::string>{});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("s.yaml:3:"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("recovery.profile"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("conservative"), std::string::npos) << s.error().message;
}

TEST(RecoveryCostsTest, CheckShowsEachCostWithItsRangeAndSource) {
  ScratchDir dir;
  const std::string file = dir.write("s.yaml", with_minimal("recovery: {profile: sourced}\n"));
  auto s = load_scenario(file, std::vector<std::string>{});
  ASSERT_TRUE(s.ok()) << s.error().message;
  const std::string text = check_text(*s);
  EXPECT_NE(text.find("# recovery costs (sourced): value [plausible range], source\n"),
            std::string::npos)
      << text;
  // The minimal scenario's job is 32 GPUs: 5 min at 16,384 x (32 / 16,384)^0.174 = 1.69 min.
  EXPECT_NE(text.find("#   recovery.restart 5min at 16384 GPUs x (GPUs / 16384)^0.174: 1.69min at "
                      "this job's 32 GPUs "
                      "[30s-20min], source: re-initialisation u0"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("#   recovery.reconfigure 1min [1s-3min], source: not published for NTP"),
            std::string::npos)
      << text;
}

TEST(RecoveryCostsTest, ResultsContextCarriesEveryCostWithItsRangeAndSource) {
  ScratchDir dir;
  const std::string file =
      dir.write("s.yaml", with_minimal("recovery: {profile: sourced, restart: \"7min\"}\n"));
  auto s = load_scenario(file, std::vector<std::string>{});
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto c = results_context(*s, RunResult{});
  EXPECT_EQ(c.at("recovery_profile"), "custom");
  const auto& costs = c.at("recovery_costs");
  ASSERT_EQ(costs.size(), recovery_cost_ranges().size());
  for (size_t i = 0; i < costs.size(); ++i) {
    const auto& row = recovery_cost_ranges()[i];
    EXPECT_EQ(costs[i].at("field"), std::string(row.field));
    EXPECT_EQ(costs[i].at("low"), row.low);
    EXPECT_EQ(costs[i].at("high"), row.high);
    EXPECT_EQ(costs[i].at("source"), std::string(row.source));
  }
  EXPECT_EQ(costs[5].at("field"), "recovery.restart");
  EXPECT_EQ(costs[5].at("value"), 420.0);  // the value used, not the table's default
}

// The sourced restart scaling comes from its two published anchors: 5 min at 16,384 GPUs and
// 10 min - 1 min - 129 s = 411 s at 100,000 GPUs.
TEST(RecoveryCostsTest, SourcedRestartScalingPassesThroughItsAnchors) {
  CheckpointConfig ck;
  RecoveryConfig rc;
  ASSERT_TRUE(apply_recovery_profile("sourced", ck, rc));
  ASSERT_TRUE(rc.restart_scaling.scales());
  EXPECT_EQ(rc.restart_scaling.reference_gpus, 16384);
  EXPECT_NEAR(scaled_cost_s(rc.restart_s, rc.restart_scaling, 16384), 300.0, 1e-9);
  EXPECT_NEAR(scaled_cost_s(rc.restart_s, rc.restart_scaling, 100000), 411.0, 1e-6);
  EXPECT_LT(scaled_cost_s(rc.restart_s, rc.restart_scaling, 1024), 300.0);
  // Unset, or exponent 0: the same at every size.
  EXPECT_EQ(scaled_cost_s(300, CostScaling{}, 100000), 300.0);
  EXPECT_EQ(scaled_cost_s(300, CostScaling{16384, 0}, 100000), 300.0);
  EXPECT_NEAR(scaled_cost_s(300, CostScaling{1000, 0.5}, 4000), 600.0, 1e-9);
}

TEST(RecoveryCostsTest, ScalingsReadPrintAndReloadAndAreCheckedAtTheirLine) {
  ScratchDir dir;
  const std::string file = dir.write(
      "s.yaml", with_minimal("checkpoint: {restore_scaling: {reference_gpus: 8960, exponent: "
                             "-0.2}, async_slowdown: 40%}\nrecovery: {restart_scaling: "
                             "{reference_gpus: 2048, exponent: 0.3}}\n"));
  auto s = load_scenario(file, std::vector<std::string>{});
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->checkpoint.restore_scaling.reference_gpus, 8960);
  EXPECT_EQ(s->checkpoint.restore_scaling.exponent, -0.2);
  EXPECT_EQ(s->checkpoint.async_slowdown, 0.4);
  EXPECT_EQ(s->recovery.restart_scaling.reference_gpus, 2048);
  EXPECT_EQ(s->recovery.restart_scaling.exponent, 0.3);
  const std::string again = dir.write("again.yaml", to_yaml_text(*s));
  auto r = load_scenario(again, std::vector<std::string>{});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(to_yaml_text(*r), to_yaml_text(*s));
  for (const auto& [text, field] : std::vector<std::pair<std::string, std::string>>{
           // A new scaling needs its reference size (the sourced profile gives the restart one).
           {"checkpoint: {restore_scaling: {exponent: 0.3}}\n", "checkpoint.restore_scaling"},
           {"recovery: {restart_scaling: {reference_gpus: 0, exponent: 0.3}}\n",
            "recovery.restart_scaling.reference_gpus"},
           {"recovery: {restart_scaling: {reference_gpus: 8, exponent: 3}}\n",
            "recovery.restart_scaling.exponent"},
           {"checkpoint: {async_slowdown: 150%}\n", "checkpoint.async_slowdown"}}) {
    const std::string bad = dir.write("bad.yaml", with_minimal(text));
    auto b = load_scenario(bad, std::vector<std::string>{});
    ASSERT_FALSE(b.ok()) << text;
    EXPECT_NE(b.error().message.find("bad.yaml:2:"), std::string::npos) << b.error().message;
    EXPECT_NE(b.error().message.find(field), std::string::npos) << b.error().message;
  }
}

// A study can put a scenario on either profile whatever its file says.
TEST(RecoveryCostsTest, ProfileOverridesGiveTheProfileWhateverTheFileSays) {
  ScratchDir dir;
  const std::string file = dir.write(
      "s.yaml", with_minimal("recovery: {restart: 3min, restart_scaling: {reference_gpus: 8, "
                             "exponent: 0.5}}\n"));
  for (const char* profile : {"sourced", "conservative"}) {
    auto s = load_scenario(file, recovery_profile_overrides(profile));
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(recovery_profile_of(*s), profile);
  }
  EXPECT_TRUE(recovery_profile_overrides("optimistic").empty());
}

}  // namespace
}  // namespace ntpsim::sim
