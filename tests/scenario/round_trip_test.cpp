// Every shipped scenario's resolved output (`ntpsim check`) loads again as the same scenario: the
// same printed text, the same hash and the same values bit for bit. Scenarios are found on disk
// (scenarios/ and its folders), so a new one is covered without editing this file; plan files are
// covered through their base scenario with the plan's overrides applied.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/planner/plan.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"
#include "test_util.h"

namespace ntpsim::sim {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;
using testing::source_path;

// Files under scenarios/ that are neither scenarios nor plans: pieces meant for `include:`.
const std::vector<std::string> kFragments = {"scenarios/failures/llama3.yaml"};

struct Case {
  std::string rel;                     // the file, relative to the source root
  std::vector<std::string> overrides;  // a plan's overrides (scenarios: none)
};

std::vector<Case> shipped_cases() {
  std::vector<Case> cases;
  const fs::path root(NTPSIM_SOURCE_DIR);
  for (const auto& e : fs::recursive_directory_iterator(root / "scenarios")) {
    if (!e.is_regular_file() || e.path().extension() != ".yaml") continue;
    const std::string rel = e.path().lexically_relative(root).generic_string();
    if (std::find(kFragments.begin(), kFragments.end(), rel) != kFragments.end()) continue;
    if (auto plan = read_plan(e.path().string()); plan.ok()) {
      cases.push_back(
          {fs::path(plan->base).lexically_normal().lexically_relative(root).generic_string(),
           plan->overrides});
    } else {
      cases.push_back({rel, {}});
    }
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) {
    return a.rel != b.rel ? a.rel < b.rel : a.overrides < b.overrides;
  });
  return cases;
}

// Writes `text` where a file at `rel` (relative to the source root) would be, inside a mirror of
// the source root under `dir`, so that relative paths in it (trace files, which resolved output
// prints relative to the scenario's folder) reach the same files: the mirror's ../shared is a link
// to the source root's.
std::string write_mirrored(const ScratchDir& dir, const std::string& rel, const std::string& text) {
  const fs::path mirror = dir.path() / "root";
  const fs::path target =
      mirror / fs::path(rel).parent_path() / ("reloaded-" + fs::path(rel).filename().string());
  fs::create_directories(target.parent_path());
  const fs::path shared = fs::path(NTPSIM_SOURCE_DIR) / ".." / "shared";
  if (fs::exists(shared) && !fs::exists(dir.path() / "shared")) {
    fs::create_directory_symlink(fs::canonical(shared), dir.path() / "shared");
  }
  return dir.write(target.lexically_relative(dir.path()).string(), text);
}

TEST(RoundTrip, EveryShippedScenarioReloadsToTheSameScenario) {
  // Relative to the source root, as a user runs `ntpsim check scenarios/...`.
  fs::current_path(NTPSIM_SOURCE_DIR);
  const std::vector<Case> cases = shipped_cases();
  // scenarios/*.yaml (4), scenarios/paper/*.yaml (4) and the plans' bases (3) at least.
  ASSERT_GE(cases.size(), 11u);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.rel + (c.overrides.empty() ? "" : " with a plan's overrides"));
    ScratchDir dir;
    auto s = load_scenario(c.rel, c.overrides);
    ASSERT_TRUE(s.ok()) << s.error().message;
    const std::string text = to_yaml_text(*s);
    const std::string file = write_mirrored(dir, c.rel, text);
    auto again = load_scenario(file);
    ASSERT_TRUE(again.ok()) << again.error().message << "\n" << text;
    EXPECT_EQ(to_yaml_text(*again), text);
    EXPECT_EQ(scenario_hash(*again), scenario_hash(*s));
    // The check output as a whole (its comment lines are computed from the values) too.
    EXPECT_EQ(check_text(*again), check_text(*s));
  }
}

// Values that the short unit forms would round ("5.60948e+08us") reload bit for bit.
TEST(RoundTrip, ValuesNeedingAllTheirDigitsReloadExactly) {
  fs::current_path(NTPSIM_SOURCE_DIR);
  const std::string rel = "scenarios/quickstart.yaml";
  auto s = load_scenario(
      rel, {"checkpoint.interval=560.9481234567891s", "checkpoint.write=1.2345678901ms",
            "horizon=30.123456789012d", "failures.processes[0].rate=1.234567890123e-5/h",
            "failures.processes[0].kinds[0].share=0.7812345678901",
            "failures.processes[0].kinds[1].share=0.2187654321099", "recovery.detection=0.1s",
            "seed=9007199254740993"});
  ASSERT_TRUE(s.ok()) << s.error().message;
  ScratchDir dir;
  const std::string text = to_yaml_text(*s);
  EXPECT_EQ(text.find("e+08us"), std::string::npos) << text;
  auto again = load_scenario(write_mirrored(dir, rel, text));
  ASSERT_TRUE(again.ok()) << again.error().message << "\n" << text;
  EXPECT_EQ(again->checkpoint.interval_s, s->checkpoint.interval_s);
  EXPECT_EQ(again->checkpoint.write_s, s->checkpoint.write_s);
  EXPECT_EQ(again->horizon_s, s->horizon_s);
  EXPECT_EQ(again->recovery.detection_s, s->recovery.detection_s);
  EXPECT_EQ(again->seed, s->seed);
  const auto& p = s->failures.processes.at(0);
  const auto& q = again->failures.processes.at(0);
  EXPECT_EQ(q.rate_per_unit_s, p.rate_per_unit_s);
  EXPECT_EQ(q.kinds.at(0).share, p.kinds.at(0).share);
  EXPECT_EQ(q.kinds.at(1).share, p.kinds.at(1).share);
  EXPECT_EQ(to_yaml_text(*again), text);
  EXPECT_EQ(scenario_hash(*again), scenario_hash(*s));
}

}  // namespace
}  // namespace ntpsim::sim
