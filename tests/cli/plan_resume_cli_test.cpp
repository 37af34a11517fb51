// `ntpsim plan --resume FILE` as a user meets it (the built binary NTPSIM_BIN): SIGINT mid-plan
// exits 1, writes no output file and keeps the finished finalist confirmations in FILE; the same
// command run again finishes with --out / --csv files byte-identical to a run without --resume
// and removes FILE; a rerun with another seed is bad input naming the field; without --resume the
// interruption message points at --resume.
// The plan has three finalists of 8192 replications each (about 0.1 s apiece on one thread in a
// release build); the signal is sent as soon as the first confirmation is in FILE, so it lands
// while a later finalist runs. The SIGTERM test interrupts the 405B example plan (seconds of
// work in a release build) after its first finalist line.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_harness.h"
#include "tests/fixtures/tiny_job.h"

namespace {

namespace fs = std::filesystem;

using ntpsim::cli_test::CliTest;
using ntpsim::cli_test::read_text;
using Outcome = ntpsim::cli_test::RunResult;

const std::string kBase =
    std::string("name: resume-cli-base\n") + ntpsim::test_fixtures::kTinyJob +
    "train: {tokens: \"6e10\"}\n" "seed: 7\n";

// One finalist per family: three Monte Carlo confirmations.
constexpr const char* kPlan = R"(base: base.yaml
search:
  domains: [3, 4, 5, 6]
  spare_domains: [0, 1]
  dp: derive
  strategies: [checkpoint_restart, dp_drop, ntp]
target: {tokens: "6e10", deadline: "3d", confidence: 90%}
prices: {gpu_hour: 2.0, energy_per_mwh: 100}
confirm: {min_replications: 8192, max_replications: 8192, max_finalists: 1}
)";

class PlanResumeCli : public CliTest {
 protected:
  PlanResumeCli() : CliTest("planres") {}

  void SetUp() override {
    CliTest::SetUp();
    fs::create_directories(dir_ / "in");
    std::ofstream(dir_ / "in" / "base.yaml") << kBase;
    std::ofstream(dir_ / "in" / "plan.yaml") << kPlan;
  }

  std::string plan() const { return (dir_ / "in" / "plan.yaml").string(); }

  // Lines in work()/name (0 when it does not exist).
  size_t lines(const std::string& name) const {
    const std::string text = read_text(work() / name);
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  }

  std::vector<std::string> work_files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(work())) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }
};

TEST_F(PlanResumeCli, SigintKeepsFinishedConfirmationsAndRerunFinishesWithIdenticalOutput) {
  // The header and one record: a finalist has finished.
  const Outcome cut = interrupt_when({"plan", plan(), "--threads", "1", "-q", "--out", "p.json",
                                      "--csv", "p.csv", "--resume", "plan.progress"},
                                     SIGINT, [this] { return lines("plan.progress") >= 2; });
  EXPECT_EQ(cut.exit_code, 1) << cut.err;
  EXPECT_NE(cut.err.find("interrupted after "), std::string::npos) << cut.err;
  EXPECT_NE(cut.err.find("; no output file written; the finished confirmations are kept in "
                         "plan.progress: run the same command again to continue"),
            std::string::npos)
      << cut.err;
  EXPECT_EQ(work_files(), std::vector<std::string>{"plan.progress"});
  const size_t kept = lines("plan.progress") - 1;
  EXPECT_GE(kept, 1u);

  // Another seed is another run: refused, and the progress file is left as it was.
  const std::string before = read_text(work() / "plan.progress");
  const Outcome other = run("plan '" + plan() + "' -q --seed 8 --resume plan.progress");
  EXPECT_EQ(other.exit_code, 2) << other.err;
  EXPECT_NE(other.err.find("identity.seed is 7 there, 8 here"), std::string::npos) << other.err;
  EXPECT_EQ(read_text(work() / "plan.progress"), before);

  const Outcome resumed =
      run("plan '" + plan() + "' -v --threads 2 --out p.json --csv p.csv --resume plan.progress");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(
      resumed.err.find("ntpsim plan: resuming: " + std::to_string(kept) + " finished confirmation"),
      std::string::npos)
      << resumed.err;
  EXPECT_NE(resumed.err.find("(recorded in the progress file)"), std::string::npos) << resumed.err;
  EXPECT_FALSE(fs::exists(work() / "plan.progress"));

  // The same command without --resume (and one thread): the same bytes, table included.
  const Outcome plain = run("plan '" + plan() + "' --threads 1 --out ref.json --csv ref.csv");
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(read_text(work() / "p.json"), read_text(work() / "ref.json"));
  EXPECT_EQ(read_text(work() / "p.csv"), read_text(work() / "ref.csv"));
  EXPECT_EQ(resumed.out, plain.out);
  EXPECT_NE(plain.out.find("Recommended: "), std::string::npos) << plain.out;
  // The pick's failure-free rate per GPU, also on resume (the screen is rerun, not recorded).
  EXPECT_NE(plain.out.find(" tokens/s/GPU failure-free)\n"), std::string::npos) << plain.out;
}

TEST_F(PlanResumeCli, SigtermWithoutResumeWritesNothingAndPointsAtResume) {
  const std::string err = (dir_ / "err.txt").string();
  const Outcome cut = interrupt_when(
      {"plan", NTPSIM_SOURCE_DIR "/scenarios/plans/405b-15t-60d.yaml", "--threads", "1", "--out",
       "p.json", "-v"},  // -v: a line per finished finalist, the signal's cue
      SIGTERM, [&] { return read_text(err).find("ntpsim plan: ") != std::string::npos; });
  EXPECT_EQ(cut.exit_code, 1) << cut.err;
  EXPECT_NE(cut.err.find("interrupted after "), std::string::npos) << cut.err;
  EXPECT_NE(cut.err.find("; no output file written (with --resume FILE finished confirmations "
                         "survive an interruption)"),
            std::string::npos)
      << cut.err;
  EXPECT_TRUE(work_is_empty());
}

TEST_F(PlanResumeCli, UncreatableProgressFileIsRuntimeErrorBeforeAnyWork) {
  const Outcome o = run("plan '" + plan() + "' -q --out p.json --resume missing/plan.progress");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_NE(o.err.find("missing/plan.progress: "), std::string::npos) << o.err;
  EXPECT_TRUE(work_is_empty());
}

}  // namespace
