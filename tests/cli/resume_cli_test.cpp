// `ntpsim sweep --resume FILE` as a user meets it (the built binary NTPSIM_BIN): a sweep stopped
// by SIGINT keeps its finished points in FILE and writes no output; the same command run again
// continues from FILE and writes results byte-identical to an uninterrupted sweep, then removes
// FILE. Also the refusals: a foreign file, the progress file of another sweep.
//
// The sweep has a cheap first point (10 days) and an expensive second one (3 years: 1 s on one
// thread even in a release build), and the signal is sent as soon as the first point's record is
// in FILE, so it lands while the second point runs.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_harness.h"

namespace {

namespace fs = std::filesystem;
using ntpsim::cli_test::CliTest;
using ntpsim::cli_test::read_text;
using Outcome = ntpsim::cli_test::RunResult;

const std::string kQuick = NTPSIM_SOURCE_DIR "/scenarios/quickstart.yaml";

class ResumeCli : public CliTest {
 protected:
  ResumeCli() : CliTest("resume") {}

  // Lines in the progress file (header + one per finished point), 0 when absent.
  size_t progress_lines(const std::string& name) const {
    const std::string text = read_text(work() / name);
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  }

  static std::vector<std::string> sweep_args(const std::string& out) {
    return {"sweep", kQuick, "--vary", "horizon=10d,3y", "--replications", "20",
            "--threads", "1", "-q", "--out", out};
  }
  static std::string words(const std::vector<std::string>& args) {
    std::string s;
    for (const auto& a : args) s += "'" + a + "' ";
    return s;
  }
};

TEST_F(ResumeCli, InterruptedSweepResumesToIdenticalResults) {
  auto args = sweep_args("resumed.json");
  args.insert(args.end(), {"--resume", "sweep.progress"});
  const Outcome stopped =
      interrupt_when(args, SIGINT, [this] { return progress_lines("sweep.progress") >= 2; });
  EXPECT_EQ(stopped.exit_code, 1) << stopped.err;
  EXPECT_NE(stopped.err.find("1 of 2 sweep points finished"), std::string::npos) << stopped.err;
  EXPECT_NE(stopped.err.find("no output file written; the finished points are kept in "
                             "sweep.progress: run the same command again to continue"),
            std::string::npos)
      << stopped.err;
  EXPECT_FALSE(fs::exists(work() / "resumed.json"));
  EXPECT_EQ(progress_lines("sweep.progress"), 2u);
  const std::string kept = read_text(work() / "sweep.progress");

  // Another sweep (a different seed) refuses the file, names the field, and leaves it alone.
  const Outcome other = run(words(args) + " --seed 6");
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("sweep.progress: the progress file belongs to a different run "
                           "(identity.overrides is [] there, [\"seed=6\"] here)"),
            std::string::npos)
      << other.err;
  EXPECT_EQ(read_text(work() / "sweep.progress"), kept);

  // The same command again: continues (point 0 from the file), writes, removes the file.
  const Outcome resumed = run(words(args));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_FALSE(fs::exists(work() / "sweep.progress"));

  const Outcome whole = run(words(sweep_args("whole.json")));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const std::string a = read_text(work() / "resumed.json");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, read_text(work() / "whole.json")) << "a resumed sweep must match a whole one";
}

#ifdef NTPSIM_MPIEXEC
// Resumed under `mpirun -np 2`: rank 0 reads the file and sends it to rank 1, both take point 0
// from it, and the output equals the whole single-process sweep.
TEST_F(ResumeCli, ResumesUnderMpirunToIdenticalResults) {
  auto args = sweep_args("resumed.json");
  args.insert(args.end(), {"--resume", "sweep.progress"});
  const Outcome stopped =
      interrupt_when(args, SIGINT, [this] { return progress_lines("sweep.progress") >= 2; });
  ASSERT_EQ(stopped.exit_code, 1) << stopped.err;
  ASSERT_EQ(progress_lines("sweep.progress"), 2u);
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  setenv("ASAN_OPTIONS", "detect_leaks=0", 1);  // OpenMPI's allocations live until exit
  const std::string mpi = std::string("'" NTPSIM_MPIEXEC "' --allow-run-as-root --oversubscribe -np 2 '") +
                          NTPSIM_BIN + "' ";
  args.erase(std::find(args.begin(), args.end(), "-q"));  // to see the "resuming" line
  const Outcome resumed = run_command(mpi + words(args));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming: 1 finished point recorded in sweep.progress"),
            std::string::npos)
      << resumed.err;
  EXPECT_FALSE(fs::exists(work() / "sweep.progress"));
  const Outcome whole = run(words(sweep_args("whole.json")));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_EQ(read_text(work() / "resumed.json"), read_text(work() / "whole.json"));
}
#endif

TEST_F(ResumeCli, AForeignFileIsRefusedAndLeftAlone) {
  std::ofstream(work() / "notes.txt") << "my notes\n";
  auto args = sweep_args("r.json");
  args.insert(args.end(), {"--resume", "notes.txt"});
  const Outcome o = run(words(args));
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("notes.txt:1: not an ntpsim progress file"), std::string::npos) << o.err;
  EXPECT_EQ(read_text(work() / "notes.txt"), "my notes\n");
  EXPECT_FALSE(fs::exists(work() / "r.json"));
}

TEST_F(ResumeCli, BadInputLeavesNoProgressFileBehind) {
  const Outcome o = run(words({"sweep", kQuick, "--vary", "cluster.spare_domains=1,-3",
                               "--replications", "2", "-q", "--resume", "p.progress"}));
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("cluster.spare_domains"), std::string::npos) << o.err;
  EXPECT_TRUE(work_is_empty());
}

}  // namespace
