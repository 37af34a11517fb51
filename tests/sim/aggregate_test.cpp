// Aggregates: Student-t quantiles against published table values, summaries, paired differences.
#include "sim/metrics/aggregate.h"
#include "models/base/statistics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ntpsim::sim {
namespace {

TEST(Aggregate, StudentTQuantilesMatchTables) {
  // Two-sided 95% critical values (t_{0.975}) to 4 decimals.
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.7062, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 2), 4.3027, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 5), 2.5706, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 10), 2.2281, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 30), 2.0423, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 1e6), 1.9600, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.95, 4), 2.1318, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.025, 10), -2.2281, 1e-4);
}

TEST(Aggregate, SummaryOfKnownValues) {
  const Stat s = summarize({1, 2, 3, 4, 5, std::nan("")});
  EXPECT_EQ(s.n, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
  EXPECT_NEAR(s.sd, std::sqrt(2.5), 1e-12);
  EXPECT_NEAR(s.ci95_hi - s.mean, 2.7764451 * std::sqrt(2.5) / std::sqrt(5.0), 1e-6);
  EXPECT_DOUBLE_EQ(s.p50, 3.0);
  EXPECT_DOUBLE_EQ(s.p5, 1.2);   // type 7: 1 + 0.05 * 4 * (2 - 1)
  EXPECT_DOUBLE_EQ(s.p95, 4.8);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 5.0);
  const Stat one = summarize({7});
  EXPECT_EQ(one.sd, 0);
  EXPECT_EQ(one.ci95_lo, 7);
}

TEST(Aggregate, PairedDifferenceRemovesCommonNoise) {
  std::vector<double> a, b;
  for (int i = 0; i < 50; ++i) {
    const double noise = std::sin(i * 1.7) * 10;
    b.push_back(100 + noise);
    a.push_back(101 + noise + 0.01 * std::cos(i));
  }
  const PairedDiff d = paired_difference(a, b);
  EXPECT_EQ(d.n, 50);
  EXPECT_NEAR(d.mean, 1.0, 0.01);
  EXPECT_LT(d.ci95_hi - d.ci95_lo, 0.01);
}

}  // namespace
}  // namespace ntpsim::sim
