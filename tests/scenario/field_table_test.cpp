// The scenario field table (sim/scenario/fields.h) drives the section readers, both printers and
// the recovery-cost table: every row's key is read, printed in the resolved YAML at its table
// position, present in the JSON, and reloads to the same value; the recovery-cost rows find their
// fields through it.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "sim/scenario/fields.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"
#include "sim/scenario/recovery_costs.h"
#include "test_util.h"

namespace ntpsim::sim {
namespace {

using namespace scenario_internal;
using testing::ScratchDir;
using testing::source_path;

// A value other than the default for every plain field of the tables (trace fields are covered
// by the trace scenario below), so that no field prints only because it kept its default.
const std::vector<std::string> kEveryField = {
    "cluster.spare_domains=1",
    "cluster.gpus_per_node=4",
    "cluster.domains_per_pod=2",
    "checkpoint.interval=45min",
    "checkpoint.max_interval=3h",
    "checkpoint.write=90s",
    "checkpoint.async_exposed_fraction=25%",
    "checkpoint.async_slowdown=5%",
    "checkpoint.restore=4min",
    "checkpoint.restore_scaling={reference_gpus: 1024, exponent: 0.25}",
    "checkpoint.memory={interval: 10min, exposed: 2s, restore: 20s}",
    "recovery.detection=45s",
    "recovery.restart=7min",
    "recovery.restart_scaling=none",
    "recovery.reconfigure=30s",
    "recovery.spare_swap=2min",
    "recovery.state_transfer=12s",
    "recovery.failures_during_pause=ignore",
    "replications={target_ci_halfwidth: 0.5%, min: 20, max: 400}",
    "outputs={results: r.json, csv: r.csv, report: r.html, timeline: t.json}",
    "failures.processes[0].lemon={fraction: 2%, multiplier: 5}",
    "failures.processes[0].burst={probability: 1%, size: 2}",
};

// The keys of `map` in order.
std::vector<std::string> keys_of(const YAML::Node& map) {
  std::vector<std::string> keys;
  for (const auto& kv : map) keys.push_back(kv.first.Scalar());
  return keys;
}

template <class S>
std::vector<std::string> printed_keys(const FieldTable<S>& table) {
  std::vector<std::string> keys;
  for (const auto& k : field_keys(table)) {
    if (k != "profile") keys.push_back(k);  // applied to the other fields, never printed itself
  }
  return keys;
}

TEST(FieldTable, KeysAreUniquePerSection) {
  const auto unique = [](const std::vector<std::string>& keys) {
    return std::set<std::string>(keys.begin(), keys.end()).size() == keys.size();
  };
  EXPECT_TRUE(unique(field_keys(cluster_fields())));
  EXPECT_TRUE(unique(field_keys(checkpoint_fields())));
  EXPECT_TRUE(unique(field_keys(recovery_fields())));
  EXPECT_TRUE(unique(field_keys(replication_fields())));
  EXPECT_TRUE(unique(field_keys(output_fields())));
  EXPECT_TRUE(unique(field_keys(trace_fields())));
  EXPECT_TRUE(unique(field_keys(lemon_fields())));
  EXPECT_TRUE(unique(field_keys(burst_fields())));
}

TEST(FieldTable, EveryRowPrintsInTableOrderAndReloadsToTheSameValues) {
  auto s = load_scenario(source_path("scenarios/quickstart.yaml"), kEveryField);
  ASSERT_TRUE(s.ok()) << s.error().message;
  const YAML::Node y = to_yaml(*s);
  EXPECT_EQ(keys_of(y["cluster"]), printed_keys(cluster_fields()));
  EXPECT_EQ(keys_of(y["checkpoint"]), printed_keys(checkpoint_fields()));
  EXPECT_EQ(keys_of(y["recovery"]), printed_keys(recovery_fields()));
  EXPECT_EQ(keys_of(y["replications"]), printed_keys(replication_fields()));
  EXPECT_EQ(keys_of(y["outputs"]), printed_keys(output_fields()));
  EXPECT_EQ(keys_of(y["failures"]["processes"][0]["lemon"]), printed_keys(lemon_fields()));
  // A burst prints `size` or its size law `sizes`, never both (LoaderTest covers `sizes`).
  EXPECT_EQ(field_keys(burst_fields()), (std::vector<std::string>{"probability", "size", "sizes"}));
  EXPECT_EQ(keys_of(y["failures"]["processes"][0]["burst"]),
            (std::vector<std::string>{"probability", "size"}));
  // Values in their exact readable form.
  EXPECT_EQ(y["checkpoint"]["max_interval"].Scalar(), "3h");
  EXPECT_EQ(y["checkpoint"]["async_exposed_fraction"].Scalar(), "25%");
  EXPECT_EQ(y["recovery"]["state_transfer"].Scalar(), "12s");
  EXPECT_EQ(y["recovery"]["failures_during_pause"].Scalar(), "ignore");
  EXPECT_EQ(y["replications"]["min"].Scalar(), "20");
  // JSON: SI units, a duration's key ends in _s.
  const nlohmann::json j = to_json(*s);
  EXPECT_EQ(j["cluster"]["domains_per_pod"], 2);
  EXPECT_EQ(j["checkpoint"]["max_interval_s"], 3 * 3600.0);
  EXPECT_EQ(j["checkpoint"]["write_s"], 90.0);
  EXPECT_EQ(j["checkpoint"]["async_slowdown"], 0.05);
  EXPECT_EQ(j["recovery"]["state_transfer_s"], 12.0);
  EXPECT_EQ(j["recovery"]["failures_during_pause"], "ignore");
  EXPECT_EQ(j["replications"]["target_ci_halfwidth"], 0.005);
  EXPECT_EQ(j["outputs"]["timeline"], "t.json");
  // A process's lemon and burst maps are flat in its JSON, prefixed.
  EXPECT_EQ(j["failures"]["processes"][0]["lemon_fraction"], 0.02);
  EXPECT_EQ(j["failures"]["processes"][0]["lemon_multiplier"], 5.0);
  EXPECT_EQ(j["failures"]["processes"][0]["burst_probability"], 0.01);
  EXPECT_EQ(j["failures"]["processes"][0]["burst_size"], 2);

  ScratchDir dir;
  const std::string file = dir.write("resolved.yaml", to_yaml_text(*s));
  auto again = load_scenario(file);
  ASSERT_TRUE(again.ok()) << again.error().message;
  again->file = s->file;
  again->name = s->name;
  EXPECT_EQ(to_json(*again).dump(), j.dump());
}

TEST(FieldTable, ShownRulesLeaveOutUnsetFields) {
  auto s = load_scenario(source_path("scenarios/quickstart.yaml"),
                         {"checkpoint.max_interval=3h", "outputs={csv: r.csv}"});
  ASSERT_TRUE(s.ok()) << s.error().message;
  s->checkpoint.max_interval_s = 0;  // unset: not printed, still in the JSON
  s->outputs.results_csv.clear();
  const YAML::Node y = to_yaml(*s);
  EXPECT_FALSE(y["checkpoint"]["max_interval"].IsDefined());
  EXPECT_FALSE(y["outputs"].IsDefined());
  EXPECT_EQ(to_json(*s)["checkpoint"]["max_interval_s"], 0.0);
  EXPECT_EQ(to_json(*s)["outputs"]["csv"], "");
}

TEST(FieldTable, TraceRowsPrintAndRecordWhereEachFieldWasWritten) {
  auto s = load_scenario(source_path("scenarios/stepfun-trace-h100.yaml"),
                         {"failures.trace.mapping=random", "failures.trace.time_scale=2.5"});
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_TRUE(s->failures.trace.has_value());
  const YAML::Node t = to_yaml(*s)["failures"]["trace"];
  EXPECT_EQ(keys_of(t), field_keys(trace_fields()));
  EXPECT_EQ(t["mapping"].Scalar(), "random");
  EXPECT_EQ(t["time_scale"].Scalar(), "2.5");
  for (const auto& key : field_keys(trace_fields())) {
    EXPECT_TRUE(s->failures.trace->field_at.count(key)) << key;
  }
  EXPECT_EQ(to_json(*s)["failures"]["trace"]["time_scale"], 2.5);
}

TEST(FieldTable, RecoveryCostRowsAreTableFields) {
  Scenario s;  // struct defaults: the conservative profile
  for (const auto& row : recovery_cost_ranges()) {
    const auto v = recovery_cost_value(s, row.field);
    ASSERT_TRUE(v.has_value()) << row.field;
    EXPECT_EQ(*v, row.conservative) << row.field;
  }
  ASSERT_TRUE(apply_recovery_profile("sourced", s.checkpoint, s.recovery));
  for (const auto& row : recovery_cost_ranges()) {
    EXPECT_EQ(recovery_cost_value(s, row.field), row.value) << row.field;
  }
  EXPECT_FALSE(recovery_cost_value(s, "checkpoint.memory").has_value());  // not a number field
  EXPECT_FALSE(recovery_cost_value(s, "recovery.no_such_field").has_value());
}

}  // namespace
}  // namespace ntpsim::sim
