// The scenario loader: defaults, includes (merge rules, origins, cycles), `--set` overrides,
// resolved output that loads again to the same text and hash, JSON, and hostile input.
#include "sim/scenario/loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/base/random.h"
#include "sim/scenario/printer.h"
#include "sim/scenario/recovery_costs.h"
#include "test_util.h"

namespace ntpsim::sim {
namespace {

using testing::ScratchDir;
using testing::source_path;

std::string good(const std::string& name) {
  return source_path("tests/scenario/good/" + name + ".yaml");
}

Scenario load_ok(const std::string& file, const std::vector<std::string>& overrides = {}) {
  auto s = load_scenario(file, overrides);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.ok() ? *s : Scenario{};
}

std::string load_error(const std::string& file, const std::vector<std::string>& overrides = {}) {
  auto s = load_scenario(file, overrides);
  EXPECT_FALSE(s.ok()) << file << " loaded";
  return s.ok() ? std::string() : s.error().message;
}

TEST(LoaderTest, MinimalFillsDefaults) {
  const Scenario s = load_ok(good("minimal"));
  EXPECT_EQ(s.name, "minimal");
  EXPECT_EQ(s.cluster.total_gpus(), 40);
  EXPECT_EQ(s.workload.kv_heads, 2);
  EXPECT_EQ(s.layout.gpus(), 32);
  EXPECT_EQ(s.hardware.name, "h100-sxm");
  EXPECT_EQ(s.step_model, "analytic");
  ASSERT_EQ(s.failures.processes.size(), 1u);
  const auto& p = s.failures.processes[0];
  EXPECT_DOUBLE_EQ(p.rate_per_unit_s, 1e-4 / 3600.0);
  ASSERT_EQ(p.kinds.size(), 2u);
  EXPECT_DOUBLE_EQ(p.kinds[0].share, 0.8);
  EXPECT_EQ(p.kinds[0].repair.distribution, "fixed");
  EXPECT_DOUBLE_EQ(p.kinds[0].repair.mean_s, 2 * 86400.0);
  EXPECT_EQ(p.kinds[1].repair.distribution, "exponential");
  EXPECT_TRUE(s.checkpoint.auto_interval);
  // A file that names no recovery profile starts from the sourced one.
  EXPECT_DOUBLE_EQ(s.recovery.restart_s, 300.0);
  EXPECT_EQ(s.recovery.restart_scaling.reference_gpus, 16384);
  EXPECT_EQ(recovery_profile_of(s), "sourced");
  ASSERT_EQ(s.strategies.size(), 2u);
  EXPECT_EQ(std::get<std::string>(s.strategies[1].params.at("rule")), "per_group");
  EXPECT_EQ(std::get<int64_t>(s.strategies[1].params.at("tp_step")), 1);
  EXPECT_DOUBLE_EQ(s.horizon_s, 86400.0);
  EXPECT_EQ(s.replications.fixed, 4);
  EXPECT_EQ(s.seed, 3u);
}

// Context parallelism: CP x PP x DP TP groups; printed and hashed only when set, so a layout
// without it keeps its text and hash; the resolved text loads again to the same layout.
TEST(LoaderTest, ContextParallelLayout) {
  const Scenario plain = load_ok(good("minimal"), {"layout.dp=1"});
  const Scenario cp1 = load_ok(good("minimal"), {"layout.dp=1", "layout.cp=1"});
  EXPECT_EQ(scenario_hash(plain), scenario_hash(cp1));
  EXPECT_EQ(to_yaml_text(plain).find("cp:"), std::string::npos);
  const Scenario cp2 = load_ok(good("minimal"), {"layout.dp=1", "layout.cp=2"});
  EXPECT_EQ(cp2.layout.cp, 2);
  EXPECT_EQ(cp2.layout.gpus(), 32);
  EXPECT_NE(scenario_hash(cp2), scenario_hash(plain));
  ScratchDir dir;
  const std::string file = dir.write("cp.yaml", to_yaml_text(cp2));
  const Scenario again = load_ok(file);
  EXPECT_EQ(again.layout.cp, 2);
  EXPECT_EQ(scenario_hash(again), scenario_hash(cp2));
}

TEST(LoaderTest, IncludeMergesMapsAndReplacesLists) {
  const Scenario s = load_ok(good("derived"));
  EXPECT_EQ(s.name, "derived");
  EXPECT_EQ(s.cluster.domains, 8);          // from derived.yaml
  EXPECT_EQ(s.cluster.gpus_per_domain, 8);  // from minimal.yaml, merged into the same map
  EXPECT_EQ(s.cluster.spare_domains, 1);
  EXPECT_EQ(s.layout.dp, 4);
  EXPECT_EQ(s.layout.tp, 8);
  ASSERT_EQ(s.strategies.size(), 1u);  // the list replaced, not appended
  EXPECT_EQ(s.strategies[0].label, "ntp-even");
  EXPECT_EQ(std::get<int64_t>(s.strategies[0].params.at("tp_step")), 2);
}

TEST(LoaderTest, LaterIncludesOverrideEarlierAndTheFileOverridesAll) {
  const Scenario s = load_ok(good("two_bases"));
  EXPECT_EQ(s.seed, 99u);              // seed_base.yaml over minimal.yaml
  EXPECT_EQ(s.replications.fixed, 6);  // two_bases.yaml over both
  EXPECT_EQ(s.name, "minimal");        // only minimal.yaml names it
}

TEST(LoaderTest, TraceFileResolvesRelativeToTheFileThatNamesIt) {
  const Scenario s = load_ok(good("with_trace"));
  ASSERT_TRUE(s.failures.trace.has_value());
  EXPECT_EQ(s.failures.trace->file, source_path("tests/scenario/good/tiny_trace.csv"));
  EXPECT_EQ(s.failures.trace->component, Component::kNode);
  EXPECT_DOUBLE_EQ(s.failures.trace->time_scale, 2.0);
  EXPECT_TRUE(s.failures.trace->loop);
  EXPECT_EQ(s.failures.processes.size(), 1u);  // failures map merged with minimal's
}

TEST(LoaderTest, ErrorsInAnIncludedFileNameThatFile) {
  ScratchDir dir;
  const std::string base = dir.write(
      "base.yaml", "include: " + good("minimal") + "\nrecovery:\n  restart: \"10 parsecs\"\n");
  const std::string top = dir.write("top.yaml", "include: base.yaml\nseed: 5\n");
  EXPECT_EQ(load_error(top),
            base +
                ":3:12: recovery.restart: unknown duration unit \"parsecs\" in \"10 parsecs\" "
                "(use e.g. \"90s\", \"30min\", \"3h\", \"5d\", \"1y\")");
}

TEST(LoaderTest, UnknownKeyInAnIncludedFileNamesThatFile) {
  ScratchDir dir;
  const std::string base =
      dir.write("base.yaml", "include: " + good("minimal") + "\ncluster:\n  spare_domain: 2\n");
  const std::string top = dir.write("top.yaml", "include: base.yaml\ncluster: {domains: 4}\n");
  EXPECT_EQ(load_error(top),
            base + ":3:3: cluster.spare_domain: unknown key (did you mean \"spare_domains\"?)");
}

TEST(LoaderTest, IncludeCycleIsRefused) {
  ScratchDir dir;
  const std::string a = dir.write("a.yaml", "include: b.yaml\nseed: 1\n");
  const std::string b = dir.write("b.yaml", "seed: 2\ninclude: [a.yaml]\n");
  const std::string msg = load_error(a);
  EXPECT_EQ(msg, b + ":2:11: include[0]: include cycle: " + a + " -> " + b + " -> " + a);
}

TEST(LoaderTest, SelfIncludeIsRefused) {
  ScratchDir dir;
  const std::string a = dir.write("a.yaml", "include: a.yaml\n");
  EXPECT_EQ(load_error(a), a + ":1:10: include: include cycle: " + a + " -> " + a);
}

TEST(LoaderTest, OverridesSetScalarsListsAndNewMaps) {
  const Scenario s = load_ok(good("minimal"), {"layout.dp=1", "failures.processes[0].rate=2e-4/h",
                                               "strategies=[dp_drop, {name: ntp, rule: parity}]",
                                               "checkpoint.interval=30min", "outputs.csv=x.csv"});
  EXPECT_EQ(s.layout.dp, 1);
  EXPECT_DOUBLE_EQ(s.failures.processes[0].rate_per_unit_s, 2e-4 / 3600.0);
  ASSERT_EQ(s.strategies.size(), 2u);
  EXPECT_EQ(std::get<std::string>(s.strategies[1].params.at("rule")), "parity");
  EXPECT_FALSE(s.checkpoint.auto_interval);
  EXPECT_DOUBLE_EQ(s.checkpoint.interval_s, 1800.0);
  EXPECT_EQ(s.outputs.results_csv, "x.csv");
}

TEST(LoaderTest, OverrideGivesAStrategyNamedAloneItsParameters) {
  const Scenario s =
      load_ok(good("minimal"), {"strategies[1].rule=parity", "strategies[1].label=p"});
  ASSERT_EQ(s.strategies.size(), 2u);
  EXPECT_EQ(s.strategies[1].name, "ntp");
  EXPECT_EQ(s.strategies[1].label, "p");
  EXPECT_EQ(std::get<std::string>(s.strategies[1].params.at("rule")), "parity");
  EXPECT_EQ(load_error(good("minimal"), {"strategies[1].rul=parity"}),
            "--set strategies[1].rul=parity:1:1: strategies[1].rul: unknown key (did you mean "
            "\"rule\"?)");
}

TEST(LoaderTest, OverridesApplyInOrder) {
  const Scenario s = load_ok(good("minimal"), {"seed=5", "seed=6"});
  EXPECT_EQ(s.seed, 6u);
}

TEST(LoaderTest, BadOverridesAreLocatedAtTheOverride) {
  const std::string f = good("minimal");
  EXPECT_EQ(load_error(f, {"layout.dp=3"}),
            "--set layout.dp=3:1:1: layout.dp: PP 2 x DP 3 needs 6 TP groups of 8 GPUs; the "
            "cluster's 4 non-spare domains of 8 GPUs hold 4 (1 per domain)")
      << "cross-field errors point at the field they name";
  EXPECT_EQ(load_error(f, {"cluster.gpu_per_domain=3"}),
            "--set cluster.gpu_per_domain=3:1:1: cluster.gpu_per_domain: unknown key (did you "
            "mean \"gpus_per_domain\"?)");
  EXPECT_EQ(load_error(f, {"seed"}), "--set seed: expected FIELD.PATH=VALUE");
  EXPECT_EQ(load_error(f, {"seed="}), "--set seed=: seed: empty value");
  EXPECT_EQ(load_error(f, {"a..b=1"}),
            "--set a..b=1: bad field path \"a..b\": expected a field name at character 3");
  EXPECT_EQ(load_error(f, {"failures.processes[3].rate=1/h"}),
            "--set failures.processes[3].rate=1/h: failures.processes[3].rate: "
            "failures.processes has no element [3]");
  EXPECT_EQ(load_error(f, {"seed.value=1"}),
            "--set seed.value=1: seed.value: seed is \"3\", not a map");
  EXPECT_EQ(load_error(f, {"horizon=[1d"}).rfind("--set horizon=[1d:", 0), 0u);
}

TEST(LoaderTest, OverrideCreatesTrainAndConflictsWithHorizon) {
  EXPECT_EQ(load_error(good("minimal"), {"train.tokens=15T"}),
            "--set train.tokens=15T:1:1: train: give either horizon or train, not both");
}

TEST(LoaderTest, TrainBudgetAndAdaptiveReplications) {
  ScratchDir dir;
  const std::string f = dir.write("t.yaml", "include: " + good("minimal") + "\n");
  // horizon cannot be removed by an override, so build a file without it.
  const std::string g = dir.write(
      "g.yaml",
      "cluster: {domains: 2, gpus_per_domain: 8}\nworkload: llama3-8b\nlayout: {tp: 8, dp: 2}\n"
      "hardware: h100-sxm\nstrategies: [ntp]\ntrain: {tokens: 15T}\n"
      "replications: {target_ci_halfwidth: \"0.5%\", min: 5}\n");
  const Scenario s = load_ok(g);
  EXPECT_DOUBLE_EQ(s.train_tokens, 15e12);
  EXPECT_DOUBLE_EQ(s.max_time_s, 365 * 86400.0);
  EXPECT_DOUBLE_EQ(s.horizon_s, 0.0);
  EXPECT_EQ(s.replications.fixed, 0);
  EXPECT_DOUBLE_EQ(s.replications.target_ci_halfwidth, 0.005);
  EXPECT_EQ(s.replications.min, 5);
  EXPECT_EQ(s.replications.max, 1000);
  EXPECT_TRUE(s.failures.processes.empty());
  EXPECT_TRUE(load_scenario(f).ok());
}

TEST(LoaderTest, MtbfWeibullLemonBurstAndEmpiricalRepair) {
  const Scenario s = load_ok(
      good("minimal"),
      {"failures.processes=[{component: node, mtbf: 5000h, distribution: weibull, shape: 0.8, "
       "kinds: [{name: a, repair: {distribution: empirical, values: [1h, 3h]}}], "
       "lemon: {fraction: 10%, multiplier: 5}, burst: {probability: 1%, size: 2}}]"});
  const auto& p = s.failures.processes.at(0);
  EXPECT_EQ(p.component, Component::kNode);
  EXPECT_DOUBLE_EQ(p.rate_per_unit_s, 1.0 / (5000 * 3600.0));
  EXPECT_EQ(p.distribution, "weibull");
  EXPECT_DOUBLE_EQ(p.shape, 0.8);
  EXPECT_DOUBLE_EQ(p.kinds[0].repair.mean_s, 7200.0);
  EXPECT_EQ(p.kinds[0].repair.values_s.size(), 2u);
  EXPECT_DOUBLE_EQ(p.lemon_fraction, 0.1);
  EXPECT_DOUBLE_EQ(p.lemon_multiplier, 5.0);
  EXPECT_EQ(p.burst_size, 2);
}

// Deferred repairs read as a share and a visit interval, print back only when set, and reload
// to the same scenario; the map is all-or-nothing.
TEST(LoaderTest, DeferredRepairsReadPrintAndReload) {
  const Scenario s = load_ok(
      good("minimal"),
      {"failures.processes=[{component: node, rate: 1e-4/h, kinds: [{name: a, repair: {mean: 1d}}], "
       "deferred_repairs: {share: 5%, visit_interval: 30d}}]"});
  const auto& p = s.failures.processes.at(0);
  EXPECT_DOUBLE_EQ(p.deferred_share, 0.05);
  EXPECT_DOUBLE_EQ(p.visit_interval_s, 30 * 86400.0);
  const std::string text = to_yaml_text(s);
  EXPECT_NE(text.find("deferred_repairs"), std::string::npos) << text;
  EXPECT_EQ(to_yaml_text(load_ok(good("minimal"))).find("deferred_repairs"), std::string::npos);
  ScratchDir dir;
  auto again = load_scenario(dir.write("deferred.yaml", text));
  ASSERT_TRUE(again.ok()) << again.error().message << "\n" << text;
  EXPECT_EQ(to_yaml_text(*again), text);
  EXPECT_EQ(scenario_hash(*again), scenario_hash(s));

  auto missing = load_scenario(
      good("minimal"),
      {"failures.processes=[{component: node, rate: 1e-4/h, kinds: [{name: a, repair: {mean: 1d}}], "
       "deferred_repairs: {share: 5%}}]"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("failures.processes[0].deferred_repairs"),
            std::string::npos)
      << missing.error().message;
  EXPECT_NE(missing.error().message.find("visit_interval"), std::string::npos)
      << missing.error().message;
}

// Shared repairs read as a window and a probability, print back only when set, reload to the
// same scenario and leave the hash of a scenario without them alone; the map is all-or-nothing
// and its fields are checked against their ranges.
TEST(LoaderTest, SharedRepairsReadPrintAndReload) {
  const std::string process =
      "failures.processes=[{component: node, rate: 1e-4/h, "
      "kinds: [{name: a, repair: {mean: 1d}}], ";
  const Scenario s = load_ok(good("minimal"),
                             {process + "shared_repairs: {window: 2h, probability: 40%}}]"});
  const auto& p = s.failures.processes.at(0);
  EXPECT_DOUBLE_EQ(p.shared_repair_window_s, 7200.0);
  EXPECT_DOUBLE_EQ(p.shared_repair_probability, 0.4);
  const std::string text = to_yaml_text(s);
  EXPECT_NE(text.find("shared_repairs"), std::string::npos) << text;
  const Scenario plain = load_ok(good("minimal"), {process + "}]"});
  EXPECT_EQ(to_yaml_text(plain).find("shared_repairs"), std::string::npos);
  EXPECT_NE(scenario_hash(plain), scenario_hash(s));
  ScratchDir dir;
  auto again = load_scenario(dir.write("shared.yaml", text));
  ASSERT_TRUE(again.ok()) << again.error().message << "\n" << text;
  EXPECT_EQ(to_yaml_text(*again), text);
  EXPECT_EQ(scenario_hash(*again), scenario_hash(s));

  const std::pair<std::string, std::string> bad[] = {
      {"shared_repairs: {window: 2h}}]", "probability"},
      {"shared_repairs: {window: 0s, probability: 40%}}]", "window"},
      {"shared_repairs: {window: 2h, probability: 140%}}]", "probability"},
      {"shared_repairs: {window: 2h, probability: 40%, size: 3}}]", "size"},
  };
  for (const auto& [tail, field] : bad) {
    auto r = load_scenario(good("minimal"), {process + tail});
    ASSERT_FALSE(r.ok()) << tail;
    EXPECT_NE(r.error().message.find("failures.processes[0].shared_repairs"), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find(field), std::string::npos) << r.error().message;
  }
}

// A burst's size law reads as a list of whole numbers in place of `size`, prints back as that
// list (and `size` not at all), reloads to the same scenario, changes the hash, and sets the
// mean units per event; `size` and `sizes` together, an empty list and sizes out of range or
// not whole are refused at the element, and a size the cluster cannot hold is refused.
TEST(LoaderTest, BurstSizeLawReadPrintAndReload) {
  const std::string process =
      "failures.processes=[{component: node, rate: 1e-4/h, "
      "kinds: [{name: a, repair: {mean: 1d}}], ";
  const Scenario s =
      load_ok(good("minimal"), {process + "burst: {probability: 10%, sizes: [2, 3, 7]}}]"});
  const auto& p = s.failures.processes.at(0);
  EXPECT_EQ(p.burst_sizes, (std::vector<int>{2, 3, 7}));
  EXPECT_EQ(p.largest_burst_size(), 7);
  EXPECT_DOUBLE_EQ(p.mean_units_per_event(), 1.0 + 0.1 * (4.0 - 1.0));
  const std::string text = to_yaml_text(s);
  EXPECT_NE(text.find("sizes: [2, 3, 7]"), std::string::npos) << text;
  EXPECT_EQ(text.find("size:"), std::string::npos) << text;
  EXPECT_EQ(to_json(s)["failures"]["processes"][0]["burst_sizes"], nlohmann::json({2, 3, 7}));
  EXPECT_FALSE(to_json(s)["failures"]["processes"][0].contains("burst_size"));
  const Scenario fixed = load_ok(good("minimal"), {process + "burst: {probability: 10%, size: 8}}]"});
  EXPECT_EQ(to_yaml_text(fixed).find("sizes"), std::string::npos);
  EXPECT_NE(scenario_hash(fixed), scenario_hash(s));
  ScratchDir dir;
  auto again = load_scenario(dir.write("sizes.yaml", text));
  ASSERT_TRUE(again.ok()) << again.error().message << "\n" << text;
  EXPECT_EQ(to_yaml_text(*again), text);
  EXPECT_EQ(scenario_hash(*again), scenario_hash(s));

  const std::pair<std::string, std::string> bad[] = {
      {"burst: {probability: 10%, size: 2, sizes: [2, 3]}}]", "burst.size: give size or sizes"},
      {"burst: {probability: 10%, sizes: []}}]", "burst.sizes"},
      {"burst: {probability: 10%, sizes: 3}}]", "burst.sizes"},
      {"burst: {probability: 10%, sizes: [2, 0]}}]", "burst.sizes[1]"},
      {"burst: {probability: 10%, sizes: [2, 2.5]}}]", "burst.sizes[1]"},
      {"burst: {probability: 10%, sizes: [[2]]}}]", "burst.sizes[0]"},
      {"burst: {probability: 10%}}]", "size"},
  };
  for (const auto& [tail, field] : bad) {
    auto r = load_scenario(good("minimal"), {process + tail});
    ASSERT_FALSE(r.ok()) << tail;
    EXPECT_NE(r.error().message.find("failures.processes[0]"), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find(field), std::string::npos) << r.error().message;
  }
  const std::string e =
      load_error(good("minimal"), {"failures.processes=[{component: domain, rate: 1e-4/h, "
                                   "kinds: [{name: a, repair: {mean: 1d}}], "
                                   "burst: {probability: 10%, sizes: [2, 9999]}}]"});
  EXPECT_NE(e.find("burst.sizes"), std::string::npos) << e;
  EXPECT_NE(e.find("a burst of 9999 exceeds"), std::string::npos) << e;
}

// Partner delays read as a map beside the burst, print back only when given, reload to the same
// scenario and change the hash; a map without a burst, a mean not above `after`, a missing key and
// values out of range are refused naming the field.
TEST(LoaderTest, PartnerDelaysReadPrintAndReload) {
  const std::string process =
      "failures.processes=[{component: node, rate: 1e-4/h, "
      "kinds: [{name: a, repair: {mean: 1d}}], ";
  const std::string burst = "burst: {probability: 10%, sizes: [2, 3]}, ";
  const Scenario s = load_ok(
      good("minimal"),
      {process + burst + "partner_delays: {at_once: 70%, after: 60s, mean: 29.5min}}]"});
  const auto& p = s.failures.processes.at(0);
  ASSERT_TRUE(p.has_partner_delays());
  EXPECT_DOUBLE_EQ(p.partner_at_once_share, 0.7);
  EXPECT_DOUBLE_EQ(p.partner_delay_after_s, 60.0);
  EXPECT_DOUBLE_EQ(p.partner_delay_mean_s, 1770.0);
  const std::string text = to_yaml_text(s);
  EXPECT_NE(text.find("partner_delays:"), std::string::npos) << text;
  EXPECT_DOUBLE_EQ(to_json(s)["failures"]["processes"][0]["partner_delay_mean_s"].get<double>(),
                   1770.0);
  const Scenario without = load_ok(good("minimal"), {process + burst + "}]"});
  EXPECT_FALSE(without.failures.processes.at(0).has_partner_delays());
  EXPECT_EQ(to_yaml_text(without).find("partner_delays"), std::string::npos);
  EXPECT_FALSE(to_json(without)["failures"]["processes"][0].contains("partner_delay_mean_s"));
  EXPECT_NE(scenario_hash(without), scenario_hash(s));
  ScratchDir dir;
  auto again = load_scenario(dir.write("delays.yaml", text));
  ASSERT_TRUE(again.ok()) << again.error().message << "\n" << text;
  EXPECT_EQ(to_yaml_text(*again), text);
  EXPECT_EQ(scenario_hash(*again), scenario_hash(s));

  const std::pair<std::string, std::string> bad[] = {
      {"partner_delays: {at_once: 70%, after: 60s, mean: 30min}}]", "need a burst"},
      {burst + "partner_delays: {at_once: 70%, after: 1h, mean: 30min}}]",
       "partner_delays.mean: the mean delay"},
      {burst + "partner_delays: {at_once: 70%, mean: 30min}}]", "after"},
      {burst + "partner_delays: {at_once: 170%, after: 60s, mean: 30min}}]", "at_once"},
      {burst + "partner_delays: {at_once: 70%, after: 60s, mean: 0s}}]", "mean"},
      {burst + "partner_delays: {at_once: 70%, after: 60s, mean: 30min, size: 2}}]", "size"},
  };
  for (const auto& [tail, field] : bad) {
    auto r = load_scenario(good("minimal"), {process + tail});
    ASSERT_FALSE(r.ok()) << tail;
    EXPECT_NE(r.error().message.find("failures.processes[0].partner_delays"), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find(field), std::string::npos) << r.error().message;
  }
}

// A chain entry keeps its own name and label, its actions in order and every option of its
// terminal action with defaults filled (fractions parsed); boost-only options only with the boost.
TEST(LoaderTest, ChainsReadWithTheirActionsAndOptions) {
  const Scenario s = load_ok(good("chains"));
  ASSERT_EQ(s.strategies.size(), 5u);
  const StrategyConfig& boost = s.strategies[1];
  EXPECT_EQ(boost.name, "swap_then_boost");
  EXPECT_EQ(boost.label, "swap then boosted NTP");
  // A chain's own parameters are its resume parameters, defaults filled (in place: it can swap).
  ASSERT_EQ(boost.params.size(), 3u);
  EXPECT_EQ(std::get<std::string>(boost.params.at("resume")), "in_place");
  EXPECT_EQ(std::get<std::string>(boost.params.at("state_copy")), "peer");
  EXPECT_FALSE(std::get<bool>(boost.params.at("allow_lost_state")));
  ASSERT_EQ(boost.chain.size(), 3u);
  EXPECT_EQ(boost.chain[0].action, "swap_in_domain");
  EXPECT_TRUE(boost.chain[0].params.empty());
  EXPECT_EQ(boost.chain[1].action, "replace_with_spare_domain");
  EXPECT_EQ(boost.chain[2].action, "reduce_tp");
  EXPECT_EQ(std::get<bool>(boost.chain[2].params.at("power_boost")), true);
  EXPECT_DOUBLE_EQ(std::get<double>(boost.chain[2].params.at("max_power")), 0.2);
  EXPECT_EQ(std::get<std::string>(boost.chain[2].params.at("rule")), "parity");
  EXPECT_EQ(std::get<bool>(boost.chain[2].params.at("keep_pace")), true);
  const StrategyConfig& restart = s.strategies[2];
  ASSERT_EQ(restart.chain.size(), 2u);
  EXPECT_EQ(std::get<bool>(restart.chain[1].params.at("use_spare_domains")), false);
  const StrategyConfig& plain = s.strategies[3];
  EXPECT_EQ(plain.chain[1].params.count("max_power"), 0u);
  EXPECT_EQ(std::get<bool>(plain.chain[1].params.at("power_boost")), false);
  EXPECT_TRUE(s.strategies[4].chain.empty());  // spares_then_ntp: a registered strategy
}

// The resolved YAML loads again and resolves to the same text (hence the same hash).
TEST(LoaderTest, ResolvedOutputRoundTrips) {
  const std::vector<std::string> files = {good("minimal"),
                                          good("derived"),
                                          good("chains"),
                                          source_path("scenarios/quickstart.yaml"),
                                          source_path("scenarios/hgx-h100-16k.yaml"),
                                          source_path("scenarios/ntp-paper-b200-nvl32.yaml")};
  // (stepfun-trace-h100.yaml is left out: its trace path is relative to scenarios/.)
  for (const auto& f : files) {
    ScratchDir dir;
    const Scenario s = load_ok(f);
    const std::string text = to_yaml_text(s);
    const std::string again_file = dir.write(s.name + ".yaml", text);
    auto again = load_scenario(again_file);
    ASSERT_TRUE(again.ok()) << f << ": " << again.error().message << "\n" << text;
    EXPECT_EQ(to_yaml_text(*again), text) << f;
    EXPECT_EQ(scenario_hash(*again), scenario_hash(s)) << f;
  }
}

TEST(LoaderTest, HashIdentifiesTheResolvedScenario) {
  const Scenario a = load_ok(good("minimal"));
  const Scenario b = load_ok(good("minimal"));
  const Scenario c = load_ok(good("minimal"), {"seed=4"});
  EXPECT_EQ(scenario_hash(a), scenario_hash(b));
  EXPECT_NE(scenario_hash(a), scenario_hash(c));
  EXPECT_EQ(scenario_hash(a).rfind("fnv1a64:", 0), 0u);
  EXPECT_EQ(scenario_hash(a).size(), 8u + 16u);
}

TEST(LoaderTest, JsonUsesSiUnits) {
  const nlohmann::json j = to_json(load_ok(good("with_trace")));
  EXPECT_EQ(j["cluster"]["total_gpus"], 40);
  EXPECT_DOUBLE_EQ(j["horizon_s"].get<double>(), 86400.0);
  EXPECT_DOUBLE_EQ(j["failures"]["processes"][0]["rate_per_unit_s"].get<double>(), 1e-4 / 3600);
  EXPECT_DOUBLE_EQ(j["failures"]["processes"][0]["kinds"][0]["repair"]["mean_s"].get<double>(),
                   172800.0);
  EXPECT_EQ(j["failures"]["trace"]["file"], "tiny_trace.csv");
  EXPECT_EQ(j["strategies"][1]["params"]["rule"], "per_group");
  EXPECT_EQ(j["hardware"]["name"], "h100-sxm");
  EXPECT_EQ(j["workload"]["kv_heads"], 2);
}

// Hostile input: every case is an error value, never a crash or an exception.
TEST(LoaderTest, HostileInputIsAnErrorNotACrash) {
  ScratchDir dir;
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {"empty.yaml", ""},
      {"comment.yaml", "# nothing\n"},
      {"binary.yaml", std::string("\x00\xff\xfe{[", 5)},
      {"scalar.yaml", "42\n"},
      {"deep.yaml", std::string(500, '[') + std::string(500, ']') + "\n"},
      {"alias.yaml", "a: &x {domains: 4}\ncluster: *x\n"},
      {"merge.yaml", "base: &b {domains: 4, gpus_per_domain: 8}\ncluster: {<<: *b}\n"},
      {"tab.yaml", "cluster:\n\tdomains: 4\n"},
      {"bignum.yaml", "cluster: {domains: 1e400, gpus_per_domain: 8}\n"},
      {"nan.yaml", "include: " + good("minimal") + "\nhorizon: .nan\n"},
      {"long_key.yaml", std::string(10000, 'k') + ": 1\n"},
      {"null_include.yaml", "include:\n"},
      {"list_of_lists.yaml", "include: [[a.yaml]]\n"},
  };
  for (const auto& [name, text] : inputs) {
    auto s = load_scenario(dir.write(name, text));
    EXPECT_FALSE(s.ok()) << name;
    if (!s.ok()) {
      EXPECT_EQ(s.error().exit_code, ExitCode::kBadInput) << name;
    }
  }
  EXPECT_FALSE(load_scenario(dir.path().string()).ok());  // a folder
  EXPECT_FALSE(load_scenario((dir.path() / "missing.yaml").string()).ok());
}

// Seeded byte mutations of a real scenario (delete, duplicate, replace with YAML-significant
// characters): every one loads or fails with a bad-input error; none crashes or throws.
TEST(LoaderTest, MutatedScenariosNeverCrash) {
  ScratchDir dir;
  std::ifstream in(source_path("scenarios/quickstart.yaml"), std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string original = ss.str();
  const std::string alphabet = ":-[]{}#&*!|>'\"%@,? \n\t0123456789abcdefghyz/.";
  Stream rng(20260101, 0, "scenario.mutation");
  int loaded = 0;
  for (int i = 0; i < 200; ++i) {
    std::string text = original;
    const int edits = 1 + static_cast<int>(rng.uniform_int(4));
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng.uniform_int(text.size());
      switch (rng.uniform_int(3)) {
        case 0:
          text.erase(at, 1 + rng.uniform_int(8));
          break;
        case 1:
          text.insert(at, text.substr(at, 1 + rng.uniform_int(16)));
          break;
        default:
          text[at] = alphabet[rng.uniform_int(alphabet.size())];
          break;
      }
    }
    auto s = load_scenario(dir.write("m.yaml", text));
    if (s.ok()) {
      ++loaded;
    } else {
      EXPECT_EQ(s.error().exit_code, ExitCode::kBadInput) << text;
      EXPECT_FALSE(s.error().message.empty());
    }
  }
  // Many edits land in comments or keep the file valid; most break it.
  EXPECT_GT(loaded, 0);
  EXPECT_LT(loaded, 200);
}

}  // namespace
// A file loaded again is copied from the tree kept at its first load instead of parsed again
// (tree.h, kept_tree); the copy has no line marks, so the loader takes only an error-free,
// location-free result from it. These tests hold that a second load is the first one.
TEST(LoaderTest, ALoadAgainGivesTheSameScenarioAndHash) {
  for (const std::string name : {"minimal", "two_bases", "chains", "derived"}) {
    const Scenario first = load_ok(good(name), {"seed=11"});
    const Scenario again = load_ok(good(name), {"seed=11"});
    EXPECT_EQ(to_yaml_text(first), to_yaml_text(again)) << name;
    EXPECT_EQ(scenario_hash(first), scenario_hash(again)) << name;
  }
}

TEST(LoaderTest, ALoadAgainReadsAChangedFileOrInclude) {
  ScratchDir dir;
  const std::string base = dir.write("base.yaml", "include: " + good("minimal") + "\nseed: 1\n");
  const std::string top = dir.write("top.yaml", "include: base.yaml\ncluster: {domains: 4}\n");
  EXPECT_EQ(load_ok(top).seed, 1u);
  EXPECT_EQ(load_ok(top).seed, 1u);
  dir.write("base.yaml", "include: " + good("minimal") + "\nseed: 2\n");  // the include changes
  EXPECT_EQ(load_ok(top).seed, 2u);
  dir.write("top.yaml", "include: base.yaml\ncluster: {domains: 4}\nseed: 3\n");
  EXPECT_EQ(load_ok(top).seed, 3u);
  EXPECT_EQ(load_ok(top).cluster.domains, 4);
  std::filesystem::remove(base);  // an include that is gone is an error again, not a kept tree
  EXPECT_NE(load_error(top).find("included file \"base.yaml\" not found"), std::string::npos);
}

// The failure section read from a kept tree is reused by later loads of that tree whose
// overrides leave the section alone; a load that overrides it reads its own, which later loads do
// not see; a changed file is read again; and the cross-checks of the failures against the
// cluster still run on every load.
TEST(LoaderTest, AKeptFailureSectionIsReusedOnlyWhereNothingChangedIt) {
  ScratchDir dir;
  const std::string top = dir.write("top.yaml", "include: " + good("minimal") + "\nseed: 5\n");
  const Scenario first = load_ok(top);
  ASSERT_EQ(first.failures.processes.size(), 1u);
  const double rate = first.failures.processes[0].rate_per_unit_s;
  for (int i = 0; i < 2; ++i) {
    const Scenario other = load_ok(top, {"cluster.domains=8", "layout.dp=4"});
    EXPECT_EQ(other.cluster.domains, 8);
    EXPECT_EQ(other.failures.processes[0].rate_per_unit_s, rate) << i;
    EXPECT_EQ(other.failures.processes[0].kinds[0].share, 0.8) << i;
  }
  const Scenario changed = load_ok(top, {"failures.processes[0].kinds[1].share=30%",
                                         "failures.processes[0].kinds[0].share=70%"});
  EXPECT_DOUBLE_EQ(changed.failures.processes[0].kinds[0].share, 0.7);
  // Spelled with spaces, the override still counts as one that changes the section.
  const Scenario spaced = load_ok(top, {" failures.processes[0].rate = 2e-4/h"});
  EXPECT_DOUBLE_EQ(spaced.failures.processes[0].rate_per_unit_s, 2 * rate);
  EXPECT_EQ(load_ok(top, {"cluster.domains=8", "layout.dp=4"}).failures.processes[0].kinds[0].share,
            0.8);
  // A burst the cluster cannot hold is refused on a load that reuses the section, as on the
  // first load.
  const std::string bursty = dir.write(
      "bursty.yaml", "include: " + good("minimal") +
                         "\nfailures:\n  processes:\n    - component: domain\n"
                         "      rate: \"1e-4/h\"\n      burst: {probability: 0.1, size: 6}\n"
                         "      kinds: [{name: hard, share: 1, repair: {mean: 2d}}]\n");
  EXPECT_EQ(load_ok(bursty, {"cluster.domains=8", "layout.dp=4"}).failures.processes[0].burst_size,
            6);
  const std::string e = load_error(bursty);
  EXPECT_NE(e.find("a burst of 6 exceeds the cluster's 5 units"), std::string::npos) << e;
  dir.write("top.yaml", "include: " + good("minimal") +
                            "\nseed: 5\nfailures:\n  processes:\n    - component: gpu\n"
                            "      rate: \"3e-4/h\"\n      kinds: [{name: hard, share: 1, "
                            "repair: {mean: 2d}}]\n");
  const Scenario edited = load_ok(top, {"cluster.domains=8", "layout.dp=4"});
  EXPECT_DOUBLE_EQ(edited.failures.processes[0].rate_per_unit_s, 3 * rate);
  EXPECT_EQ(edited.failures.processes[0].kinds.size(), 1u);
}

TEST(LoaderTest, ErrorsOfALoadAgainNameTheirFileLineAndColumn) {
  ScratchDir dir;
  const std::string base = dir.write(
      "base.yaml", "include: " + good("minimal") + "\nrecovery:\n  restart: \"10 min\"\n");
  const std::string top = dir.write("top.yaml", "include: base.yaml\nseed: 5\n");
  load_ok(top);  // kept
  // An override that makes a file's own value wrong, and a wrong override value: each message is
  // the one a first load gives, located where the value was written.
  const std::vector<std::string> bad_file_value{"cluster.gpus_per_domain=4"};
  const std::vector<std::string> bad_override{"recovery.restart=10 parsecs"};
  const std::string e1 = load_error(top, bad_override);
  EXPECT_NE(e1.find("--set recovery.restart=10 parsecs"), std::string::npos) << e1;
  EXPECT_EQ(load_error(top, bad_override), e1);
  const std::string e2 = load_error(top, bad_file_value);
  EXPECT_EQ(e2.rfind(good("minimal") + ":14:", 0), 0u) << e2;  // minimal's layout line
  EXPECT_EQ(load_error(top, bad_file_value), e2);
  dir.write("base.yaml",
            "include: " + good("minimal") + "\nrecovery:\n  restart: \"10 parsecs\"\n");
  EXPECT_EQ(load_error(top),
            base +
                ":3:12: recovery.restart: unknown duration unit \"parsecs\" in \"10 parsecs\" "
                "(use e.g. \"90s\", \"30min\", \"3h\", \"5d\", \"1y\")");
}

// Loads again with the same overrides reuse the nodes the first parsed (unmarked copies;
// tree.h, apply_override_reusing): the scenario is the same, and a message located at an
// override, or at a value of the base file, is the first load's, file, line and column included.
TEST(LoaderTest, OverridesAppliedAgainGiveTheFirstLoadsScenarioAndMessages) {
  ScratchDir dir;
  const std::string top = dir.write("top.yaml", "include: " + good("minimal") + "\nseed: 5\n");
  const std::vector<std::string> overrides{"cluster.domains=8",
                                           "layout.dp=4",
                                           "strategies=[ntp, {name: dp_drop}]",
                                           "strategies[1].keep_global_batch=false",
                                           "failures.processes[0].kinds[1].share=30%",
                                           "failures.processes[0].kinds[0].share=70%",
                                           "checkpoint.interval=2h"};
  const Scenario first = load_ok(top, overrides);
  for (int i = 0; i < 3; ++i) {
    const Scenario again = load_ok(top, overrides);
    EXPECT_EQ(to_yaml_text(again), to_yaml_text(first)) << i;
    EXPECT_EQ(scenario_hash(again), scenario_hash(first)) << i;
  }
  // A bad value given by an override: located at the override (line 1, its value's column).
  const std::vector<std::string> too_wide{"layout.tp=16"};
  const std::string e1 = load_error(top, too_wide);
  EXPECT_EQ(
      e1.rfind("--set layout.tp=16:1:1: layout.tp: TP 16 does not fit in a domain of 8 GPUs", 0),
      0u)
      << e1;
  // A bad value of the base file made wrong by an override: located in the base file.
  const std::vector<std::string> too_many{"cluster.gpus_per_domain=4"};
  const std::string e2 = load_error(top, too_many);
  EXPECT_EQ(e2.rfind(good("minimal") + ":14:", 0), 0u) << e2;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(load_error(top, too_wide), e1) << i;
    EXPECT_EQ(load_error(top, too_many), e2) << i;
    EXPECT_EQ(to_yaml_text(load_ok(top, overrides)), to_yaml_text(first)) << i;
  }
  // Among a candidate's many overrides, the one whose value is wrong is the one its message
  // names, and the message is the one a first load with only that override gives; likewise
  // when overrides nest (a list set whole, then one of its entries).
  const std::vector<std::string> many_one_wide{"cluster.domains=8", "layout.dp=4",
                                               "checkpoint.interval=2h", "layout.tp=16",
                                               "strategies=[ntp, {name: dp_drop}]"};
  const std::vector<std::string> nested_bad{"cluster.domains=8",
                                            "strategies=[ntp, {name: dp_drop}]",
                                            "strategies[1].keep_global_batch=perhaps"};
  const std::string e3 = load_error(top, nested_bad);
  EXPECT_NE(e3.find("--set strategies[1].keep_global_batch=perhaps"), std::string::npos) << e3;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(load_error(top, many_one_wide), e1) << i;
    EXPECT_EQ(load_error(top, nested_bad), e3) << i;
  }
  // An override written in a file (a plan's `overrides:`) keeps that file's line and column
  // however often it is applied.
  LoadOptions in_file;
  in_file.overrides = too_wide;
  in_file.override_locations = {SourceLocation{"plan.yaml", 7, 5}};
  for (int i = 0; i < 3; ++i) {
    auto s = load_scenario(top, in_file);
    ASSERT_FALSE(s.ok()) << i;
    EXPECT_EQ(s.error().message.rfind("plan.yaml:7:15: layout.tp: TP 16 does not fit", 0), 0u)
        << s.error().message;
  }
}

// A ScenarioLoader's every load is load_scenario's, scenario or message, whether it read the
// whole tree or only the checkpoint and strategies sections; and it reads only those where the
// overrides differ from its last full load's in them alone, with that load's files.
TEST(LoaderTest, AScenarioLoaderGivesLoadScenariosOutcome) {
  ScratchDir dir;
  const std::string top = dir.write("top.yaml", "include: " + good("minimal") + "\nseed: 5\n");
  using Overrides = std::vector<std::string>;
  const auto candidate = [](const Overrides& cluster, const std::string& interval,
                            const std::string& strategy) {
    Overrides o = cluster;
    o.push_back("checkpoint.interval=" + interval);
    o.push_back("strategies=[" + strategy + "]");
    o.push_back("layout.dp=2");
    return o;
  };
  const Overrides fits{"cluster.domains=8", "layout.tp=8"};
  const Overrides too_wide{"cluster.domains=8", "layout.tp=16"};      // after the sections
  const Overrides no_domains{"cluster.domains=0", "layout.tp=8"};     // before them
  const Overrides bad_recovery{"cluster.domains=8", "recovery.restart=10 parsecs"};  // between
  struct Step {
    Overrides overrides;
    bool reread;  // whether the loader reads the two sections alone
  };
  const std::vector<Step> steps{
      {candidate(fits, "2h", "ntp"), false},
      {candidate(fits, "30min", "dp_drop"), true},
      {candidate(fits, "auto", "{name: dp_drop, keep_global_batch: false}"), true},
      {candidate(fits, "10 parsecs", "ntp"), false},            // its own error, read in full
      {candidate(fits, "1h", "no_such_strategy"), false},       // likewise
      {candidate(fits, "1h", "ntp"), false},                    // the last load stopped there
      {candidate(fits, "3h", "checkpoint_restart"), true},
      {candidate(too_wide, "2h", "ntp"), false},
      {candidate(too_wide, "1h", "dp_drop"), true},             // the same error
      {candidate(too_wide, "10 parsecs", "ntp"), false},        // found first: the interval's
      {candidate(too_wide, "3h", "no_such_strategy"), false},
      {candidate(no_domains, "2h", "ntp"), false},
      {candidate(no_domains, "10 parsecs", "no_such_strategy"), true},  // found before both
      {candidate(bad_recovery, "2h", "ntp"), false},
      {candidate(bad_recovery, "1h", "no_such_strategy"), true},  // strategies come after
      {candidate(bad_recovery, "10 parsecs", "ntp"), false},
      {candidate(fits, "2h", "ntp"), false},
      {candidate({"cluster.domains=6", "layout.tp=8"}, "2h", "ntp"), false},  // another cluster
      // Spaced, the path still names the section; written into another field, it is read in full.
      {candidate({"cluster.domains=6", "layout.tp=8", " checkpoint.write = 2min"}, "2h", "ntp"),
       false},
      {candidate({"cluster.domains=6", "layout.tp=8", " checkpoint.write = 3min"}, "2h", "ntp"),
       true},
      {candidate({"cluster.domains=6", "layout.tp=8", "name=strategies"}, "2h", "ntp"), false},
  };
  ScenarioLoader loader;
  int64_t rereads = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    LoadOptions options;
    options.overrides = steps[i].overrides;
    const auto got = loader.load(top, options);
    const auto want = load_scenario(top, options);
    ASSERT_EQ(got.ok(), want.ok()) << i;
    if (want.ok()) {
      EXPECT_EQ(to_yaml_text(*got), to_yaml_text(*want)) << i;
      EXPECT_EQ(scenario_hash(*got), scenario_hash(*want)) << i;
    } else {
      EXPECT_EQ(got.error().message, want.error().message) << i;
    }
    rereads += steps[i].reread ? 1 : 0;
    EXPECT_EQ(loader.sections_reread(), rereads) << i;
  }
  // What the two sections read to is kept per list of their overrides: another cluster, and
  // another recovery profile (other checkpoint defaults), with the same intervals and
  // strategies. Each cluster's first load is a full one.
  for (const Overrides& cluster :
       {Overrides{"cluster.domains=7", "layout.tp=8"},
        Overrides{"cluster.domains=7", "layout.tp=8", "recovery.profile=conservative"},
        Overrides{"cluster.domains=6", "layout.tp=8"}}) {
    bool first = true;
    for (const std::string interval : {"2h", "30min", "auto"}) {
      for (const std::string strategy : {"ntp", "dp_drop"}) {
        LoadOptions options;
        options.overrides = candidate(cluster, interval, strategy);
        const auto got = loader.load(top, options);
        const auto want = load_scenario(top, options);
        ASSERT_TRUE(got.ok() && want.ok()) << interval << " " << strategy;
        EXPECT_EQ(to_yaml_text(*got), to_yaml_text(*want)) << interval << " " << strategy;
        rereads += first ? 0 : 1;
        first = false;
        EXPECT_EQ(loader.sections_reread(), rereads);
      }
    }
  }
  // A file changed since the last full load is read in full.
  const Overrides last = candidate(fits, "2h", "ntp");
  LoadOptions options;
  options.overrides = last;
  ASSERT_TRUE(loader.load(top, options).ok());
  dir.write("top.yaml", "include: " + good("minimal") + "\nseed: 9\n");
  options.overrides = candidate(fits, "1h", "ntp");
  const auto edited = loader.load(top, options);
  ASSERT_TRUE(edited.ok());
  EXPECT_EQ(edited->seed, 9u);
  EXPECT_EQ(loader.sections_reread(), rereads);
  EXPECT_EQ(loader.load(top, options)->checkpoint.interval_s, 3600.0);
  EXPECT_EQ(loader.sections_reread(), rereads + 1);
}

TEST(LoaderTest, ATraceLoadedAgainKeepsWhereItsFieldsWereWritten) {
  const Scenario first = load_ok(good("with_trace"));
  const Scenario again = load_ok(good("with_trace"));
  ASSERT_TRUE(first.failures.trace && again.failures.trace);
  ASSERT_FALSE(first.failures.trace->field_at.empty());
  for (const auto& [key, at] : first.failures.trace->field_at) {
    const auto it = again.failures.trace->field_at.find(key);
    ASSERT_NE(it, again.failures.trace->field_at.end()) << key;
    EXPECT_EQ(it->second.file, at.file) << key;
    EXPECT_EQ(it->second.line, at.line) << key;
    EXPECT_EQ(it->second.column, at.column) << key;
    EXPECT_GT(it->second.line, 0) << key;
  }
}

}  // namespace ntpsim::sim

// The process's mean rates have one home (FailureProcess): exactly round(fraction x units) lemons,
// as the failure source draws them, and bursts that take burst_size units.
TEST(FailureProcessRates, LemonsAreTheRoundedCountAndBurstsCountTheirUnits) {
  ntpsim::sim::FailureProcess p;
  p.rate_per_unit_s = 1e-6;
  p.lemon_fraction = 0.25;
  p.lemon_multiplier = 5.0;
  // 10 units: round(2.5) = 3 lemons, so (7 + 3 x 5) / 10 = 2.2 times the base rate (the
  // unrounded mixture would give 2.0).
  EXPECT_NEAR(p.mean_rate_per_unit_s(10), 2.2e-6, 1e-18);
  EXPECT_EQ(p.mean_rate_per_unit_s(0), 0.0);
  EXPECT_EQ(p.mean_units_per_event(), 1.0);
  p.burst_probability = 0.5;
  p.burst_size = 4;
  EXPECT_DOUBLE_EQ(p.mean_units_per_event(), 2.5);
}
