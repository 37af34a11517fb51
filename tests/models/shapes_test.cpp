// FLOP counts and uneven TP shards (models/transformer_shapes.h).
#include <gtest/gtest.h>

#include "models/transformer_shapes.h"
#include "tests/models/test_workloads.h"

namespace ntpsim::models {
namespace {

using testing::gpt;

// Megatron's model FLOPs per iteration (Narayanan et al. 2021, eq. 3; Korthikanti et al. 2022,
// eq. 7): 72·B·L·s·h²·(1 + s/(6h) + V/(12·L·h)).
double megatron_formula(double b, double l, double s, double h, double v) {
  return 72.0 * b * l * s * h * h * (1.0 + s / (6.0 * h) + v / (12.0 * l * h));
}

TEST(Shapes, ModelFlopsMatchMegatronFormula) {
  struct Case {
    int layers, hidden, heads, seq, vocab, batch;
  };
  for (const Case c : {Case{96, 12288, 96, 2048, 51200, 1536},   // GPT-3 175B
                       Case{105, 20480, 128, 2048, 51200, 280},  // MT-NLG 530B
                       Case{24, 2048, 16, 8192, 50257, 7},       // long sequence, odd batch
                       Case{100, 20480, 128, 16384, 128256, 1024}}) {
    const Workload w = gpt(c.layers, c.hidden, c.heads, c.seq, c.vocab, c.batch);
    const double expected = megatron_formula(c.batch, c.layers, c.seq, c.hidden, c.vocab);
    EXPECT_NEAR(model_flops_per_iteration(w) / expected, 1.0, 1e-12) << c.hidden;
  }
}

TEST(Shapes, HardwareFlopsWithRecompute) {
  Workload w = gpt(96, 12288, 96, 2048, 51200, 64);
  const double b = 64, l = 96, s = 2048, h = 12288, v = 51200;
  // Selective recompute repeats the forward of Q·K^T and P·V: 4·B·L·s²·h more.
  // (Korthikanti et al. 2022, eq. 8, books 12·B·L·s²·h, counting the recomputed scores three
  // times; we count the work actually repeated.)
  w.recompute = Recompute::kSelective;
  EXPECT_NEAR(hardware_flops_per_iteration(w) /
                  (72.0 * b * l * s * h * h * (1.0 + s / (6.0 * h) + v / (12.0 * l * h)) +
                   4.0 * b * l * s * s * h),
              1.0, 1e-12);
  w.recompute =
      Recompute::kFull;  // one more forward of every layer: 96·B·L·s·h²·(1 + s/6h) + 6BshV
  EXPECT_NEAR(hardware_flops_per_iteration(w) /
                  (96.0 * b * l * s * h * h * (1.0 + s / (6.0 * h)) + 6.0 * b * s * h * v),
              1.0, 1e-12);
  w.recompute = Recompute::kNone;
  EXPECT_DOUBLE_EQ(hardware_flops_per_iteration(w), model_flops_per_iteration(w));
}

TEST(Shapes, GqaAndGatedFfnFlops) {
  Workload w = gpt(1, 4096, 32, 4096, 1000, 1);
  w.kv_heads = 8;
  w.ffn = 14336;
  w.gated_ffn = true;
  // Per token: 2·(h·(h + 2·h/4) + h·h + 3·h·ffn) + 4·s·h.
  const double h = 4096;
  const double expected = 2.0 * (h * (h + 2 * h / 4) + h * h + 3 * h * 14336) + 4.0 * 4096 * h;
  EXPECT_DOUBLE_EQ(layer_forward_flops_per_token(w), expected);
}

TEST(Shapes, UnevenHeadSplitUsesCeil) {
  Workload w = gpt(1, 20480, 128, 2048, 128256, 1);  // the NTP paper's 480B shapes
  const TpShard t32 = shard_at(w, 32);
  EXPECT_EQ(t32.q_heads, 4);
  EXPECT_EQ(t32.ffn, 2560);
  const TpShard t30 = shard_at(w, 30);
  EXPECT_EQ(t30.q_heads, 5);   // ceil(128/30): 8 GPUs carry 5 heads, the rest 4
  EXPECT_EQ(t30.ffn, 2731);    // ceil(81920/30)
  EXPECT_EQ(t30.vocab, 4276);  // ceil(128256/30)
  const TpShard t28 = shard_at(w, 28);
  EXPECT_EQ(t28.q_heads, 5);
  EXPECT_EQ(t28.ffn, 2926);
  // GQA with fewer KV heads than GPUs: one (replicated) KV head per GPU.
  w.kv_heads = 8;
  EXPECT_EQ(shard_at(w, 30).kv_heads, 1);
  EXPECT_EQ(shard_at(w, 7).kv_heads, 2);
  // The busiest GPU's weights at TP30 exceed a 1/30 share of the layer.
  EXPECT_GT(layer_params_per_gpu(w, 30), layer_params_per_gpu(w, 1) / 30.0);
}

}  // namespace
}  // namespace ntpsim::models
