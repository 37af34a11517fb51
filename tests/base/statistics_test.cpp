// models/base/statistics.h: the type-7 percentile against NumPy's "linear" method and the
// nearest-rank quantile against its definition.
#include "models/base/statistics.h"

#include <gtest/gtest.h>

#include <vector>

namespace ntpsim {
namespace {

TEST(Statistics, Type7PercentileInterpolatesBetweenClosestRanks) {
  const std::vector<double> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  // numpy.percentile(range(1, 11), [0, 5, 50, 90, 100]) = 1, 1.45, 5.5, 9.1, 10.
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 0.05), 1.45);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 0.5), 5.5);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 0.9), 9.1);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 1.0), 10.0);
  EXPECT_DOUBLE_EQ(percentile_sorted({3.5}, 0.7), 3.5);
}

TEST(Statistics, NearestRankQuantileTakesASampleValue) {
  // Unsorted on purpose: the function sorts its copy.
  const std::vector<double> v{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(nearest_rank_quantile(v, 0.0), 1.0);   // rank clamped to 1
  EXPECT_DOUBLE_EQ(nearest_rank_quantile(v, 0.25), 1.0);  // ceil(1) = rank 1
  EXPECT_DOUBLE_EQ(nearest_rank_quantile(v, 0.5), 2.0);   // ceil(2) = rank 2
  EXPECT_DOUBLE_EQ(nearest_rank_quantile(v, 0.51), 3.0);  // ceil(2.04) = rank 3
  EXPECT_DOUBLE_EQ(nearest_rank_quantile(v, 0.9), 4.0);
  EXPECT_DOUBLE_EQ(nearest_rank_quantile(v, 1.0), 4.0);
}

}  // namespace
}  // namespace ntpsim
