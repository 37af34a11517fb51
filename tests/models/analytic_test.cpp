// The analytic step model: pipeline bubbles, uneven TP, DP and reshard costs, power inversion,
// monotonicity, the factory (models/analytic_step_model.h).
#include <gtest/gtest.h>

#include <cmath>

#include "models/analytic_step_model.h"
#include "tests/models/test_workloads.h"

namespace ntpsim::models {
namespace {

using testing::gpt;
using testing::profile;

// The fill/drain time a stage of `layers_per_stage` layers waits in a p-stage, v-chunk schedule
// (Narayanan et al. 2021, section 2.2): the first micro-batch's forward and backward through
// the other p - 1 stages' first chunks, one send/recv per hop. pp_comm_s is m x 2v hops.
double expected_bubble_s(const AnalyticStepModel& m, const StepBreakdown& b, int layers_per_stage,
                         int p, int v) {
  const LayerTimes lt = m.layer_times(b.tp);
  const double hop = b.pp_comm_s / (2.0 * v * b.microbatches);
  return (p - 1) * layers_per_stage / static_cast<double>(v) * (lt.forward_s + lt.backward_s) +
         2.0 * (p - 1) * hop;
}

TEST(Analytic, OneFOneBBubbleFraction) {
  const Workload w = gpt(48, 8192, 64, 4096, 51200, 64);  // m = 64 micro-batches per replica
  for (int p : {2, 4, 8}) {
    const AnalyticStepModel m(w, Layout{8, p, 1, 1}, profile("h100-sxm"));
    const StepBreakdown b = m.breakdown(8, 1.0, 1.0);
    const LayerTimes lt = m.layer_times(8);
    // (p - 1) / m of the stage's layer work and send/recv: the LM head is not on the fill path.
    const double layer_work = 64 * (48 / p) * (lt.forward_s + lt.backward_s) + b.pp_comm_s;
    EXPECT_NEAR(b.bubble_s / layer_work, (p - 1) / 64.0, 1e-12) << p;
    EXPECT_NEAR(b.bubble_s, expected_bubble_s(m, b, 48 / p, p, 1), 1e-12 * b.bubble_s) << p;
    // The head makes the last stage's micro-batch longer than its layers: the bubble is less
    // than (p - 1) / m of the whole per-micro-batch work.
    EXPECT_LT(b.bubble_s, (p - 1) / 64.0 * (b.compute_s + b.tp_comm_s + b.pp_comm_s)) << p;
  }
}

TEST(Analytic, InterleavedBubbleFraction) {
  const Workload w = gpt(48, 8192, 64, 4096, 51200, 32);
  const AnalyticStepModel plain(w, Layout{8, 8, 1, 1}, profile("h100-sxm"));
  const StepBreakdown b1 = plain.breakdown(8, 1.0, 1.0);
  for (int v : {2, 3, 6}) {
    const AnalyticStepModel m(w, Layout{8, 8, 1, v}, profile("h100-sxm"));
    const StepBreakdown b = m.breakdown(8, 1.0, 1.0);
    EXPECT_NEAR(b.bubble_s, expected_bubble_s(m, b, 6, 8, v), 1e-12 * b.bubble_s) << v;
    // The layer part of the bubble is 1/v of 1F1B's; the 2(p - 1) hops stay (each is one
    // chunk boundary, the same tensor at any v).
    const double hops = 2.0 * 7 * b.pp_comm_s / (2.0 * v * 32);
    const double hops1 = 2.0 * 7 * b1.pp_comm_s / (2.0 * 32);
    EXPECT_NEAR(hops, hops1, 1e-12 * hops);
    EXPECT_NEAR((b.bubble_s - hops) * v, b1.bubble_s - hops1, 1e-9 * b1.bubble_s) << v;
  }
  // No pipeline, no bubble and no send/recv.
  const AnalyticStepModel flat(w, Layout{8, 1, 1, 1}, profile("h100-sxm"));
  EXPECT_EQ(flat.breakdown(8, 1.0, 1.0).bubble_s, 0.0);
  EXPECT_EQ(flat.breakdown(8, 1.0, 1.0).pp_comm_s, 0.0);
}

TEST(Analytic, UnevenStagesFillFromTheOtherStagesLayers) {
  // 50 layers on 8 stages: the busiest holds 7; the other seven hold 43 between them, and the
  // fill/drain passes through those 43 / v layers (not 7 x 7).
  const Workload w = gpt(50, 8192, 64, 4096, 51200, 32);
  for (int v : {1, 2}) {
    const AnalyticStepModel m(w, Layout{8, 8, 1, v}, profile("h100-sxm"));
    const StepBreakdown b = m.breakdown(8, 1.0, 1.0);
    const LayerTimes lt = m.layer_times(8);
    const double hop = b.pp_comm_s / (2.0 * v * 32);
    EXPECT_NEAR(b.bubble_s, 43.0 / v * (lt.forward_s + lt.backward_s) + 14.0 * hop,
                1e-12 * b.bubble_s)
        << v;
  }
}

TEST(Analytic, MegatronPipelineSplitOptions) {
  Workload w = gpt(126, 16384, 128, 8192, 128256, 2048);
  // Llama 3 405B's split: the embedding and the loss each count as a layer, 128 slots over 16
  // stages of 8 chunks of one.
  Layout l{8, 16, 64, 8};
  l.account_for_embedding = true;
  l.account_for_loss = true;
  EXPECT_TRUE(check_pipeline_split(w, l).field.empty());
  StageLayers s = stage_layers(w, l);
  EXPECT_EQ(s.first, 7);
  EXPECT_EQ(s.middle, 8);
  EXPECT_EQ(s.last, 7);
  // One counted part only: 127 slots do not split over 16 stages (Megatron-LM's assertion).
  l.account_for_loss = false;
  EXPECT_EQ(check_pipeline_split(w, l).field, "pp");
  // Eight slots per stage do not split into 3 chunks.
  l.account_for_loss = true;
  l.virtual_stages = 3;
  EXPECT_EQ(check_pipeline_split(w, l).field, "virtual_stages");
  // Uneven first/last stage: the other 14 stages share the rest evenly.
  Layout u{8, 16, 64, 1};
  u.first_stage_layers = 6;
  u.last_stage_layers = 8;
  EXPECT_TRUE(check_pipeline_split(w, u).field.empty());
  s = stage_layers(w, u);
  EXPECT_EQ(s.first, 6);
  EXPECT_EQ(s.middle, 8);
  EXPECT_EQ(s.last, 8);
  u.last_stage_layers = 7;  // 113 layers over 14 stages
  EXPECT_EQ(check_pipeline_split(w, u).field, "decoder_first_pipeline_num_layers");
  u.last_stage_layers = 8;
  u.account_for_loss = true;  // Megatron-LM supports one or the other
  EXPECT_FALSE(check_pipeline_split(w, u).field.empty());
  // Without options every stage is charged the busiest stage's ceil(L / p).
  s = stage_layers(w, Layout{8, 16, 64, 1});
  EXPECT_EQ(s.first, 8);
  EXPECT_EQ(s.last, 8);
}

TEST(Analytic, CountedEmbeddingAndLossMakeAMiddleStageTheBusiest) {
  // Llama 3 405B split: the first and last stages hold 7 layers beside the embedding and the
  // LM head + loss, the middle stages 8. The LM head is cheaper than a layer, so a middle
  // stage sets the pace: the steady phase is m x 8 layers, and the fill and drain pass through
  // 1/v of the other 118 layers and the head.
  Workload w = gpt(126, 16384, 128, 8192, 128256, 2048);
  w.kv_heads = 8;
  w.ffn = 53248;
  w.gated_ffn = true;
  Layout l{8, 16, 64, 8};
  l.account_for_embedding = true;
  l.account_for_loss = true;
  const AnalyticStepModel m(w, l, profile("h100-sxm"));
  const StepBreakdown b = m.breakdown(8, 1.0, 1.0);
  const LayerTimes lt = m.layer_times(8);
  const double layer = lt.forward_s + lt.backward_s;
  EXPECT_NEAR(b.compute_s + b.tp_comm_s, 32 * 8 * layer, 1e-9 * b.compute_s);
  const double hop = b.pp_comm_s / (2.0 * 8 * 32);
  const double fill = b.bubble_s - 30.0 * hop;
  EXPECT_GT(fill, 118.0 / 8 * layer);       // the other stages' layers ...
  EXPECT_LT(fill, 119.0 / 8 * layer);       // ... and a head cheaper than a layer
  // The same layers split evenly over 16 stages without counting (ceil(126/16) = 8 per stage,
  // one chunk each): the last stage holds 8 layers and the head, and it sets the pace.
  const AnalyticStepModel plain(w, Layout{8, 16, 64, 1}, profile("h100-sxm"));
  const StepBreakdown p = plain.breakdown(8, 1.0, 1.0);
  EXPECT_GT(p.compute_s + p.tp_comm_s, b.compute_s + b.tp_comm_s);
}

TEST(Analytic, StepTimeScalesWithMicroBatchesAsTheSchedule) {
  // Fewer micro-batches per replica at the same layout (the global batch shrinks, DP 1: no DP
  // sync): the step is m x (one micro-batch on the busiest stage) + a fill/drain that does not
  // depend on m + the optimizer step. Per micro-batch, the time then grows as
  // 1 + (p - 1)/(v m) x (layer share), Narayanan et al. 2021's 1F1B and interleaved relations.
  const int p = 8;
  for (int v : {1, 2, 4}) {
    double per_micro = 0;
    double fixed = 0;
    for (int m_count : {8, 16, 32, 64}) {
      const Workload w = gpt(48, 8192, 64, 4096, 51200, m_count);
      const AnalyticStepModel m(w, Layout{8, p, 1, v}, profile("h100-sxm"));
      const StepBreakdown b = m.breakdown(8, 1.0, 1.0);
      ASSERT_EQ(b.microbatches, m_count);
      const double micro = (b.compute_s + b.tp_comm_s + b.pp_comm_s) / m_count;
      if (per_micro == 0) {
        per_micro = micro;
        fixed = b.bubble_s + b.optimizer_s;
      }
      // Per-micro-batch work and the fill/drain + optimizer are the same at every m.
      EXPECT_NEAR(micro, per_micro, 1e-12 * per_micro) << v << " " << m_count;
      EXPECT_NEAR(b.bubble_s + b.optimizer_s, fixed, 1e-12 * fixed) << v << " " << m_count;
      EXPECT_NEAR(b.iteration_s, m_count * per_micro + fixed, 1e-12 * b.iteration_s);
      // The bubble's share of the schedule: (p - 1) / (v m) of the layer work and send/recv.
      const LayerTimes lt = m.layer_times(8);
      const double layer_work = m_count * 6 * (lt.forward_s + lt.backward_s) + b.pp_comm_s;
      const double hops = 2.0 * (p - 1) * b.pp_comm_s / (2.0 * v * m_count);
      EXPECT_NEAR((b.bubble_s - hops) / (layer_work - b.pp_comm_s),
                  (p - 1) / static_cast<double>(v * m_count), 1e-12)
          << v << " " << m_count;
    }
  }
  // Interleaving divides the m-dependent loss by about v: the throughput lost going from m = 64
  // to m = 8 at v = 2 is a little over half of v = 1's, at v = 4 a little over a quarter (the
  // 2(p - 1) fill/drain hops do not shrink with v, and each micro-batch sends 2v of them).
  auto loss = [&](int v) {
    auto it = [&](int m_count) {
      const Workload w = gpt(48, 8192, 64, 4096, 51200, m_count);
      const AnalyticStepModel m(w, Layout{8, p, 1, v}, profile("h100-sxm"));
      return m.breakdown(8, 1.0, 1.0).iteration_s / m_count;
    };
    return it(8) / it(64) - 1.0;
  };
  const double l1 = loss(1);
  EXPECT_GT(l1, 0.5);  // (p - 1)/8 - (p - 1)/64 = 0.77 of a mostly-layer micro-batch
  EXPECT_GT(loss(2) / l1, 0.5);
  EXPECT_LT(loss(2) / l1, 0.6);
  EXPECT_GT(loss(4) / l1, 0.25);
  EXPECT_LT(loss(4) / l1, 0.35);
}

TEST(Analytic, UnevenHeadsCostTheBusiestGpu) {
  // 128 heads over 30 GPUs: the busiest holds 5 (not 4.27); its attention work grows 25%.
  const Workload w = gpt(100, 20480, 128, 16384, 128256, 1024);
  const AnalyticStepModel m(w, Layout{32, 8, 125, 1}, profile("ntp-b200-nvl32"));
  const double c32 = m.breakdown(32, 1.0, 1.0).compute_s;
  const double c30 = m.breakdown(30, 1.0, 1.0).compute_s;
  const double c31 = m.breakdown(31, 1.0, 1.0).compute_s;
  EXPECT_GT(c30 / c32, 32.0 / 30.0);  // worse than an even split
  EXPECT_LT(c30 / c32, 1.25);         // but only the head-sharded part grows by 5/4
  EXPECT_GT(c31 / c32, 32.0 / 31.0);
  // TP31 holds the same ceil(128/31) = 5 heads as TP30: nearly the same time.
  EXPECT_NEAR(c31 / c30, 1.0, 0.02);
}

// Dropout's traffic by hand (flash attention, SP at TP 8, no recompute): forward, the two
// dropouts fused into the residual adds write one 1-byte mask per element of the hidden shard
// each; backward, two dropout-backward kernels read the gradient and the mask and write the
// input gradient (2.25 elements each) and pay the per-kernel cost.
TEST(Analytic, DropoutTrafficByHand) {
  Workload with = gpt(4, 8192, 64, 4096, 32000, 64);
  with.recompute = Recompute::kNone;
  Workload without = with;
  without.dropout = false;
  const HardwareProfile h = profile("h100-sxm");
  const Layout l{8, 1, 8, 1};
  const LayerTimes on = AnalyticStepModel(with, l, h).layer_times(8);
  const LayerTimes off = AnalyticStepModel(without, l, h).layer_times(8);
  const double shard = 8192.0 * 4096 / 8;  // hidden elements on one GPU for one micro-batch
  const double bw = h.hbm_bw_Bps * h.gemm.hbm_efficiency;
  EXPECT_NEAR(on.forward_s - off.forward_s, 2.0 * 1.0 * shard / bw, 1e-12);
  EXPECT_NEAR(on.backward_s - off.backward_s, 2.0 * 4.5 * shard / bw + 2 * h.gemm.overhead_s,
              1e-12);
  // The unfused path also drops the attention dropout: 5 B per score each way and one kernel.
  StepOptions unfused;
  unfused.flash_attention = false;
  const LayerTimes uon = AnalyticStepModel(with, l, h, unfused).layer_times(8);
  const LayerTimes uoff = AnalyticStepModel(without, l, h, unfused).layer_times(8);
  const double scores = 64.0 / 8 * 4096.0 * 4096.0;  // heads on the GPU x s x s, one sequence
  EXPECT_NEAR(uon.forward_s - uoff.forward_s,
              (2.0 * 1.0 * shard + 5.0 * scores) / bw + h.gemm.overhead_s, 1e-12);
}

TEST(Analytic, MonotoneInShareTpAndPower) {
  const Workload w = gpt(100, 20480, 128, 16384, 128256, 1024);
  const AnalyticStepModel m(w, Layout{32, 8, 125, 1}, profile("ntp-b200-nvl32"));
  for (int t : {32, 30, 28, 24}) {
    double prev = 0;
    for (double x : {0.2, 0.5, 0.8, 0.9, 1.0}) {
      const double it = m.replica_iteration_s(t, x, 1.0);
      EXPECT_GE(it, prev) << t << " " << x;
      prev = it;
    }
    EXPECT_LE(m.replica_iteration_s(t, 1.0, 1.2), m.replica_iteration_s(t, 1.0, 1.0));
    EXPECT_LE(m.replica_iteration_s(t, 1.0, 1.3), m.replica_iteration_s(t, 1.0, 1.2));
  }
  EXPECT_GE(m.replica_iteration_s(28, 1.0, 1.0), m.replica_iteration_s(30, 1.0, 1.0));
  EXPECT_GE(m.replica_iteration_s(30, 1.0, 1.0), m.replica_iteration_s(32, 1.0, 1.0));
}

TEST(Analytic, PowerInversionMeetsTheTarget) {
  // 120 heads over 32 GPUs (4 each) and over 28 (5 on the busiest).
  const Workload w = gpt(64, 15360, 120, 8192, 51200, 1024);
  StepOptions o;
  o.tp_overlap = 0.9;
  const AnalyticStepModel m(w, Layout{32, 4, 8, 1}, profile("ntp-b200-nvl32"), o);
  const double target = m.healthy_iteration_s();
  const double r = power_ratio_for(m, 28, 1.0, target);
  ASSERT_GT(r, 1.0);
  ASSERT_LE(r, m.max_power_ratio());
  EXPECT_NEAR(m.replica_iteration_s(28, 1.0, r) / target, 1.0, 1e-5);
  EXPECT_GT(m.replica_iteration_s(28, 1.0, r * 0.999), target);
  // Fewer GPUs need more power.
  EXPECT_GT(power_ratio_for(m, 24, 1.0, target), r);
  // The share at TDP is the largest whose time meets the target: the time can jump there (a
  // GEMM's tile count steps with the micro-batch's tokens), so it may be below the target.
  const double x = max_batch_share(m, 28, 1.0, target);
  EXPECT_LT(x, 1.0);
  EXPECT_LE(m.replica_iteration_s(28, x, 1.0), target);
  EXPECT_GT(m.replica_iteration_s(28, x + 2e-7, 1.0), target);
}

TEST(Analytic, DataParallelCommunicationByHand) {
  const Workload w = gpt(32, 8192, 64, 4096, 51200, 512);
  const HardwareProfile h = profile("h100-sxm");
  StepOptions no_overlap;
  no_overlap.overlap_grad_reduce = false;
  no_overlap.overlap_param_gather = false;
  const AnalyticStepModel one(w, Layout{8, 4, 1, 1}, h, no_overlap);
  EXPECT_EQ(one.breakdown(8, 1.0, 1.0).dp_comm_s, 0.0);
  const AnalyticStepModel many(w, Layout{8, 4, 16, 1}, h, no_overlap);
  // Last stage: 8 layers of 12h²/8 + 2h plus the LM head's 51200/8 rows.
  const double hd = 8192;
  const double params = 8 * (12 * hd * hd / 8 + 2 * hd) + 6400 * hd;
  const double bw = 50e9 * 0.85;
  const double rs = 15 * 6e-6 + 4 * params * (15.0 / 16) / bw;
  const double ag = 15 * 6e-6 + 2 * params * (15.0 / 16) / bw;
  EXPECT_NEAR(many.breakdown(8, 1.0, 1.0).dp_comm_s, rs + ag, 1e-9);
  // Bucketed overlap hides part of it, never the last gradient bucket and the first weight
  // bucket (40M parameters each at DP 16).
  const AnalyticStepModel hidden(w, Layout{8, 4, 16, 1}, h);
  const double last_rs = 15 * 6e-6 + 4 * 40e6 * (15.0 / 16) / bw;
  const double first_ag = 15 * 6e-6 + 2 * 40e6 * (15.0 / 16) / bw;
  EXPECT_LT(hidden.breakdown(8, 1.0, 1.0).dp_comm_s, rs + ag);
  EXPECT_GE(hidden.breakdown(8, 1.0, 1.0).dp_comm_s, last_rs + first_ag - 1e-12);
  // Without the distributed optimizer: one all-reduce of the fp32 gradients.
  StepOptions plain = no_overlap;
  plain.distributed_optimizer = false;
  const AnalyticStepModel ar(w, Layout{8, 4, 16, 1}, h, plain);
  EXPECT_NEAR(ar.breakdown(8, 1.0, 1.0).dp_comm_s, 30 * 6e-6 + 4 * params * (30.0 / 16) / bw, 1e-9);
  // An oversubscribed spine slows the ring once its ranks span several leaves: 16 replicas of
  // 32 GPUs over 8-GPU domains reach 64 domains, 4 leaves of 16; factor max(1, 2 x 4 / 16) = 1,
  // while one domain per leaf gives 16 leaves: factor 2 on the bandwidth term.
  HardwareProfile tree = h;
  tree.scale_out.oversubscription = 2.0;
  tree.scale_out.domains_per_leaf = 16;
  EXPECT_NEAR(
      AnalyticStepModel(w, Layout{8, 4, 16, 1}, tree, no_overlap).breakdown(8, 1.0, 1.0).dp_comm_s,
      rs + ag, 1e-9);
  tree.scale_out.domains_per_leaf = 1;
  EXPECT_NEAR(
      AnalyticStepModel(w, Layout{8, 4, 16, 1}, tree, no_overlap).breakdown(8, 1.0, 1.0).dp_comm_s,
      rs + ag + (rs - 15 * 6e-6) + (ag - 15 * 6e-6), 1e-9);
}

TEST(Analytic, ReshardByHand) {
  const Workload w = gpt(100, 20480, 128, 16384, 128256, 1024);
  const HardwareProfile h = profile("ntp-b200-nvl32");
  const AnalyticStepModel m(w, Layout{32, 8, 125, 1}, h);
  EXPECT_EQ(m.reshard_overhead_s(32), 0.0);
  // 13 layers of 12h²/32 + 2h and ceil(128256/32) vocab rows; fp32 gradients; each of the 2
  // extra ranks sends its shard over NVLink (900 GB/s × 0.8), before and after the DP sync.
  const double hd = 20480;
  const double shard = 4.0 * (13 * (12 * hd * hd / 32 + 2 * hd) + 4008 * hd);
  EXPECT_NEAR(m.reshard_overhead_s(30), 2 * (2 * 3e-6 + shard / 720e9), 1e-9);
  // NVIDIA reports the reshard under 1% of an iteration (REFERENCES.md).
  EXPECT_LT(m.reshard_overhead_s(30) / m.healthy_iteration_s(), 0.01);
}

TEST(Analytic, FactorySelectsByName) {
  const Workload w = gpt(32, 4096, 32, 4096, 32000, 256);
  const Layout l{8, 1, 32, 1};
  const HardwareProfile h = profile("h100-sxm");
  auto a = make_step_model("analytic", w, l, h);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ((*a)->name(), "analytic");
  auto p = make_step_model("proportional", w, l, h);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->name(), "proportional");
  auto bad = make_step_model("analytical", w, l, h);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().exit_code, ExitCode::kBadInput);
  Workload fp8 = w;
  fp8.dtype = DType::kFP8;
  EXPECT_FALSE(make_step_model("analytic", fp8, l, profile("a100-sxm-80gb")).ok());
  EXPECT_TRUE(make_step_model("analytic", fp8, l, h).ok());
}

TEST(Analytic, MfuAndThroughputAreConsistent) {
  const Workload w = gpt(32, 4096, 32, 4096, 32000, 256);
  const HardwareProfile h = profile("h100-sxm");
  const AnalyticStepModel m(w, Layout{4, 2, 8, 1}, h);
  const StepBreakdown b = m.breakdown(4, 1.0, 1.0);
  const double gpus = 8;
  EXPECT_NEAR(b.tokens_per_s_per_gpu, w.tokens_per_iteration() / 8 / (b.iteration_s * gpus), 1e-6);
  EXPECT_NEAR(b.mfu, b.model_flops / (b.iteration_s * gpus * 989e12), 1e-12);
  EXPECT_GT(b.mfu, 0.2);
  EXPECT_LT(b.mfu, 0.8);
  // Energy accounting: between the communication and compute power at TDP.
  EXPECT_GT(m.gpu_power_w(1.0), 0.6 * 700);
  EXPECT_LE(m.gpu_power_w(1.0), 700);
}

}  // namespace
}  // namespace ntpsim::models

namespace ntpsim::models {
namespace {

TEST(Analytic, DamagedReplicaTimeNonIncreasingInTp) {
  // Tile quantization and per-step latencies make the plain degree-t cost bumpy; a replica with
  // t GPUs runs at the fastest degree up to t, so its time never rises as t grows below T.
  YamlContext ctx("test");
  const std::vector<std::string> dirs{std::string(NTPSIM_SOURCE_DIR) + "/models/workloads"};
  for (const char* name : {"gpt3-175b", "llama3-70b", "ntp-480b"}) {
    auto w = read_workload(YAML::Node(name), "workload", ctx, dirs);
    ASSERT_TRUE(w.ok()) << w.error().message;
    const AnalyticStepModel m(*w, Layout{72, 4, 8, 1}, testing::profile("gb200-nvl72"));
    for (int t = m.min_tp(); t + 1 < 72; ++t) {
      EXPECT_GE(m.replica_iteration_s(t, 1.0, 1.0), m.replica_iteration_s(t + 1, 1.0, 1.0))
          << name << " t=" << t;
      EXPECT_LE(m.effective_tp(t), t);
      EXPECT_GE(m.effective_tp(t), m.min_tp());
    }
    EXPECT_EQ(m.effective_tp(72), 72);
  }
}

}  // namespace
}  // namespace ntpsim::models

namespace ntpsim::models {
namespace {

TEST(Analytic, Fp8SpeedsGemmsButNotAttentionOrCommunication) {
  Workload w = testing::gpt(32, 8192, 64, 8192, 51200, 256);
  const HardwareProfile h = testing::profile("h100-sxm");
  const Layout l{8, 2, 8, 1};
  const StepBreakdown bf16 = AnalyticStepModel(w, l, h).breakdown(8, 1.0, 1.0);
  w.dtype = DType::kFP8;
  const StepBreakdown fp8 = AnalyticStepModel(w, l, h).breakdown(8, 1.0, 1.0);
  EXPECT_LT(fp8.compute_s, bf16.compute_s);
  EXPECT_GT(fp8.compute_s, 0.5 * bf16.compute_s);  // attention and memory-bound kernels remain
  EXPECT_NEAR(fp8.tp_comm_s, bf16.tp_comm_s, 1e-12 + 0.5 * bf16.tp_comm_s);
}

}  // namespace
}  // namespace ntpsim::models

namespace ntpsim::models {
namespace {

TEST(Analytic, MeasuredGemmTableDrivesComputeTime) {
  const Workload w = testing::gpt(32, 8192, 64, 4096, 51200, 256);
  HardwareProfile h = testing::profile("h100-sxm");
  const Layout l{8, 2, 8, 1};
  const double spec = AnalyticStepModel(w, l, h).breakdown(8, 1.0, 1.0).compute_s;
  // A measured table at half the spec efficiency everywhere slows the GEMM part down.
  h.gemm.table = {GemmPoint{1024, 1024, 1024, 0.4 * 989e12},
                  GemmPoint{16384, 16384, 16384, 0.4 * 989e12}};
  const double measured = AnalyticStepModel(w, l, h).breakdown(8, 1.0, 1.0).compute_s;
  EXPECT_GT(measured, 1.5 * spec);
  EXPECT_LT(measured, 2.2 * spec);
}

TEST(Analytic, GpuPowerRisesWithThePowerRatio) {
  const Workload w = testing::gpt(32, 8192, 64, 4096, 51200, 256);
  const AnalyticStepModel m(w, Layout{8, 2, 8, 1}, testing::profile("gb200-nvl72"));
  double prev = 0;
  for (double r : {0.8, 1.0, 1.1, 1.2, 1.3}) {
    const double p = m.gpu_power_w(r);
    EXPECT_GT(p, prev) << r;
    EXPECT_LE(p, 1200 * r + 1e-9);
    prev = p;
  }
}

}  // namespace
}  // namespace ntpsim::models
