// Golden tests: the SVG charts, the Markdown report and the CSV export of the small fixture must
// match tests/reports/golden/ byte for byte. After an intended change, regenerate with
//   NTPSIM_UPDATE_GOLDENS=1 build/<name>/tests/reports/test_reports --gtest_filter='Golden.*'
// and review the diff (tests/reports/golden/README.md).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "reports/content.h"
#include "reports/report.h"
#include "tests/reports/fixture.h"

namespace ntpsim::reports {
namespace {

std::string golden_path(const std::string& name) {
  return std::string(NTPSIM_SOURCE_DIR) + "/tests/reports/golden/" + name;
}

void expect_golden(const std::string& name, const std::string& actual) {
  const char* update = std::getenv("NTPSIM_UPDATE_GOLDENS");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(golden_path(name), std::ios::binary) << actual;
    GTEST_SKIP() << "regenerated " << name;
  }
  std::ifstream in(golden_path(name), std::ios::binary);
  ASSERT_TRUE(in) << "missing golden " << golden_path(name);
  std::stringstream expected;
  expected << in.rdbuf();
  // Report the first differing line, not two whole documents.
  std::istringstream a(actual), e(expected.str());
  std::string la, le;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_e = static_cast<bool>(std::getline(e, le));
    if (!more_a && !more_e) break;
    ASSERT_EQ(la, le) << name << ":" << line << " differs from the golden";
  }
  EXPECT_EQ(actual, expected.str());
}

class Golden : public ::testing::Test {
 protected:
  Results results_ = testing::small_results();
};

TEST_F(Golden, GoodputSvg) {
  expect_golden("goodput.svg", goodput_chart(results_).svg);
}
TEST_F(Golden, BadputSvg) {
  expect_golden("badput.svg", badput_chart(results_).svg);
}
TEST_F(Golden, PairedSvg) {
  expect_golden("paired.svg", paired_chart(results_).svg);
}
TEST_F(Golden, DistributionSvg) {
  expect_golden("distribution.svg", distribution_chart(results_).svg);
}
TEST_F(Golden, TimelineSvg) {
  expect_golden("timeline.svg", timeline_chart(results_).svg);
}
TEST_F(Golden, SweepSvg) {
  auto sweep = load_results(testing::fixture_path("sweep.json"));
  ASSERT_TRUE(sweep.ok()) << sweep.error().message;
  expect_golden("sweep.svg", sweep_chart(*sweep).svg);
}
TEST_F(Golden, Markdown) {
  expect_golden("small.md", render_markdown(results_, "small"));
}
TEST_F(Golden, Csv) {
  expect_golden("small.csv", render_csv(results_));
}
TEST_F(Golden, SweepCsv) {
  auto sweep = load_results(testing::fixture_path("sweep.json"));
  ASSERT_TRUE(sweep.ok()) << sweep.error().message;
  expect_golden("sweep.csv", render_csv(*sweep));
}

}  // namespace
}  // namespace ntpsim::reports
