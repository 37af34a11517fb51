// The fitter recovers known parameters from synthetic measurements (calibrate/synthetic.h, fixed
// seeds, 1% multiplicative timing noise per repetition) within stated tolerances, and rejects
// data it cannot fit with a clear error.
#include "calibrate/fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <tuple>

#include "calibrate/driver.h"
#include "calibrate/raw_reader.h"
#include "calibrate/shapes.h"
#include "calibrate/synthetic.h"
#include "calibrate_test_util.h"

namespace ntpsim::calibrate {
namespace {

using test::measure;

TEST(Fit, QualityOfHandValues) {
  const FitQuality q = quality_of({1, 2, 3}, {1.1, 2, 2.7}, {"a", "b", "c"});
  EXPECT_EQ(q.points, 3);
  EXPECT_NEAR(q.max_abs_rel_error, 0.1, 1e-12);
  EXPECT_NEAR(q.mean_abs_rel_error, (0.1 + 0 + 0.1) / 3, 1e-12);
  EXPECT_NEAR(q.r2, 1.0 - (0.01 + 0 + 0.09) / 2.0, 1e-12);  // ss_tot = 2
  EXPECT_EQ(q.per_point[2].what, "c");
  EXPECT_NEAR(q.per_point[2].rel_error, -0.1, 1e-12);
}

TEST(Fit, QuantizedFlopsCountsWholeWavesOfTiles) {
  // 132 SMs, 128x256 tiles: 1024x1024 -> 8x4 = 32 tiles, one wave of 132 tile slots.
  EXPECT_DOUBLE_EQ(quantized_flops(1024, 1024, 1024, 132, 128, 256, 64), 132.0 * 2 * 128 * 256 * 1024);
  // k is padded to whole tile_k steps; the transposed tile is used when it quantizes better.
  EXPECT_DOUBLE_EQ(quantized_flops(256, 128, 65, 1, 128, 256, 64), 2.0 * 128 * 256 * 128);
}

TEST(Fit, GemmRecoversTileModel) {
  SyntheticTruth truth;
  SyntheticBackend b(truth, 11);
  const LayerDims d{8192, 64, 8, 28672, true, 4096, 1};
  auto shapes = layer_shapes(d, {8, 7, 6, 5}, GemmDType::kBF16, true);
  for (const auto& s : square_shapes(geometric(256, 16384, 2.0), GemmDType::kBF16)) shapes.push_back(s);
  auto raw = measure(RawKind::kGemm, [&](RawWriter& w) { return run_gemms(b, shapes, w, {}); });
  auto fit = fit_raw({raw});
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  ASSERT_EQ(fit->gemm.size(), 1u);
  const GemmFit& g = fit->gemm[0];
  EXPECT_EQ(g.tile_m, truth.tile_m);
  EXPECT_EQ(g.tile_n, truth.tile_n);
  EXPECT_EQ(g.sm_count, truth.sm_count);
  EXPECT_NEAR(g.rate_flops / truth.bf16_rate_flops, 1.0, 0.01);       // 1%
  EXPECT_NEAR(g.overhead_s, truth.overhead_s, 0.5e-6);                 // 0.5 us
  EXPECT_GT(g.quality.r2, 0.999);
  EXPECT_LT(g.quality.max_abs_rel_error, 0.03);                        // noise is 1% per rep
  // The table has one point per (m, n, k): the layouts of a shape are pooled, as in the fit.
  std::set<std::tuple<int64_t, int64_t, int64_t>> distinct;
  for (const auto& r : shapes) distinct.insert({r.m, r.n, r.k});
  EXPECT_LT(distinct.size(), shapes.size());  // some shapes recur in another pass's layout
  EXPECT_EQ(g.table.size(), distinct.size());
  EXPECT_FALSE(g.layout.has_value());
}

// Pooled (default), the layouts share one fit per type; separate, each layout gets its own fit,
// its points named with the layout, and the profile is built from the TN (forward) fit.
TEST(Fit, GemmLayoutsArePooledOrKeptApart) {
  SyntheticTruth truth;
  SyntheticBackend b(truth, 12);
  const LayerDims d{8192, 64, 8, 28672, true, 4096, 1};
  auto shapes = layer_shapes(d, {8, 7, 6, 5}, GemmDType::kBF16, true);
  for (const GemmLayout l : {GemmLayout::kTN, GemmLayout::kNN, GemmLayout::kNT}) {
    for (const auto& s : square_shapes(geometric(256, 16384, 2.0), GemmDType::kBF16, l)) {
      shapes.push_back(s);
    }
  }
  auto raw = measure(RawKind::kGemm, [&](RawWriter& w) { return run_gemms(b, shapes, w, {}); });
  int per_layout[3] = {0, 0, 0};
  for (const GemmRow& r : raw.gemm) ++per_layout[static_cast<int>(r.request.layout)];
  auto pooled = fit_raw({raw});
  ASSERT_TRUE(pooled.ok()) << pooled.error().message;
  ASSERT_EQ(pooled->gemm.size(), 1u);
  EXPECT_EQ(pooled->gemm[0].quality.points, static_cast<int>(raw.gemm.size()));
  FitOptions opt;
  opt.separate_layouts = true;
  auto apart = fit_raw({raw}, opt);
  ASSERT_TRUE(apart.ok()) << apart.error().message;
  ASSERT_EQ(apart->gemm.size(), 3u);
  for (const GemmFit& g : apart->gemm) {
    ASSERT_TRUE(g.layout.has_value());
    SCOPED_TRACE(gemm_fit_name(g));
    EXPECT_EQ(g.quality.points, per_layout[static_cast<int>(*g.layout)]);
    EXPECT_NEAR(g.rate_flops / truth.bf16_rate_flops, 1.0, 0.02);  // the truth has no layout effect
    EXPECT_NE(g.quality.per_point.front().what.find(to_string(*g.layout)), std::string::npos);
  }
  EXPECT_EQ(gemm_fit_name(apart->gemm[1]), "bf16.NN");
  const GemmFit* used = profile_gemm_fit(*apart, GemmDType::kBF16);
  ASSERT_NE(used, nullptr);
  EXPECT_EQ(used->layout, GemmLayout::kTN);
  EXPECT_EQ(profile_gemm_fit(*pooled, GemmDType::kBF16), &pooled->gemm[0]);
  EXPECT_EQ(profile_gemm_fit(*pooled, GemmDType::kFP8), nullptr);
}

TEST(Fit, CollectivesRecoverAlphaBetaForAnyGroupSize) {
  SyntheticTruth truth;
  truth.ranks = 72;
  SyntheticBackend b(truth, 12);
  CollectivePlan plan;
  plan.kinds = all_collectives();
  plan.bytes = geometric(1 << 10, 1 << 30, 4.0);
  plan.group_sizes = {2, 7, 8, 63, 70, 71, 72};
  auto raw = measure(RawKind::kCollective, [&](RawWriter& w) { return run_collectives(b, plan, w, {}); });
  auto fit = fit_raw({raw});
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  ASSERT_EQ(fit->collectives.size(), all_collectives().size());
  for (const CollectiveFitResult& c : fit->collectives) {
    SCOPED_TRACE(to_string(c.kind));
    const SyntheticCollective& t = truth.collectives.at(c.kind);
    EXPECT_NEAR(c.alpha_s / t.alpha_s, 1.0, 0.05);                     // pooled alpha within 5%
    EXPECT_NEAR(c.bus_bw_Bps / t.bus_bw_Bps, 1.0, 0.01);               // bus bandwidth within 1%
    ASSERT_EQ(c.groups.size(), plan.group_sizes.size());
    for (const CollectiveGroupFit& g : c.groups) {
      SCOPED_TRACE(g.group_size);
      EXPECT_NEAR(g.bus_bw_Bps / t.bus_bw_Bps, 1.0, 0.02);             // per group size: 2%
      EXPECT_NEAR(g.alpha_s / t.alpha_s, 1.0, 0.15);                   // 15%: few small sizes
    }
  }
}

TEST(Fit, ReshardRecoversItsCost) {
  SyntheticTruth truth;
  truth.ranks = 72;
  SyntheticBackend b(truth, 13);
  ReshardPlan plan;
  plan.tp = 72;
  plan.ks = {1, 2, 4, 8};
  plan.bytes_per_rank = geometric(1 << 16, 1 << 30, 4.0);
  auto raw = measure(RawKind::kReshard, [&](RawWriter& w) { return run_reshards(b, plan, w, {}); });
  auto fit = fit_raw({raw});
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  ASSERT_EQ(fit->reshards.size(), 1u);
  EXPECT_EQ(fit->reshards[0].tp, 72);
  EXPECT_NEAR(fit->reshards[0].alpha_s / truth.reshard_alpha_s, 1.0, 0.05);
  EXPECT_NEAR(fit->reshards[0].bw_Bps / truth.reshard_bw_Bps, 1.0, 0.01);
}

TEST(Fit, PowerSweepRecoversElasticityAndClockCeiling) {
  SyntheticTruth truth;
  SyntheticBackend b(truth, 14);
  auto raw = measure(RawKind::kPower, [&](RawWriter& w) {
    return run_power(b, square_shapes({2048, 8192}, GemmDType::kBF16),
                     {400, 450, 500, 550, 600, 650, 700}, w, {});
  });
  auto fit = fit_raw({raw});
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  ASSERT_TRUE(fit->power.has_value());
  EXPECT_TRUE(fit->power->swept);
  EXPECT_NEAR(fit->power->elasticity, truth.elasticity, 0.02);
  EXPECT_NEAR(fit->power->max_clock_speedup, truth.max_clock_mhz / truth.clock_at_tdp_mhz, 0.01);
  EXPECT_DOUBLE_EQ(fit->power->tdp_w, truth.tdp_w);
  EXPECT_DOUBLE_EQ(b.power_limit_w(), truth.tdp_w);  // the sweep restored the original limit
}

// A point whose clock NVML says was slowed by heat (clock-event reason 0x40, HW thermal) is not a
// power-limit point: with a corrupted speed it would bend the elasticity, so the fit leaves it out.
TEST(Fit, PowerSweepLeavesOutThermallyThrottledPoints) {
  SyntheticTruth truth;
  SyntheticBackend b(truth, 14);
  auto raw = measure(RawKind::kPower, [&](RawWriter& w) {
    return run_power(b, square_shapes({8192}, GemmDType::kBF16), {400, 500, 600, 700}, w, {});
  });
  ASSERT_EQ(raw.gemm.size(), 4u);
  GemmRow& hot = raw.gemm[1];  // 500 W
  ASSERT_DOUBLE_EQ(hot.power_limit_w, 500);
  hot.time.median_s *= 1.5;  // the heat slowed it down a third
  auto skewed = fit_raw({raw});
  ASSERT_TRUE(skewed.ok()) << skewed.error().message;
  EXPECT_GT(std::abs(skewed->power->elasticity - truth.elasticity),
            0.05);  // unflagged, it misleads
  hot.power.clock_event_reasons = 0x40;
  auto fit = fit_raw({raw});
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  EXPECT_EQ(fit->power->thermal_excluded, 1);
  EXPECT_EQ(fit->power->points, 3);  // 400, 600 and 700 W
  EXPECT_NEAR(fit->power->elasticity, truth.elasticity, 0.02);
  EXPECT_NE(describe(*fit).find("1 point(s) left out"), std::string::npos);
  // Written and read back, the reasons survive the raw format.
  const std::string path = test::scratch_path("thermal.csv");
  {
    auto w = RawWriter::open(path, RawKind::kPower, raw.context);
    ASSERT_TRUE(w.ok());
    GemmMeasurement m;
    m.time = hot.time;
    m.time.min_s = m.time.p10_s = m.time.p90_s = m.time.max_s = m.time.median_s;
    m.power = hot.power;
    m.power.samples = 10;
    m.power.mean_w = m.power.max_w = 480;
    m.power.sm_clock_mean_mhz = 1500;
    m.power.temp_max_c = 91;
    ASSERT_TRUE(w->write_gemm(hot.request, m, 500).ok());
  }
  auto back = read_raw_file(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->gemm.at(0).power.clock_event_reasons, 0x40u);
  EXPECT_DOUBLE_EQ(back->gemm.at(0).power.temp_max_c, 91);
}

TEST(Fit, PowerSweepWithoutNvmlSamplesStillFitsElasticity) {
  SyntheticTruth truth;
  truth.power_samples = 0;  // NVML unavailable: no power or clock columns
  SyntheticBackend b(truth, 17);
  auto raw = measure(RawKind::kPower, [&](RawWriter& w) {
    return run_power(b, square_shapes({8192}, GemmDType::kBF16), {450, 550, 700}, w, {});
  });
  auto fit = fit_raw({raw});
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  EXPECT_TRUE(fit->power->swept);
  EXPECT_NEAR(fit->power->elasticity, truth.elasticity, 0.02);
  EXPECT_EQ(fit->power->max_clock_speedup, 0.0);  // unknown, so a base profile's value is kept
}

TEST(Fit, PowerObservedOnlyFitsNoElasticity) {
  SyntheticBackend b(SyntheticTruth{}, 15);
  auto raw = measure(RawKind::kPower, [&](RawWriter& w) {
    return run_power(b, square_shapes({1024, 8192}, GemmDType::kBF16), {}, w, {});
  });
  auto fit = fit_raw({raw});
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  EXPECT_FALSE(fit->power->swept);
  EXPECT_GT(fit->power->max_clock_speedup, 1.1);
}

TEST(Fit, RejectsWhatItCannotFit) {
  SyntheticBackend b(SyntheticTruth{}, 16);
  CollectivePlan plan;
  plan.kinds = {CollectiveKind::kAllGather};
  plan.bytes = {1 << 20};
  plan.group_sizes = {4};
  auto one_size = measure(RawKind::kCollective, [&](RawWriter& w) { return run_collectives(b, plan, w, {}); });
  auto fit = fit_raw({one_size});
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.error().message.find("scale_up all_gather n=4: needs at least 2 message sizes"), std::string::npos);

  RawData empty;
  empty.file = "empty.csv";
  EXPECT_NE(fit_raw({empty}).error().message.find("no measurement rows"), std::string::npos);

  auto gemm = measure(RawKind::kGemm, [&](RawWriter& w) {
    return run_gemms(b, square_shapes({1024, 2048}, GemmDType::kBF16), w, {});
  }, /*with_sm_count=*/false);
  auto no_sms = fit_raw({gemm});
  ASSERT_FALSE(no_sms.ok());
  EXPECT_NE(no_sms.error().message.find("no 'sm_count' in the context header"), std::string::npos);
  FitOptions opt;
  opt.sm_count = 132;
  EXPECT_TRUE(fit_raw({gemm}, opt).ok());
}

}  // namespace
}  // namespace ntpsim::calibrate
