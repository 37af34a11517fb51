// Published statements ntpsim does NOT reproduce within the stated tolerance. Each test
// keeps the paper's number and tolerance (tools/validate/claims.h) and is registered in ctest with
// WILL_FAIL, so the suite stays green while the difference stands and fails loudly the day the
// model starts agreeing (then move the test to paper_test.cpp). docs/VALIDATION.md explains each.
// The replication counts equal the document's, so the verdicts here and there are the same.
#include <gtest/gtest.h>

#include "tests/validation/fixture.h"
#include "tools/validate/claims.h"
#include "tools/validate/llama3_rates.h"
#include "tools/validate/studies.h"

namespace ntpsim::validate {
namespace {

namespace pub = published;
using testing::scenario;

const std::vector<std::string> kFiveDay20 = {"failures.processes[0].kinds[0].repair.mean=5d",
                                             "horizon=20d"};
constexpr double kWarmup = 5 * 86400.0;

std::shared_ptr<const Prepared> load(const std::vector<std::string>& o) {
  auto p = prepare(scenario("paper/b200-nvl32.yaml"), o);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return p.ok() ? std::move(*p) : nullptr;
}

// Fig. 4: the paper's single 15-day trace has more than 0.1% failed 81% of the time. ntpsim's
// independent Poisson failures at the Llama 3 rate (mean about 36 failed GPUs against a threshold
// of 32) give about 70% on average over steady 15-day windows; single windows range widely (p10
// about 47%, p90 about 91%) and about a third of them reach 81%. The paper's number is one sample.
TEST(KnownDifference, Fig4ShareAboveOneInAThousand) {
  auto p = load({"horizon=20d"});
  ASSERT_NE(p, nullptr);
  const auto st = failed_gpu_stats(*p, 0.001, kWarmup, testing::kFig4Reps);
  EXPECT_NEAR(st.share_above, pub::kShareAbove01, pub::kShareAbove01Tol);
}

// 3x the Llama 3 rate: the paper says peak concurrent failures double. With independent failures
// the peak of a 15-day window sits a few standard deviations above the mean, and the mean triples,
// so the peak grows about 2.7x (the TP64 availability at that peak, about 77%, does agree with the
// paper's "about 80%": see paper_test.cpp).
TEST(KnownDifference, TripleRatePeakDoubles) {
  auto p1 = load({"horizon=20d"});
  auto p3 = load({"horizon=20d", "failures.processes[0].rate=5.919e-5/h"});
  ASSERT_NE(p1, nullptr);
  ASSERT_NE(p3, nullptr);
  const double peak1 = failed_gpu_stats(*p1, 0.001, kWarmup, testing::kFig4Reps).peak_failed;
  const double peak3 = failed_gpu_stats(*p3, 0.001, kWarmup, testing::kFig4Reps).peak_failed;
  EXPECT_NEAR(peak3 / peak1, pub::kPeakRatio3x, pub::kPeakRatio3xTol);
}

// Fig. 7, DP-DROP under the 99% reading: 90 spare domains in the paper. The 99% reading tolerates
// one dropped replica (1/125 = 0.8%), so ntpsim needs about 66, several domains fewer than the
// strict reading (no replica ever dropped, about 75-79, which agrees: paper_test.cpp). The paper's
// trace also has more concurrent failures than ntpsim's typical window (as in Fig. 4).
TEST(KnownDifference, Fig7DpDropSparesToNeverPause) {
  auto n = spares_needed(scenario("paper/b200-nvl32.yaml"), kFiveDay20, "dp_drop", 256,
                         testing::kFig7Reps, pub::kNoPauseTolerance, 2, kWarmup);
  ASSERT_TRUE(n.ok());
  EXPECT_NEAR(*n, pub::kSparesDpDrop, pub::kSparesDpDropTol);
}

// Llama 3's Table 5 against the InfiniteHBD log's fitted rates scaled to the Llama 3 cluster
// (llama3_rates_test.cpp has the rows that agree: all kinds together and the network). The mix
// differs: per server, Llama 3 has 1.4x the log's hardware rate (all of it GPU: 2.1x per GPU) and
// 3.3x its software rate, and 0.15x its Other (stress tests, unknown errors) and 0.27x its host
// faults. The table counts interruptions of one synchronous job, the log every server fault of a
// production cluster (redundant fans and power supplies, stress tests on drained servers); the GPU
// generation, the operators' triage and what each calls software differ too.
bool llama3_row_agrees(const std::string& group) {
  auto st = llama3_rate_study(scenario("paper/infinitehbd-400.yaml"),
                              std::string(NTPSIM_SOURCE_DIR) + "/" + kLlama3Table);
  EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
  if (!st.ok()) return false;
  for (const RateComparison& r : st->rows) {
    if (r.group == group) return r.ratio_lo <= 1.0 && 1.0 <= r.ratio_hi;
  }
  ADD_FAILURE() << "no row " << group;
  return false;
}

TEST(KnownDifference, Llama3RatesHardware) {
  EXPECT_TRUE(llama3_row_agrees("Hardware Failure"));
}
TEST(KnownDifference, Llama3RatesSoftware) {
  EXPECT_TRUE(llama3_row_agrees("Software Failure"));
}
TEST(KnownDifference, Llama3RatesOther) {
  EXPECT_TRUE(llama3_row_agrees("Other Failure"));
}
TEST(KnownDifference, Llama3RatesGpu) {
  EXPECT_TRUE(llama3_row_agrees("hardware: GPU"));
}
TEST(KnownDifference, Llama3RatesHost) {
  EXPECT_TRUE(llama3_row_agrees("hardware: host"));
}

}  // namespace
}  // namespace ntpsim::validate
