// Golden tests: `ntpsim check` output (check_text) of every shipped scenario is pinned in
// tests/scenario/golden/<name>.txt.
//
// To regenerate after an intended change (review the diff before committing):
//   NTPSIM_UPDATE_GOLDEN=1 build/<dir>/tests/scenario/test_scenario --gtest_filter='*Golden*'
// or, equivalently, for one scenario from the source root:
//   build/<dir>/tools/ntpsim check scenarios/<name>.yaml > tests/scenario/golden/<name>.txt
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"
#include "test_util.h"

namespace ntpsim::sim {
namespace {

const std::vector<std::string> kShipped = {"hgx-h100-16k", "ntp-paper-b200-nvl32", "quickstart",
                                           "stepfun-trace-h100"};

std::string read_text(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, CheckOutputMatchesGolden) {
  // Relative to the source root, as a user runs it, so the text has no machine-specific path.
  std::filesystem::current_path(NTPSIM_SOURCE_DIR);
  auto s = load_scenario("scenarios/" + GetParam() + ".yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  const std::string text = check_text(*s);
  const std::string golden = testing::source_path("tests/scenario/golden/" + GetParam() + ".txt");
  if (const char* update = std::getenv("NTPSIM_UPDATE_GOLDEN"); update && *update == '1') {
    std::ofstream(golden, std::ios::binary) << text;
  }
  EXPECT_EQ(text, read_text(golden)) << "regenerate with NTPSIM_UPDATE_GOLDEN=1 (see this file)";
}

INSTANTIATE_TEST_SUITE_P(Shipped, GoldenTest, ::testing::ValuesIn(kShipped), [](const auto& p) {
  std::string n = p.param;
  for (auto& c : n) c = (c == '-') ? '_' : c;
  return n;
});

TEST(GoldenSuite, EveryShippedScenarioHasAGolden) {
  std::set<std::string> on_disk;
  for (const auto& e : std::filesystem::directory_iterator(testing::source_path("scenarios"))) {
    if (e.path().extension() == ".yaml") on_disk.insert(e.path().stem().string());
  }
  EXPECT_EQ(on_disk, std::set<std::string>(kShipped.begin(), kShipped.end()));
}

}  // namespace
}  // namespace ntpsim::sim
