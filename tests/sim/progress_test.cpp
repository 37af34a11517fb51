// Progress files (sim/io/progress.h) and lossless run records (sim/io/run_record.h), and a sweep
// stopped after some points and resumed from its records: the resumed sweep's document must equal
// the uninterrupted one byte for byte.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "sim/io/progress.h"
#include "sim/io/results_json.h"
#include "sim/io/run_record.h"
#include "sim/montecarlo/sweep.h"
#include "sim/scenario/loader.h"
#include "tests/fixtures/tiny_job.h"

namespace ntpsim::sim {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Progress : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(NTPSIM_BINARY_DIR) / "test-scratch" / (std::string("progress.") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "p.progress").string();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static ojson identity(int seed) { return ojson{{"command", "test"}, {"seed", seed}}; }

  fs::path dir_;
  std::string path_;
};

TEST_F(Progress, RecordsSurviveReopening) {
  {
    auto j = ProgressJournal::open(path_, identity(1));
    ASSERT_TRUE(j.ok()) << j.error().message;
    EXPECT_EQ((*j)->size(), 0u);
    ASSERT_TRUE((*j)->append("a", ojson{{"x", 1}}).ok());
    ASSERT_TRUE((*j)->append("b", ojson{{"x", 2}}).ok());
  }
  auto j = ProgressJournal::open(path_, identity(1));
  ASSERT_TRUE(j.ok()) << j.error().message;
  EXPECT_EQ((*j)->size(), 2u);
  EXPECT_FALSE((*j)->dropped_torn_line());
  ASSERT_NE((*j)->find("b"), nullptr);
  EXPECT_EQ((*(*j)->find("b"))["x"], 2);
  EXPECT_EQ((*j)->find("c"), nullptr);
  // Other ranks parse rank 0's text to the same records, read-only.
  auto p = ProgressJournal::parse(path_, (*j)->text(), identity(1));
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ((*p)->size(), 2u);
  EXPECT_FALSE((*p)->append("c", ojson()).ok());
  ASSERT_TRUE((*j)->remove().ok());
  EXPECT_FALSE(fs::exists(path_));
}

TEST_F(Progress, AnotherIdentityIsRefusedNamingTheField) {
  ASSERT_TRUE(ProgressJournal::open(path_, identity(1)).ok());
  const std::string before = slurp(path_);
  auto j = ProgressJournal::open(path_, identity(2));
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(j.error().message.find("p.progress: the progress file belongs to a different run "
                                   "(identity.seed is 1 there, 2 here)"),
            std::string::npos)
      << j.error().message;
  EXPECT_EQ(slurp(path_), before);
}

TEST_F(Progress, ATornLastRecordIsDroppedAndAppendsContinueAfterIt) {
  {
    auto j = ProgressJournal::open(path_, identity(1));
    ASSERT_TRUE(j.ok());
    ASSERT_TRUE((*j)->append("a", ojson{{"x", 1}}).ok());
  }
  std::ofstream(path_, std::ios::app) << R"({"key":"b","data":{"x":)";  // a crash mid-write
  {
    auto j = ProgressJournal::open(path_, identity(1));
    ASSERT_TRUE(j.ok()) << j.error().message;
    EXPECT_TRUE((*j)->dropped_torn_line());
    EXPECT_EQ((*j)->size(), 1u);
    ASSERT_TRUE((*j)->append("b", ojson{{"x", 2}}).ok());
  }
  auto j = ProgressJournal::open(path_, identity(1));
  ASSERT_TRUE(j.ok()) << j.error().message;
  EXPECT_FALSE((*j)->dropped_torn_line());
  EXPECT_EQ((*j)->size(), 2u);
}

TEST_F(Progress, ADamagedRecordBeforeTheLastIsBadInputWithItsLine) {
  {
    auto j = ProgressJournal::open(path_, identity(1));
    ASSERT_TRUE(j.ok());
    ASSERT_TRUE((*j)->append("a", ojson{{"x", 1}}).ok());
    ASSERT_TRUE((*j)->append("b", ojson{{"x", 2}}).ok());
  }
  std::string text = slurp(path_);
  text.replace(text.find("\"x\":1"), 5, "\"x\":7");  // the hash no longer matches
  std::ofstream(path_, std::ios::binary | std::ios::trunc) << text;
  auto j = ProgressJournal::open(path_, identity(1));
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(j.error().message.find("p.progress:2: damaged progress record"), std::string::npos)
      << j.error().message;
}

TEST_F(Progress, AForeignFileIsRefusedUntouched) {
  std::ofstream(path_) << "name: my scenario\n";
  auto j = ProgressJournal::open(path_, identity(1));
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(j.error().message.find("p.progress:1: not an ntpsim progress file"), std::string::npos)
      << j.error().message;
  EXPECT_EQ(slurp(path_), "name: my scenario\n");
  auto d = ProgressJournal::open(dir_.string(), identity(1));
  ASSERT_FALSE(d.ok());
  auto missing = ProgressJournal::open((dir_ / "no" / "p").string(), identity(1));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().exit_code, ExitCode::kRuntime);
  EXPECT_NE(missing.error().message.find("cannot open the progress file"), std::string::npos);
}

TEST_F(Progress, ASecondWriterIsRefusedWhileTheFirstHoldsTheFile) {
  auto first = ProgressJournal::open(path_, identity(1));
  ASSERT_TRUE(first.ok());
  auto second = ProgressJournal::open(path_, identity(1));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().exit_code, ExitCode::kRuntime);
  EXPECT_NE(second.error().message.find("in use by another ntpsim process"), std::string::npos);
}

TEST(ExactNumber, EveryDoubleRoundTripsThroughText) {
  const double values[] = {0.1,
                           -0.0,
                           1.0 / 3.0,
                           6.02214076e23,
                           std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()};
  for (const double v : values) {
    const ojson back = ojson::parse(ojson::array({exact_number(v)}).dump());
    auto r = read_exact_number(back[0], "v");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(std::signbit(*r), std::signbit(v));
    EXPECT_EQ(*r, v);
  }
  auto nan = read_exact_number(ojson::parse(ojson::array({exact_number(std::numeric_limits<double>::quiet_NaN())}).dump())[0], "v");
  ASSERT_TRUE(nan.ok());
  EXPECT_TRUE(std::isnan(*nan));
  auto bad = read_exact_number(ojson("seven"), "point 3: goodput");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("point 3: goodput: expected a number"), std::string::npos);
}

constexpr const char* kTiny = test_fixtures::kTinySweep;

TEST_F(Progress, ASweepStoppedAndResumedFromItsRecordsMatchesAWholeSweep) {
  const std::string file = (dir_ / "tiny.yaml").string();
  std::ofstream(file) << kTiny;
  auto vary = parse_vary("recovery.restart=5min,10min,20min,40min");
  ASSERT_TRUE(vary.ok());
  RunOptions o;
  o.threads = 2;
  o.timeline = false;
  auto whole = run_sweep(file, {}, {*vary}, o);
  ASSERT_TRUE(whole.ok()) << whole.error().message;

  // First attempt: records every finished point, and is cancelled once two have finished.
  auto journal = ProgressJournal::open(path_, identity(1));
  ASSERT_TRUE(journal.ok());
  std::atomic<bool> cancel{false};
  RunOptions stop = o;
  stop.cancel = &cancel;
  SweepHooks record;
  record.finished = [&](size_t i, const SweepPoint& p) {
    const Status st = (*journal)->append(std::to_string(i), run_record(p.scenario, p.result));
    if ((*journal)->size() == 2) cancel = true;
    return st;
  };
  auto first = run_sweep(file, {}, {*vary}, stop, record);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error().exit_code, ExitCode::kRuntime);
  EXPECT_NE(first.error().message.find("2 of 4 sweep points finished"), std::string::npos)
      << first.error().message;
  journal->reset();

  // Second attempt: takes the two recorded points, runs the other two.
  auto reopened = ProgressJournal::open(path_, identity(1));
  ASSERT_TRUE(reopened.ok());
  ASSERT_EQ((*reopened)->size(), 2u);
  int taken = 0, ran = 0;
  SweepHooks resume;
  resume.recorded = [&](size_t i, const Scenario& s) -> Result<std::optional<RunResult>> {
    const ojson* rec = (*reopened)->find(std::to_string(i));
    if (rec == nullptr) return std::optional<RunResult>();
    ++taken;
    auto r = read_run_record(ojson::parse(rec->dump()), s, "point");
    if (!r.ok()) return r.error();
    return std::optional<RunResult>(std::move(*r));
  };
  resume.finished = [&](size_t, const SweepPoint&) {
    ++ran;
    return Status::Ok();
  };
  auto second = run_sweep(file, {}, {*vary}, o, resume);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(taken, 2);
  EXPECT_EQ(ran, 2);
  EXPECT_EQ(sweep_document(*second).dump(1), sweep_document(*whole).dump(1));

  // A record read back for another scenario is refused.
  auto other = load_scenario(file, {"seed=6"});
  ASSERT_TRUE(other.ok());
  auto wrong = read_run_record(*(*reopened)->find("0"), *other, "p.progress: point 0");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(wrong.error().message.find("p.progress: point 0: recorded for scenario hash"),
            std::string::npos)
      << wrong.error().message;
}

TEST_F(Progress, ASweepTooBigToHoldIsRefusedBeforeRunning) {
  const std::string file = (dir_ / "tiny.yaml").string();
  std::ofstream(file) << kTiny;
  auto a = parse_vary("seed=1:1000:1");
  auto b = parse_vary("recovery.restart=1:1000:1");
  auto c = parse_vary("seed=1:100:1");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  RunOptions o;
  auto points = run_sweep(file, {}, {*a, *b}, o);
  ASSERT_FALSE(points.ok());
  EXPECT_EQ(points.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(points.error().message.find("sweep: 1000 x 1000 = 1000000 points, more than the 10000"),
            std::string::npos)
      << points.error().message;
  // 100 points x 2 strategies x 10^6 replications x 120 bytes = 24 GB of metrics.
  o.replications = 1000000;
  auto metrics = run_sweep(file, {}, {*c}, o);
  ASSERT_FALSE(metrics.ok());
  EXPECT_EQ(metrics.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(metrics.error().message.find("sweep: 100 points would keep 23.8 GiB"),
            std::string::npos)
      << metrics.error().message;
}

}  // namespace
}  // namespace ntpsim::sim
