// A strategy added as one file (test_strategy.cpp, linked only into this test) is seen by the
// registry, the scenario reader, the factory, the engine and the planner's screen, and serves as
// a fallback of spare_substitution, with no edit elsewhere. `ntpsim strategies` is checked by
// strategies_cli_test.cpp against a copy of ntpsim that links the same file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/base/units.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/planner/screen.h"
#include "sim/scenario/loader.h"
#include "sim/strategies/plugin.h"
#include "sim/strategies/registry.h"
#include "tests/fixtures/tiny_job.h"

namespace ntpsim::sim {
namespace {

namespace fs = std::filesystem;

Scenario load_tiny(const std::string& strategies_yaml, const std::string& name) {
  const fs::path dir = fs::path(NTPSIM_BINARY_DIR) / "test-scratch" / "strategy_plugin";
  fs::create_directories(dir);
  const fs::path file = dir / (name + ".yaml");
  std::string text = test_fixtures::kTinyJob;
  // The fixture ends with its strategies line; replace it.
  text = text.substr(0, text.find("strategies:")) + strategies_yaml +
         "\nhorizon: \"5d\"\nreplications: 4\nseed: 3\n";
  std::ofstream(file) << text;
  auto s = load_scenario(file.string());
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.ok() ? *s : Scenario{};
}

TEST(StrategyPlugin, RegistryListsTheTestStrategyAfterTheBuiltInOnes) {
  std::vector<std::string> names;
  for (const auto& s : strategy_registry()) names.push_back(s.name);
  const std::vector<std::string> expected = {
      "checkpoint_restart", "dp_drop",         "spare_substitution",          "ntp",
      "ntp_power_boost",    "spares_then_ntp", "spares_then_ntp_power_boost", "test_whole_or_stall"};
  EXPECT_EQ(names, expected);
  const StrategyInfo* info = find_strategy("test_whole_or_stall");
  ASSERT_NE(info, nullptr);
  // Its own parameter, then the resume parameters every strategy has (registry.h).
  ASSERT_EQ(info->params.size(), 4u);
  EXPECT_EQ(info->params[0].name, "screened_goodput");
  EXPECT_EQ(info->params[1].name, "resume");
  EXPECT_EQ(info->params[1].default_text, "in_place");
  EXPECT_EQ(info->params[2].name, "state_copy");
  EXPECT_EQ(info->params[3].name, "allow_lost_state");
  const StrategyPlugin* plugin = find_strategy_plugin("test_whole_or_stall");
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(plugin->info.name, "test_whole_or_stall");
  EXPECT_TRUE(plugin->serves_as_fallback);
  EXPECT_EQ(find_strategy_plugin("no_such_strategy"), nullptr);
}

TEST(StrategyPlugin, FallbackChoicesComeFromTheRegistry) {
  const StrategyInfo* ss = find_strategy("spare_substitution");
  ASSERT_NE(ss, nullptr);
  const ParamSpec* fallback = nullptr;
  for (const auto& p : ss->params) {
    if (p.name == "fallback") fallback = &p;
  }
  ASSERT_NE(fallback, nullptr);
  const std::vector<std::string> expected = {"checkpoint_restart", "dp_drop", "ntp",
                                             "test_whole_or_stall"};
  EXPECT_EQ(fallback->choices, expected);
}

TEST(StrategyPlugin, ScenarioReaderEngineAndScreenUseIt) {
  const Scenario s = load_tiny(
      "strategies: [{name: test_whole_or_stall, screened_goodput: \"65%\"}, "
      "{name: spare_substitution, label: spares_then_test, fallback: test_whole_or_stall}]",
      "engine");
  ASSERT_EQ(s.strategies.size(), 2u);
  EXPECT_DOUBLE_EQ(std::get<double>(s.strategies[0].params.at("screened_goodput")), 0.65);

  RunOptions o;
  o.threads = 1;
  o.timeline = false;
  auto r = run_monte_carlo(s, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->strategies.size(), 2u);
  for (const auto& run : r->strategies) {
    for (const auto& m : run.replications) {
      // Engine invariant: goodput and the badput parts sum to 1.
      double sum = 0;
      for (Metric k : {Metric::kGoodput, Metric::kBadputCheckpoint, Metric::kBadputRollback,
                       Metric::kBadputRecovery, Metric::kBadputStall, Metric::kBadputDegraded,
                       Metric::kBadputReshard}) {
        sum += at(m, k);
      }
      EXPECT_NEAR(sum, 1.0, 1e-9) << run.label;
      EXPECT_GT(at(m, Metric::kGoodput), 0.0) << run.label;
      EXPECT_GT(at(m, Metric::kInterruptions), 0.0) << run.label;  // 2e-3/h x 32 GPUs x 5 d
    }
  }

  // The planner's screen asks the strategy's own hook: goodput = 65% x the checkpoint factor.
  Scenario one = s;
  one.strategies.resize(1);
  auto screen = screen_candidate(one);
  ASSERT_TRUE(screen.ok()) << screen.error().message;
  EXPECT_NEAR(screen->goodput_expected, 0.65 * screen->goodput_bound, 1e-15);
}

TEST(StrategyPlugin, ScreenRefusesAnUnregisteredStrategy) {
  Scenario s = load_tiny("strategies: [checkpoint_restart]", "unknown");
  s.strategies.front().name = "no_such_strategy";
  auto screen = screen_candidate(s);
  ASSERT_FALSE(screen.ok());
  EXPECT_NE(screen.error().message.find("unknown strategy 'no_such_strategy'"),
            std::string::npos)
      << screen.error().message;
}

}  // namespace
}  // namespace ntpsim::sim
