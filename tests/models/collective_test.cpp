// Alpha-beta collective times against hand computation (models/collective_model.h).
#include <gtest/gtest.h>

#include "models/collective_model.h"

namespace ntpsim::models {
namespace {

Fabric nvlink() {
  Fabric f;
  f.bw_per_gpu_Bps = 450e9;
  f.efficiency = 0.8;  // bus bandwidth 360 GB/s
  f.alpha_s = 2e-6;
  return f;
}

TEST(Collective, BusFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllGather, 71), 70.0 / 71);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kReduceScatter, 63), 62.0 / 63);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllToAll, 70), 69.0 / 70);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kSendRecv, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kBroadcast, 72), 1.0);
}

TEST(Collective, HandComputedTimes) {
  const Fabric f = nvlink();
  // all-reduce of 1 GB over 8: 2·7 steps × 2 µs + 1e9 · 2·7/8 / 360e9.
  EXPECT_NEAR(collective_time_s(f, Collective::kAllReduce, 8, 1e9), 28e-6 + 1e9 * 1.75 / 360e9,
              1e-12);
  // all-gather of 256 MB over 71 (not a power of two): 70 steps.
  EXPECT_NEAR(collective_time_s(f, Collective::kAllGather, 71, 256e6),
              70 * 2e-6 + 256e6 * (70.0 / 71) / 360e9, 1e-12);
  // reduce-scatter over 70 and 63.
  EXPECT_NEAR(collective_time_s(f, Collective::kReduceScatter, 70, 1e8),
              69 * 2e-6 + 1e8 * (69.0 / 70) / 360e9, 1e-12);
  EXPECT_NEAR(collective_time_s(f, Collective::kReduceScatter, 63, 1e8),
              62 * 2e-6 + 1e8 * (62.0 / 63) / 360e9, 1e-12);
  // send/recv: one step, full size.
  EXPECT_NEAR(collective_time_s(f, Collective::kSendRecv, 2, 5e7), 2e-6 + 5e7 / 360e9, 1e-12);
  // A group of one moves nothing.
  EXPECT_EQ(collective_time_s(f, Collective::kAllReduce, 1, 1e9), 0.0);
  // Small messages are latency-bound.
  EXPECT_NEAR(collective_time_s(f, Collective::kAllReduce, 72, 8), 142 * 2e-6, 1e-9);
}

TEST(Collective, PerCollectiveOverrideAndGroupSizeInterpolation) {
  Fabric f = nvlink();
  CollectiveParams ar;
  ar.alpha_s = 3e-6;
  ar.bus_bw_Bps = 480e9;
  ar.by_group_size[8] = CollectiveFit{3e-6, 480e9};
  ar.by_group_size[72] = CollectiveFit{5e-6, 800e9};
  f.collectives["all_reduce"] = ar;
  // Exactly measured sizes.
  EXPECT_DOUBLE_EQ(collective_params(f, Collective::kAllReduce, 72).bus_bw_Bps, 800e9);
  // Between 8 and 72, linear in log n: at n = 24, x = ln 3 / ln 9 = 0.5.
  const CollectiveFit mid = collective_params(f, Collective::kAllReduce, 24);
  EXPECT_NEAR(mid.bus_bw_Bps, 640e9, 1e-3);
  EXPECT_NEAR(mid.alpha_s, 4e-6, 1e-15);
  // Outside the measured range: clamped to the nearest end.
  EXPECT_DOUBLE_EQ(collective_params(f, Collective::kAllReduce, 4).bus_bw_Bps, 480e9);
  EXPECT_DOUBLE_EQ(collective_params(f, Collective::kAllReduce, 144).bus_bw_Bps, 800e9);
  // Other collectives keep the fabric defaults.
  EXPECT_DOUBLE_EQ(collective_params(f, Collective::kAllGather, 24).bus_bw_Bps, 360e9);
  EXPECT_NEAR(collective_time_s(f, Collective::kAllReduce, 24, 1e9),
              46 * 4e-6 + 1e9 * (2.0 * 23 / 24) / 640e9, 1e-9);
}

}  // namespace
}  // namespace ntpsim::models
