// Robustness of `ntpsim run|sweep|trace` as a user meets it (the built binary NTPSIM_BIN): each
// error path's message and exit code (2 bad input, 1 runtime), and SIGINT/SIGTERM mid-run: exit 1,
// an "interrupted" message saying what finished, and no output file (nor temporary) left behind.
// The interruption tests wait 2 s before signalling a run of 100,000 replications (minutes of
// work), so the signal always lands mid-run; they then allow 120 s for the clean stop.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_harness.h"

namespace {

namespace fs = std::filesystem;

using ntpsim::cli_test::CliTest;
using ntpsim::cli_test::read_text;
using Outcome = ntpsim::cli_test::RunResult;

const std::string kQuick = NTPSIM_SOURCE_DIR "/scenarios/quickstart.yaml";

class RobustCli : public CliTest {
 protected:
  RobustCli() : CliTest("robust") {}
};

// ---- run -----------------------------------------------------------------------------------

TEST_F(RobustCli, RunMissingScenarioIsBadInput) {
  const Outcome o = run("run no-such.yaml -q");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("no-such.yaml: no such file"), std::string::npos) << o.err;
}

TEST_F(RobustCli, RunUnknownOverrideIsBadInputWithFieldPath) {
  const Outcome o = run("run '" + kQuick + "' --set cluster.domainz=3 -q");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("cluster.domainz: unknown key (did you mean \"domains\"?)"),
            std::string::npos)
      << o.err;
}

TEST_F(RobustCli, RunOutOfRangeReplicationsIsBadInput) {
  const Outcome o = run("run '" + kQuick + "' --replications 0 -q");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--replications: Value 0 not in range 1 to 1000000"), std::string::npos)
      << o.err;
}

TEST_F(RobustCli, RunUnwritableOutputIsRuntimeErrorAndWritesNothing) {
  const Outcome o = run("run '" + kQuick + "' --replications 2 --threads 1 -q --out missing/r.json");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("missing/r.json: cannot create the output file: No such file or directory"),
            std::string::npos)
      << o.err;
  EXPECT_TRUE(work_is_empty());
}

TEST_F(RobustCli, RunFailedCsvRemovesTheJsonWrittenBeforeIt) {
  const Outcome o =
      run("run '" + kQuick + "' --replications 2 --threads 1 -q --out r.json --csv missing/r.csv");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("missing/r.csv: cannot create the output file"), std::string::npos) << o.err;
  EXPECT_TRUE(work_is_empty());
}

TEST_F(RobustCli, RunInterruptedBySigintWritesNothingAndSaysWhatFinished) {
  const Outcome o = interrupt({"run", kQuick, "--replications", "100000", "--threads", "2", "-q",
                               "--out", "r.json", "--csv", "r.csv"},
                              SIGINT);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("interrupted: "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find(" of 100000 replications finished; no output file written"),
            std::string::npos)
      << o.err;
  EXPECT_TRUE(work_is_empty());
}

// ---- sweep ---------------------------------------------------------------------------------

TEST_F(RobustCli, SweepWithoutVaryIsBadInput) {
  const Outcome o = run("sweep '" + kQuick + "' -q");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--vary is required"), std::string::npos) << o.err;
}

TEST_F(RobustCli, SweepMalformedVaryIsBadInput) {
  const Outcome o = run("sweep '" + kQuick + "' --vary seed -q");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--vary 'seed': expected path=v1,v2,... or path=start:stop:step"),
            std::string::npos)
      << o.err;
}

TEST_F(RobustCli, SweepInterruptedBySigtermWritesNothingAndSaysWhatFinished) {
  const Outcome o = interrupt({"sweep", kQuick, "--vary", "seed=1,2,3", "--replications",
                               "100000", "--threads", "2", "-q", "--out", "s.json"},
                              SIGTERM);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("0 of 3 sweep points finished; the point being run: interrupted: "),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("no output file written (with --resume FILE finished points survive an "
                       "interruption)"),
            std::string::npos)
      << o.err;
  EXPECT_TRUE(work_is_empty());
}

// ---- trace ---------------------------------------------------------------------------------

TEST_F(RobustCli, TraceUnknownExtensionIsBadInput) {
  std::ofstream(work() / "t.txt") << "x\n";
  const Outcome o = run("trace t.txt");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("t.txt: cannot tell the format from the extension; pass --format"),
            std::string::npos)
      << o.err;
}

}  // namespace
