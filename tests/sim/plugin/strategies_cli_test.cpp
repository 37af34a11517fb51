// `ntpsim strategies` lists a strategy added as one file: NTPSIM_BIN is ntpsim's own main and
// `strategies` command linked with test_strategy.cpp and nothing else changed.
#include <gtest/gtest.h>

#include <string>

#include "tests/cli/cli_harness.h"

namespace ntpsim::cli_test {
namespace {

class StrategiesCli : public CliTest {
 protected:
  StrategiesCli() : CliTest("strategies_plugin") {}
};

TEST_F(StrategiesCli, ListsTheTestStrategyWithItsParameters) {
  const RunResult r = run("strategies");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t builtin = r.out.find("\nntp_power_boost\n");
  const size_t added = r.out.find("\ntest_whole_or_stall\n");
  ASSERT_NE(builtin, std::string::npos) << r.out;
  ASSERT_NE(added, std::string::npos) << r.out;
  EXPECT_LT(builtin, added);  // after the built-in strategies
  EXPECT_NE(r.out.find("screened_goodput"), std::string::npos);
  // spare_substitution's fallback choices come from the registry, the test strategy included.
  EXPECT_NE(r.out.find("checkpoint_restart|dp_drop|ntp|test_whole_or_stall"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace ntpsim::cli_test
