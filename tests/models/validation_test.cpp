// Validation of the analytic step model against published Megatron-LM measurements
// (models/step_validation.h: Korthikanti et al. 2022, Tables 4 and 5 and the 530B DP-8 run on
// A100 80GB). One spec-derived profile, no per-configuration factor. The bounds are the
// project's targets: mean |error| <= 3%, largest |error| <= 8%.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "models/analytic_step_model.h"
#include "models/memory_model.h"
#include "models/step_validation.h"
#include "tests/models/test_workloads.h"

namespace ntpsim::models {
namespace {

using testing::gpt;
using testing::profile;

TEST(Validation, MegatronStepTimesWithinTargets) {
  const auto points = megatron_step_validation(profile("a100-sxm-80gb"));
  ASSERT_EQ(points.size(), 14u);
  double sum_abs = 0;
  double max_abs = 0;
  for (const auto& p : points) {
    std::printf("%-40s %-30s measured %8.4f s predicted %8.4f s error %+5.1f%%\n", p.name.c_str(),
                p.layout.c_str(), p.measured_s, p.predicted_s, 100 * p.error());
    sum_abs += std::fabs(p.error());
    max_abs = std::max(max_abs, std::fabs(p.error()));
    EXPECT_LE(std::fabs(p.error()), 0.08) << p.name;
  }
  const double mean_abs = sum_abs / static_cast<double>(points.size());
  std::printf("mean |error| %.2f%%, largest %.2f%%\n", 100 * mean_abs, 100 * max_abs);
  EXPECT_LE(mean_abs, 0.03);
}

// Narayanan et al. 2021 Table 2: the same TP x PP layout as DP doubles and the micro-batches per
// replica halve. The paper does not give the interleaving, so the model is run with and without
// it. Bounds: every prediction within 15% of the measured throughput (all too fast: the 2021
// software is about 10% slower than the 2022 software the Korthikanti points measure, e.g. 530B
// at m = 280: 55.45 s here against 49.05 s + 1.32 s for DP 8 there); the measured change from the
// most to the fewest micro-batches lies between the two schedules' changes (the model brackets
// the response, allowing 0.5 percentage points for the paper's rounding to 1 TFLOP/s); and the
// non-interleaved schedule, the strongest response the model can give, reacts at most 1.5x as
// strongly as measured.
TEST(Validation, MegatronStrongScalingResponseToMicrobatches) {
  const auto series = megatron_strong_scaling(profile("a100-sxm-80gb"));
  ASSERT_EQ(series.size(), 2u);
  for (const auto& s : series) {
    ASSERT_EQ(s.points.size(), 3u);
    std::vector<int> m;
    std::vector<double> measured;
    std::vector<double> flat;
    for (const auto& p : s.points) {
      std::printf(
          "%s %5d GPUs m %4d: measured %.0f TFLOP/s, v1 %.1f (%+.1f%%), v%d %.1f (%+.1f%%)\n",
          s.model.c_str(), p.gpus, p.microbatches, p.measured_tflops, p.predicted_tflops(0),
          100 * p.error(0), s.v_interleaved, p.predicted_tflops(1), 100 * p.error(1));
      for (const int schedule : {0, 1}) {
        EXPECT_GT(p.error(schedule), 0.0) << s.model << " " << p.gpus;
        EXPECT_LE(p.error(schedule), 0.15) << s.model << " " << p.gpus;
      }
      m.push_back(p.microbatches);
      measured.push_back(p.measured_s());
      flat.push_back(p.predicted_s[0]);
    }
    EXPECT_GT(s.points.front().microbatches, s.points.back().microbatches);
    const double meas = s.measured_change();
    const double v1 = s.predicted_change(0);
    const double vi = s.predicted_change(1);
    std::printf("%s change: measured %+.1f%%, v1 %+.1f%%, v%d %+.1f%%\n", s.model.c_str(),
                100 * meas, 100 * v1, s.v_interleaved, 100 * vi);
    EXPECT_LT(v1, vi) << s.model;  // interleaving shrinks the fill and drain
    EXPECT_LE(v1, meas + 0.005) << s.model;
    EXPECT_GE(vi, meas - 0.005) << s.model;
    EXPECT_LE(v1 / meas, 1.5) << s.model;
    // The fixed part of the iteration in micro-batches (c / a), measured and modelled.
    const TimeFit fm = fit_time(m, measured);
    const TimeFit fp = fit_time(m, flat);
    std::printf("%s fit: measured a %.4f s c %.2f s (c/a %.1f), v1 a %.4f s c %.2f s (c/a %.1f)\n",
                s.model.c_str(), fm.per_microbatch_s, fm.fixed_s, fm.fixed_s / fm.per_microbatch_s,
                fp.per_microbatch_s, fp.fixed_s, fp.fixed_s / fp.per_microbatch_s);
    EXPECT_GT(fm.fixed_s, 0.0) << s.model;
    EXPECT_LE(fp.fixed_s / fp.per_microbatch_s, 1.5 * fm.fixed_s / fm.per_microbatch_s) << s.model;
  }
}

// A straight line through its points is fitted exactly.
TEST(Validation, TimeFitRecoversALine) {
  const TimeFit f = fit_time({96, 192, 384}, {0.2 * 96 + 2.5, 0.2 * 192 + 2.5, 0.2 * 384 + 2.5});
  EXPECT_NEAR(f.per_microbatch_s, 0.2, 1e-12);
  EXPECT_NEAR(f.fixed_s, 2.5, 1e-9);
}

// The paper's own explanations of Table 4, as mechanisms: full recompute costs more than one
// extra forward because the recomputed forward's all-reduces overlap nothing; SP adds the
// repeated backward all-gather.
TEST(Validation, Table4MechanismsAreModelled) {
  const HardwareProfile a100 = profile("a100-sxm-80gb");
  StepOptions o;
  o.flash_attention = false;
  auto layer = [&](bool sp, Recompute r) {
    Workload w = gpt(48, 6144, 64, 2048, 51200, 4);
    w.micro_batch = 4;
    w.sequence_parallel = sp;
    w.recompute = r;
    return AnalyticStepModel(w, Layout{8, 1, 1, 1}, a100, o).layer_times(8);
  };
  const LayerTimes base = layer(false, Recompute::kNone);
  const LayerTimes full = layer(false, Recompute::kFull);
  const LayerTimes sp = layer(true, Recompute::kNone);
  // Recompute adds the whole forward, its collectives exposed.
  EXPECT_NEAR(full.backward_s - base.backward_s, base.forward_s, 1e-9);
  // Backward TP all-reduces are partly exposed (the collective takes SMs from the GEMM).
  Workload w = gpt(48, 6144, 64, 2048, 51200, 4);
  w.micro_batch = 4;
  w.sequence_parallel = false;
  w.recompute = Recompute::kNone;
  HardwareProfile free_sms = a100;
  free_sms.scale_up.comm_sms = 0;
  const LayerTimes hidden = AnalyticStepModel(w, Layout{8, 1, 1, 1}, free_sms, o).layer_times(8);
  EXPECT_GT(base.backward_s, hidden.backward_s);
  // SP: less memory-bound work than the baseline in both directions, but backward pays the
  // exposed all-gathers, so it saves less there than forward does.
  EXPECT_LT(sp.forward_s, base.forward_s);
  EXPECT_LT(base.backward_s - sp.backward_s, base.forward_s - sp.forward_s);
}

// Every configuration ran on 80 GB GPUs, so the memory model must let it fit.
TEST(Validation, PublishedLayoutsFit) {
  const HardwareProfile a100 = profile("a100-sxm-80gb");
  struct L {
    int layers, hidden, heads, pp, vp, batch, micro;
  };
  for (const L& c : {L{48, 6144, 64, 1, 1, 4, 4}, L{96, 12288, 96, 8, 3, 64, 1},
                     L{105, 20480, 128, 35, 3, 280, 1}, L{128, 25600, 160, 64, 1, 512, 1},
                     // Narayanan et al. 2021 Table 2: 175B at TP 8 x PP 12, either schedule.
                     L{96, 12288, 96, 12, 1, 384, 1}, L{96, 12288, 96, 12, 2, 384, 1}}) {
    for (const bool present : {false, true}) {
      Workload w = gpt(c.layers, c.hidden, c.heads, 2048, 51200, c.batch);
      w.micro_batch = c.micro;
      w.recompute = present ? Recompute::kSelective : Recompute::kFull;
      w.sequence_parallel = present;
      EXPECT_TRUE(memory_at(w, Layout{8, c.pp, 1, c.vp}, a100, 8, false).fits()) << c.hidden;
    }
  }
}

// Llama 3 405B on H100 (arXiv 2407.21783, Table 4) with Meta's schedule (interleaved, the
// embedding and loss counted as layers). Agrees: the throughput change from DP 64 to DP 128 (the
// micro-batches per replica halve) within 2 points of the measured -7.0%. Known difference
// (docs/VALIDATION.md, "Where ntpsim differs"): the level is 20-40% above the measured TFLOP/s
// at both points, the work per micro-batch being faster than measured; a change that moves it
// outside that band must revisit the explanation. The context-parallel row is a known
// difference too (its bounds below).
TEST(Validation, Llama3On16kH100) {
  const auto points = llama3_step_validation(profile("h100-sxm"));
  ASSERT_EQ(points.size(), 3u);
  for (const auto& p : points) {
    std::printf("%-26s m %3d measured %.0f TFLOP/s predicted %.1f (%+.1f%%)\n", p.name.c_str(),
                p.microbatches, p.measured_tflops, p.predicted_tflops, 100 * p.error());
  }
  EXPECT_EQ(points[0].microbatches, 32);
  EXPECT_EQ(points[1].microbatches, 16);
  const double measured = points[1].measured_tflops / points[0].measured_tflops - 1.0;
  const double predicted = points[1].predicted_tflops / points[0].predicted_tflops - 1.0;
  EXPECT_NEAR(predicted, measured, 0.02);
  for (int i = 0; i < 2; ++i) {
    EXPECT_GT(points[i].error(), 0.20) << points[i].name;
    EXPECT_LT(points[i].error(), 0.40) << points[i].name;
  }
  // Context parallelism (CP 16, DP 8, sequence 131,072; K and V all-gathered as Meta does):
  // on ntpsim's FLOP count, whose attention scores (counted in full) are most of the work at
  // this length, the same too-fast level and more; the exposed exchange is a small part.
  const Llama3StepPoint& x = points[2];
  EXPECT_EQ(x.cp, 16);
  EXPECT_EQ(x.microbatches, 16);
  EXPECT_GT(x.error(), 0.40);
  EXPECT_LT(x.error(), 0.75);
  EXPECT_GT(x.predicted_cp_comm_s, 0.0);
  EXPECT_LT(x.predicted_cp_comm_s, 0.1 * x.predicted_s);
  // Without the interleaved schedule the fill and drain of 16 stages dominate at m = 16: the
  // response would be several times the measured one.
  Workload w;
  w.layers = 126;
  w.hidden = 16384;
  w.heads = 128;
  w.kv_heads = 8;
  w.ffn = 53248;
  w.vocab = 128256;
  w.seq_len = 8192;
  w.global_batch = 2048;
  w.recompute = Recompute::kSelective;
  const AnalyticStepModel dp64(w, Layout{8, 16, 64, 1}, profile("h100-sxm"));
  const AnalyticStepModel dp128(w, Layout{8, 16, 128, 1}, profile("h100-sxm"));
  const double v1 = dp64.breakdown(8, 1.0, 1.0).iteration_s * 0.5 /
                        dp128.breakdown(8, 1.0, 1.0).iteration_s -
                    1.0;
  EXPECT_LT(v1, 2.0 * measured);
}

// The FLOP counts a published TFLOP/s may use, each checked against a published figure: NeMo's
// Llama 3.1 405B row on H100 is the causal count, and 6 N x 15.6T tokens is Meta's 3.8e25-FLOP
// budget for Llama 3 405B. Compared on a count smaller than ntpsim's, the Llama 3 difference
// narrows (it never widens), and stays a known difference on the smallest.
TEST(Validation, Llama3FlopCounts) {
  const FlopCounts f = training_flops_per_token(llama3_405b_table4(8192));
  EXPECT_GT(f.full, f.causal);
  EXPECT_GT(f.causal, f.six_n);
  const double nemo = kNemoLlama405bH100.tflops * 1e12 / kNemoLlama405bH100.tokens_per_s;
  EXPECT_NEAR(nemo / f.causal, 1.0, 0.005);            // 302 tokens/s is printed to 0.2%
  EXPECT_LT(nemo / f.full, 0.98);                      // not the full count (about 4% above it)
  EXPECT_NEAR(f.six_n * 15.6e12 / 3.8e25, 1.0, 0.02);  // 3.8e25 is printed to 2 digits
  const auto points = llama3_step_validation(profile("h100-sxm"));
  ASSERT_EQ(points.size(), 3u);
  for (int i = 0; i < 2; ++i) {
    const Llama3StepPoint& p = points[static_cast<size_t>(i)];
    EXPECT_NEAR(p.error_on(f.full), p.error(), 1e-9) << p.name;
    EXPECT_LT(p.error_on(f.causal), p.error()) << p.name;
    EXPECT_LT(p.error_on(f.six_n), p.error_on(f.causal)) << p.name;
    EXPECT_GT(p.error_on(f.six_n), 0.20) << p.name;
  }
  // The context-parallel row at sequence 131,072, where the attention scores are most of the
  // work and the counts differ most.
  const Llama3StepPoint& x = points[2];
  const FlopCounts g = training_flops_per_token(llama3_405b_table4(x.seq_len));
  std::printf(
      "%s: %+.1f%% (ntpsim's count), %+.1f%% (causal), %+.1f%% (6N); CP exchange %.3f s "
      "of %.3f s\n",
      x.name.c_str(), 100 * x.error_on(g.full), 100 * x.error_on(g.causal),
      100 * x.error_on(g.six_n), x.predicted_cp_comm_s, x.predicted_s);
  EXPECT_NEAR(x.error_on(g.full), x.error(), 1e-9);
  EXPECT_GT(x.error_on(g.causal), 0.05);
  EXPECT_LT(x.error_on(g.causal), 0.20);
  EXPECT_LT(x.error_on(g.six_n), -0.20);
}

}  // namespace
}  // namespace ntpsim::models
