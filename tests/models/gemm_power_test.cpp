// GEMM efficiency model and power model (models/gemm_model.h, models/power_model.h).
#include <gtest/gtest.h>

#include <cmath>

#include "models/gemm_model.h"
#include "models/power_model.h"
#include "tests/models/test_workloads.h"

namespace ntpsim::models {
namespace {

using testing::profile;

TEST(Gemm, TileAndWaveQuantizationByHand) {
  const HardwareProfile h = profile("h100-sxm");
  const GemmModel g(h, false);
  // 8192^3: 64 x 32 = 2048 tiles of 128 x 256 on 132 SMs = 16 waves, 2048/2112 busy.
  EXPECT_NEAR(g.efficiency(8192, 8192, 8192), 0.80 * 2048.0 / 2112.0, 1e-12);
  // 1024^3: 8 x 4 = 32 tiles, one wave of 132 SMs mostly idle.
  EXPECT_NEAR(g.efficiency(1024, 1024, 1024), 0.80 * 32.0 / 132.0, 1e-12);
  // Padding: 130 rows need 2 row tiles (130/256 of the padded rows used).
  EXPECT_NEAR(g.efficiency(130, 256 * 132, 4096), 0.80 * 130.0 / 256.0, 1e-12);
  const double t = g.time_s(8192, 8192, 8192);
  EXPECT_NEAR(t, 2.0 * std::pow(8192.0, 3) / (989e12 * 0.80 * 2048.0 / 2112.0) + 2e-6, 1e-12);
}

TEST(Gemm, H100SquareGemmsWithinFifteenPercentOfMeasured) {
  // REFERENCES.md: H100 BF16 square GEMM 177 / 677 / 789 / 798 TFLOP/s at 1024..8192.
  const GemmModel g(profile("h100-sxm"), false);
  const double sizes[] = {1024, 2048, 4096, 8192};
  const double measured[] = {177e12, 677e12, 789e12, 798e12};
  for (int i = 0; i < 4; ++i) {
    const double n = sizes[i];
    const double predicted = 2 * n * n * n / g.time_s(n, n, n);
    EXPECT_NEAR(predicted / measured[i], 1.0, 0.15) << n;
  }
}

TEST(Gemm, MemoryBoundShapesUseHbmTime) {
  const HardwareProfile h = profile("h100-sxm");
  const GemmModel g(h, false);
  // A shallow GEMM (k = 64) moves far more bytes than its FLOPs need: 16384 x 16384 bf16 output.
  const double m = 16384, n = 16384, k = 64;
  const double bytes = 2.0 * (m * k + k * n) + 2.0 * m * n;
  EXPECT_NEAR(g.time_s(m, n, k), bytes / (3.35e12 * 0.8) + 2e-6, 1e-12);
}

TEST(Gemm, MeasuredTableInterpolation) {
  HardwareProfile h = profile("h100-sxm");
  h.gemm.table = {GemmPoint{1024, 1024, 1024, 200e12}, GemmPoint{4096, 4096, 4096, 700e12}};
  const GemmModel g(h, false);
  EXPECT_NEAR(g.efficiency(4096, 4096, 4096), 700.0 / 989.0, 1e-12);  // exact point
  EXPECT_NEAR(g.time_s(1024, 1024, 1024), 2.0 * std::pow(1024.0, 3) / 200e12, 1e-15);
  // Midway in log space the two points weigh equally.
  const double e = g.efficiency(2048, 2048, 2048);
  EXPECT_NEAR(e, (200.0 + 700.0) / 2 / 989.0, 1e-9);
}

TEST(Power, SpeedupAndInversion) {
  const PowerModel p(profile("b200-hgx"));  // elasticity 0.58, ceiling 1.2, max 1.3x
  EXPECT_DOUBLE_EQ(p.speedup(1.0), 1.0);
  EXPECT_NEAR(p.speedup(1.2), std::pow(1.2, 0.58), 1e-12);
  EXPECT_NEAR(p.max_ratio(), 1.3, 1e-12);
  for (double r : {1.0, 1.05, 1.1, 1.2, 1.3}) {
    EXPECT_NEAR(p.ratio_for_speedup(p.speedup(r)), r, 1e-9) << r;
  }
  // 32/30 more work per GPU needs (32/30)^(1/0.58) of TDP.
  EXPECT_NEAR(p.ratio_for_speedup(32.0 / 30.0), std::pow(32.0 / 30.0, 1 / 0.58), 1e-12);
  EXPECT_TRUE(std::isinf(p.ratio_for_speedup(1.25)));  // beyond the clock ceiling
  EXPECT_NEAR(p.perf_per_watt(1.1), std::pow(1.1, 0.58) / 1.1, 1e-12);
  EXPECT_DOUBLE_EQ(p.compute_power_w(1.2), 1200.0);
  EXPECT_DOUBLE_EQ(p.comm_power_w(1.0), 600.0);
}

TEST(Power, CeilingCapsSpeedup) {
  HardwareProfile h = profile("b200-hgx");
  h.max_clock_speedup = 1.05;
  const PowerModel p(h);
  EXPECT_DOUBLE_EQ(p.speedup(1.3), 1.05);
  EXPECT_DOUBLE_EQ(p.max_speedup(), 1.05);
}

}  // namespace
}  // namespace ntpsim::models
