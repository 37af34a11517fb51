// RunOptions::cancel (sim/montecarlo/montecarlo.h): a set flag stops the Monte Carlo loop between
// replications and the run or sweep fails with a runtime error saying what finished. The flag is
// set from a worker thread (the progress callback), which the tsan preset checks for races.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "sim/montecarlo/montecarlo.h"
#include "sim/montecarlo/sweep.h"
#include "sim/scenario/loader.h"

namespace ntpsim::sim {
namespace {

const std::string kQuick = NTPSIM_SOURCE_DIR "/scenarios/quickstart.yaml";

TEST(Cancel, FlagSetBeforeTheRunStartsNoReplication) {
  auto s = load_scenario(kQuick, std::vector<std::string>{});
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::atomic<bool> cancel{true};
  RunOptions o;
  o.replications = 16;
  o.threads = 2;
  o.cancel = &cancel;
  auto r = run_monte_carlo(*s, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, ExitCode::kRuntime);
  EXPECT_EQ(r.error().message, "interrupted: 0 of 16 replications finished");
}

TEST(Cancel, FlagSetMidRunFromAWorkerStopsBetweenReplications) {
  auto s = load_scenario(kQuick, std::vector<std::string>{});
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::atomic<bool> cancel{false};
  RunOptions o;
  o.replications = 400;
  o.threads = 4;
  o.cancel = &cancel;
  o.progress = [&cancel](int done, int /*total*/) {
    if (done >= 3) cancel.store(true);
  };
  auto r = run_monte_carlo(*s, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, ExitCode::kRuntime);
  const std::string& m = r.error().message;
  ASSERT_EQ(m.rfind("interrupted: ", 0), 0u) << m;
  const int finished = std::stoi(m.substr(13));
  EXPECT_GE(finished, 3);
  EXPECT_LE(finished, 3 + 4);  // at most one more per worker after the flag is seen
  EXPECT_NE(m.find(" of 400 replications finished"), std::string::npos) << m;
}

TEST(Cancel, SweepSaysHowManyPointsFinished) {
  std::atomic<bool> cancel{true};
  RunOptions o;
  o.replications = 4;
  o.threads = 2;
  o.cancel = &cancel;
  auto v = parse_vary("seed=1,2");
  ASSERT_TRUE(v.ok());
  auto r = run_sweep(kQuick, {}, {*v}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, ExitCode::kRuntime);
  EXPECT_EQ(r.error().message,
            "0 of 2 sweep points finished; the point being run: interrupted: 0 of 4 replications "
            "finished");
}

}  // namespace
}  // namespace ntpsim::sim
