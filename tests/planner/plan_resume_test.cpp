// Resuming a plan from its progress file (`ntpsim plan --resume`, sim/planner/planner.h
// PlanResume, sim/io/progress.h): a plan interrupted after K finalist confirmations and then
// resumed gives the same bytes (plan JSON and CSV) as one uninterrupted run, for a time-to-train
// and a goodput target; a progress file of another run (different seed) or a recorded
// confirmation that does not fit the plan is bad input naming the field.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "sim/io/progress.h"
#include "sim/planner/plan.h"
#include "sim/planner/plan_output.h"
#include "sim/planner/plan_progress.h"
#include "sim/planner/planner.h"
#include "tests/fixtures/tiny_job.h"

namespace ntpsim::sim {
namespace {

namespace fs = std::filesystem;

// The 32-GPU-class job of planner_test.cpp (Llama 3 8B on HGX H100 domains of 8, a high failure
// rate), so that a plan of 24 candidates confirms several finalists in well under a second.
const std::string kBase =
    std::string("name: resume-plan-base\n") + test_fixtures::kTinyJob +
    "seed: 7\n";

// Doubling batches (8 up to 64 replications), so a finalist may take several Monte Carlo runs:
// the recorded runs and replications must add up as in an uninterrupted plan.
std::string plan_text(const std::string& base, const std::string& target) {
  return "base: " + base + R"(
search:
  domains: [3, 4, 5, 6]
  spare_domains: [0, 1]
  dp: derive
  strategies: [checkpoint_restart, dp_drop, ntp/in_place]
target:
)" + target +
         R"(
prices: {gpu_hour: 2.0, energy_per_mwh: 100}
# One Young/Daly interval for every strategy: the scenario was sized for it, so that deadlines
# and goodput floors change the cheapest candidate.
overrides: ["checkpoint.interval=auto_shared"]
confirm: {min_replications: 8, max_replications: 64, max_finalists: 100}
)";
}

class PlanResumeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ntpsim_plan_resume_test_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    write("train.yaml", std::string(kBase) + "train: {tokens: \"6e10\"}\n");
    write("window.yaml", std::string(kBase) + "horizon: \"10d\"\n");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  Plan read(const std::string& base, const std::string& target) const {
    auto p = read_plan(write("plan.yaml", plan_text(base, target)));
    EXPECT_TRUE(p.ok()) << p.error().message;
    return p.ok() ? *p : Plan{};
  }

  std::unique_ptr<ProgressJournal> open(const Plan& plan) const {
    auto id = plan_identity(plan);
    EXPECT_TRUE(id.ok()) << id.error().message;
    if (!id.ok()) return nullptr;
    auto j = ProgressJournal::open(progress_path(), *id);
    EXPECT_TRUE(j.ok()) << j.error().message;
    return j.ok() ? std::move(*j) : nullptr;
  }

  // Runs `plan` against the progress file: recorded confirmations are taken, new ones appended;
  // when `stop_after` >= 0 the cancel flag is set once that many new ones are appended.
  Result<PlanResult> run_with_progress(const Plan& plan, ProgressJournal& journal,
                                       int stop_after = -1) const {
    std::atomic<bool> cancel{false};
    int appended = 0;
    PlanOptions o;
    o.threads = 2;
    o.cancel = &cancel;
    o.resume.source = journal.path();
    o.resume.find = [&](const std::string& key) { return journal.find(key); };
    o.resume.record = [&](const std::string& key, const nlohmann::ordered_json& data) {
      if (++appended == stop_after) cancel = true;
      return journal.append(key, data);
    };
    return run_plan(plan, o);
  }

  std::string progress_path() const { return (dir_ / "plan.progress").string(); }

  // Interrupts the plan after `k` confirmations, resumes it, and compares with a plain run.
  void interrupt_and_resume(const Plan& plan, int k) const {
    PlanOptions plain;
    plain.threads = 2;
    auto full = run_plan(plan, plain);
    ASSERT_TRUE(full.ok()) << full.error().message;
    ASSERT_GT(full->monte_carlo_runs, k + 1) << "the plan should confirm more than k finalists";
    {
      auto journal = open(plan);
      ASSERT_TRUE(journal);
      auto cut = run_with_progress(plan, *journal, k);
      ASSERT_FALSE(cut.ok()) << "the cancel flag should stop the plan";
      EXPECT_EQ(cut.error().exit_code, ExitCode::kRuntime);
      EXPECT_NE(cut.error().message.find("interrupted after " + std::to_string(k) +
                                         " finalist confirmations; "),
                std::string::npos)
          << cut.error().message;
      EXPECT_EQ(journal->size(), static_cast<size_t>(k));
    }  // releases the file's lock, as the interrupted process would on exit
    auto journal = open(plan);
    ASSERT_TRUE(journal);
    ASSERT_EQ(journal->size(), static_cast<size_t>(k));
    auto resumed = run_with_progress(plan, *journal);
    ASSERT_TRUE(resumed.ok()) << resumed.error().message;
    EXPECT_EQ(resumed->monte_carlo_runs, full->monte_carlo_runs);
    EXPECT_EQ(resumed->replications, full->replications);
    EXPECT_EQ(plan_document(*resumed).dump(1), plan_document(*full).dump(1));
    EXPECT_EQ(plan_csv(*resumed), plan_csv(*full));
    EXPECT_EQ(plan_table(*resumed), plan_table(*full));
    // Every finalist recorded once: the k from before and the rest from the resumed run.
    size_t finalists = 0;
    for (const auto& c : full->candidates) {
      finalists += c.status == CandidateStatus::kConfirmed || c.status == CandidateStatus::kRefuted;
    }
    EXPECT_EQ(journal->size(), finalists);
    ASSERT_TRUE(journal->remove().ok());
    EXPECT_FALSE(fs::exists(progress_path()));
  }

  fs::path dir_;
};

TEST_F(PlanResumeTest, DeadlinePlanResumedEqualsUninterrupted) {
  interrupt_and_resume(
      read("train.yaml", "  tokens: \"6e10\"\n  deadline: \"1.2d\"\n  confidence: \"80%\""), 3);
}

TEST_F(PlanResumeTest, GoodputPlanResumedEqualsUninterrupted) {
  interrupt_and_resume(read("window.yaml", "  goodput: \"93%\"\n  confidence: \"80%\""), 2);
}

TEST_F(PlanResumeTest, ProgressFileOfAnotherSeedIsBadInputNamingTheSeed) {
  Plan plan = read("train.yaml", "  tokens: \"6e10\"\n  deadline: \"1.2d\"");
  {
    auto journal = open(plan);
    ASSERT_TRUE(journal);
  }
  plan.seed = 8;  // `--seed 8` on the rerun
  auto id = plan_identity(plan);
  ASSERT_TRUE(id.ok()) << id.error().message;
  EXPECT_EQ((*id)["seed"], 8);
  auto j = ProgressJournal::open(progress_path(), *id);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(j.error().message.find("identity.seed is 7 there, 8 here"), std::string::npos)
      << j.error().message;
}

TEST_F(PlanResumeTest, EditedPlanFileChangesTheIdentity) {
  auto ia = plan_identity(read("train.yaml", "  tokens: \"6e10\"\n  deadline: \"1.2d\""));
  auto ib = plan_identity(read("train.yaml", "  tokens: \"6e10\"\n  deadline: \"1.3d\""));
  ASSERT_TRUE(ia.ok() && ib.ok());
  EXPECT_NE((*ia)["plan_hash"], (*ib)["plan_hash"]);
  EXPECT_EQ((*ia)["scenario_hash"], (*ib)["scenario_hash"]);
}

// A record that passes the journal's own checks (its hash is right) but does not fit the plan.
TEST_F(PlanResumeTest, RecordThatDoesNotFitThePlanIsBadInputNamingTheField) {
  const Plan plan = read("train.yaml", "  tokens: \"6e10\"\n  deadline: \"1.2d\"");
  std::string key;
  nlohmann::ordered_json data;
  // The first finalist's record, caught by a hook that then stops the plan.
  PlanOptions o;
  o.threads = 2;
  std::atomic<bool> cancel{false};
  o.cancel = &cancel;
  o.resume.record = [&](const std::string& k, const nlohmann::ordered_json& d) -> Status {
    key = k;
    data = d;
    cancel = true;
    return Status::Ok();
  };
  ASSERT_FALSE(run_plan(plan, o).ok());
  ASSERT_EQ(key.rfind("candidate/", 0), 0u) << key;
  const struct {
    const char* field;
    nlohmann::ordered_json value;
    const char* message;
  } cases[] = {
      {"candidate", "ntp h100-sxm 9+9 domains TP8 PP1 DP9",
       ".candidate: recorded for \"ntp h100-sxm 9+9"},
      {"status", "maybe", ".status: \"maybe\" is neither \"confirmed\" nor \"refuted\""},
      {"replications", 1000, ".replications: 1000 is not in 8..64"},
      {"p_meet", "high", ".p_meet"},
  };
  for (const auto& c : cases) {
    fs::remove(progress_path());
    auto journal = open(plan);
    ASSERT_TRUE(journal);
    nlohmann::ordered_json bad = data;
    bad[c.field] = c.value;
    ASSERT_TRUE(journal->append(key, bad).ok());
    auto r = run_with_progress(plan, *journal);
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput) << c.field;
    EXPECT_NE(r.error().message.find(progress_path() + ": " + key + c.message), std::string::npos)
        << r.error().message;
  }
}

}  // namespace
}  // namespace ntpsim::sim
