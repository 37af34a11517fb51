// Memory model and checkpoint model against hand computation.
#include <gtest/gtest.h>

#include "models/checkpoint_model.h"
#include "models/memory_model.h"
#include "models/transformer_shapes.h"
#include "tests/models/test_workloads.h"

namespace ntpsim::models {
namespace {

using testing::gpt;
using testing::profile;

// GPT-3 175B as Korthikanti et al. 2022 ran it: TP8 x PP8, 3 interleaved chunks, batch 64.
TEST(Memory, Gpt3OnA100ByHand) {
  const Workload w = gpt(96, 12288, 96, 2048, 51200, 64);  // selective recompute, SP
  const Layout l{8, 8, 1, 3};
  const HardwareProfile h = profile("a100-sxm-80gb");
  const double hd = 12288, s = 2048;
  // First stage: 12 layers of 12h²/8 + 2h weights, plus 51200/8 embedding rows; 18 B/param.
  const double params = 12 * (12 * hd * hd / 8 + 2 * hd) + 6400 * hd;
  // Activations: 34·s·h/t per layer (selective + SP), 8 micro-batches × (1 + 7/24) in flight.
  const double act = 12 * 34 * s * hd / 8 * 8 * (1.0 + 7.0 / 24.0);
  const MemoryBreakdown m = memory_at(w, l, h, 8);
  EXPECT_NEAR(m.weights_bytes, 2 * params, 1.0);
  EXPECT_NEAR(m.gradients_bytes, 4 * params, 1.0);
  EXPECT_NEAR(m.optimizer_bytes, 12 * params, 1.0);
  EXPECT_NEAR(m.activations_bytes, act, 1.0);
  EXPECT_NEAR(m.total_bytes, 18 * params + act, 1.0);
  EXPECT_NEAR(m.usable_bytes, 81920.0 * 1048576 * 0.92 - 3e9, 1.0);
  EXPECT_TRUE(m.fits());  // it ran on 80 GB A100s
}

TEST(Memory, RecomputeModesAndSequenceParallel) {
  Workload w = gpt(1, 12288, 96, 2048, 51200, 1);
  const double s = 2048, hd = 12288, t = 8, a = 96;
  const double tokens = s;
  // Korthikanti et al. 2022, Table 2.
  w.recompute = Recompute::kNone;
  EXPECT_NEAR(layer_activation_bytes(w, 8, tokens, false), s * hd / t * (34 + 5 * a * s / hd), 1.0);
  // Fused attention stores no scores, only its fp32 log-sum-exp per head and token.
  EXPECT_NEAR(layer_activation_bytes(w, 8, tokens), s * hd / t * 34 + 4 * s * a / t, 1.0);
  w.sequence_parallel = false;
  EXPECT_NEAR(layer_activation_bytes(w, 8, tokens, false),
              s * hd * (10 + 24 / t + 5 * a * s / (hd * t)), 1.0);
  w.recompute = Recompute::kSelective;
  EXPECT_NEAR(layer_activation_bytes(w, 8, tokens), s * hd * (10 + 24 / t), 1.0);
  w.recompute = Recompute::kFull;
  EXPECT_NEAR(layer_activation_bytes(w, 8, tokens), 2 * s * hd, 1.0);
}

TEST(Memory, WithoutDropoutNoMasks) {
  Workload w = gpt(1, 12288, 96, 2048, 51200, 1);
  w.dropout = false;
  const double s = 2048, hd = 12288, t = 8, a = 96;
  w.recompute = Recompute::kNone;
  // Korthikanti's 34 less the two 1-byte masks of the hidden dropouts; unfused, the softmax
  // output alone (2 B per score) instead of it, the mask and the dropout output (5 B).
  EXPECT_NEAR(layer_activation_bytes(w, 8, s, false), s * hd / t * (32 + 2 * a * s / hd), 1.0);
  EXPECT_NEAR(layer_activation_bytes(w, 8, s), s * hd / t * 32 + 4 * s * a / t, 1.0);
  w.sequence_parallel = false;
  w.recompute = Recompute::kSelective;
  EXPECT_NEAR(layer_activation_bytes(w, 8, s), s * hd * (8 + 24 / t), 1.0);
}

// Megatron-LM's interleaved warm-up is 2(p - rank - 1) + (v - 1)p chunk forwards, capped at all
// m x v chunks: with as many micro-batches as stages (Llama 3 405B at DP 128: 16 on 16 stages, 8
// chunks), every stage holds every micro-batch of all its layers, not p + (p - 1)/v of them.
TEST(Memory, InterleavedWarmupCappedAtAllChunks) {
  Workload w = gpt(126, 16384, 128, 8192, 128256, 2048);
  w.kv_heads = 8;
  w.ffn = 53248;
  w.gated_ffn = true;
  w.recompute = Recompute::kNone;
  w.dropout = false;
  Layout l{8, 16, 128, 8};
  l.account_for_embedding = true;
  l.account_for_loss = true;
  const HardwareProfile h = profile("h100-sxm");
  const double act = layer_activation_bytes(w, 8, 8192.0);
  const double layer = layer_params_per_gpu(w, 8);
  // A middle stage: 8 layers, 16 micro-batches, all in flight (2 x 14 + 7 x 16 + 1 >= 128).
  const MemoryBreakdown m = memory_at(w, l, h, 8);
  EXPECT_NEAR(m.activations_bytes, 16 * 8 * act, 1.0);
  EXPECT_NEAR(m.weights_bytes, 2 * 8 * layer, 1.0);
  // With 64 micro-batches (DP 32) the warm-up bounds it: 2 x 14 + 7 x 16 + 1 = 141 chunks of
  // one layer.
  l.dp = 32;
  EXPECT_NEAR(memory_at(w, l, h, 8).activations_bytes, 141 * act, 1.0);
}

TEST(Memory, DistributedOptimizerShardsOverDp) {
  const Workload w = gpt(32, 4096, 32, 4096, 32000, 256);
  const HardwareProfile h = profile("h100-sxm");
  const MemoryBreakdown one = memory_at(w, Layout{8, 1, 1, 1}, h, 8);
  const MemoryBreakdown many = memory_at(w, Layout{8, 1, 16, 1}, h, 8);
  EXPECT_NEAR(many.optimizer_bytes, one.optimizer_bytes / 16, 1.0);
  EXPECT_DOUBLE_EQ(many.weights_bytes, one.weights_bytes);
}

TEST(Memory, MinTpIsTheSmallestFittingDegree) {
  // The NTP paper's 480B on 189 GB B200s: TP32 fits with room; some small degree must not.
  YamlContext ctx("test");
  Workload w = gpt(100, 20480, 128, 16384, 128256, 1024);
  const HardwareProfile h = profile("ntp-b200-nvl32");
  const Layout l{32, 8, 125, 1};
  const int m = min_tp(w, l, h);
  ASSERT_GT(m, 1);
  ASSERT_LE(m, 28);  // the paper runs damaged domains at TP28
  for (int t = m; t <= 32; ++t) EXPECT_TRUE(memory_at(w, l, h, t).fits()) << t;
  EXPECT_FALSE(memory_at(w, l, h, m - 1).fits());
  // A profile with too little memory for the nominal layout gives 0.
  HardwareProfile tiny = h;
  tiny.hbm_bytes = 20e9;
  EXPECT_EQ(min_tp(w, l, tiny), 0);
}

TEST(Checkpoint, SizeAndTimesByHand) {
  Workload w = gpt(96, 12288, 96, 2048, 51200, 1536);
  const HardwareProfile h = profile("h100-sxm");  // storage 2 TB/s write, 7 TB/s read
  const CheckpointCost c = checkpoint_cost(w, Layout{8, 8, 24, 1}, h);
  EXPECT_NEAR(c.bytes, 14.0 * w.parameters(), 1.0);
  EXPECT_NEAR(c.write_s, c.bytes / 2e12, 1e-9);
  EXPECT_NEAR(c.restore_s, c.bytes / 7e12, 1e-9);
  // With 16 GPUs the NICs (16 × 50 GB/s × 0.85) limit below the storage system.
  const CheckpointCost small = checkpoint_cost(w, Layout{8, 2, 1, 1}, h);
  EXPECT_NEAR(small.write_s, small.bytes / (16 * 50e9 * 0.85), 1e-9);
}

}  // namespace
}  // namespace ntpsim::models
