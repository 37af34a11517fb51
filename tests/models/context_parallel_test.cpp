// Context parallelism in the step, memory and layout models: a CP rank works on 1/CP of every
// sequence, attention exchanges K and V among the CP ranks (ring or all-gather), gradients
// reduce over DP x CP (models/analytic_step_model.h, models/memory_model.h).
#include <gtest/gtest.h>

#include "models/analytic_step_model.h"
#include "models/collective_model.h"
#include "models/layout_search.h"
#include "models/memory_model.h"
#include "tests/models/test_workloads.h"

namespace ntpsim::models {
namespace {

using testing::profile;

// A GQA model (8 K/V heads of 64 query heads), no recompute, flash attention.
Workload gqa(int seq, int batch) {
  Workload w = testing::gpt(16, 8192, 64, seq, 128000, batch);
  w.kv_heads = 8;
  w.gated_ffn = true;
  w.ffn = 28672;
  w.recompute = Recompute::kNone;
  w.dropout = false;
  return w;
}

Layout with_cp(Layout l, int cp) {
  l.cp = cp;
  return l;
}

TEST(ContextParallel, CpOneIsTheDefaultLayout) {
  const Workload w = gqa(8192, 64);
  const HardwareProfile h = profile("h100-sxm");
  const StepBreakdown a = AnalyticStepModel(w, Layout{8, 2, 4, 1}, h).breakdown(8, 1, 1);
  const StepBreakdown b =
      AnalyticStepModel(w, with_cp(Layout{8, 2, 4, 1}, 1), h).breakdown(8, 1, 1);
  EXPECT_EQ(a.iteration_s, b.iteration_s);
  EXPECT_EQ(a.cp_comm_s, 0.0);
  EXPECT_EQ(a.rank_tokens, a.microbatch_tokens);
}

TEST(ContextParallel, HalvesRankTokensActivationsAndOptimizerShard) {
  const Workload w = gqa(16384, 64);
  const HardwareProfile h = profile("h100-sxm");
  const Layout one{8, 2, 4, 1};
  const Layout two = with_cp(one, 2);
  EXPECT_EQ(two.gpus(), 2 * one.gpus());
  const StepBreakdown a = AnalyticStepModel(w, one, h).breakdown(8, 1, 1);
  const StepBreakdown b = AnalyticStepModel(w, two, h).breakdown(8, 1, 1);
  EXPECT_EQ(b.microbatches, a.microbatches);  // CP does not change the batch per replica
  EXPECT_EQ(b.microbatch_tokens, a.microbatch_tokens);
  EXPECT_EQ(b.rank_tokens, a.rank_tokens / 2);
  // Each rank does a little over half the work: half the tokens (GEMMs) and half the causal
  // attention (load-balanced chunks).
  EXPECT_LT(b.compute_s, 0.55 * a.compute_s);
  EXPECT_GT(b.compute_s, 0.45 * a.compute_s);
  EXPECT_GT(b.cp_comm_s, 0.0);
  const MemoryBreakdown ma = memory_at(w, one, h, 8);
  const MemoryBreakdown mb = memory_at(w, two, h, 8);
  EXPECT_NEAR(mb.activations_bytes, ma.activations_bytes / 2, 1e-6 * ma.activations_bytes);
  EXPECT_NEAR(mb.optimizer_bytes, ma.optimizer_bytes / 2, 1e-6 * ma.optimizer_bytes);
  EXPECT_EQ(mb.weights_bytes, ma.weights_bytes);
  // Same tokens/s per GPU within the cost of the exchange: twice the GPUs, half the time.
  EXPECT_NEAR(b.tokens_per_s_per_gpu / a.tokens_per_s_per_gpu, 1.0, 0.1);
}

TEST(ContextParallel, GradientsReduceOverDpTimesCp) {
  const Workload w = gqa(8192, 64);
  const HardwareProfile h = profile("h100-sxm");
  EXPECT_EQ(AnalyticStepModel(w, Layout{8, 1, 1, 1}, h).breakdown(8, 1, 1).dp_comm_s, 0.0);
  EXPECT_GT(AnalyticStepModel(w, with_cp(Layout{8, 1, 1, 1}, 2), h).breakdown(8, 1, 1).dp_comm_s,
            0.0);
}

// The ring's K/V hops hide behind the attention steps when a rank's attention is long, and
// show when it is short. Raw ring traffic per layer and micro-batch: C - 1 hops of K, V
// forward, C - 1 hops of K, V, dK, dV and one of dK, dV backward (TP 8 fills an H100 domain, so
// the CP ranks talk over the scale-out network).
double raw_ring_s(const Workload& w, const HardwareProfile& h, int cp) {
  const double n = static_cast<double>(w.seq_len) / cp;
  const double kv = 2.0 * 2.0 * (w.kv_heads / 8.0) * (w.hidden / w.heads) * n;
  const double hop = collective_time_s(h.scale_out, Collective::kSendRecv, 2, kv);
  const double grad_hop = collective_time_s(h.scale_out, Collective::kSendRecv, 2, 2 * kv);
  return (cp - 1) * (hop + grad_hop) + hop;
}

TEST(ContextParallel, RingExposedOnlyWhenAttentionIsTooShort) {
  const HardwareProfile h = profile("h100-sxm");
  const int cp = 8;
  for (const int seq : {2048, 131072}) {
    const Workload w = gqa(seq, 8);
    const StepBreakdown b =
        AnalyticStepModel(w, with_cp(Layout{8, 1, 1, 1}, cp), h).breakdown(8, 1, 1);
    const double raw = raw_ring_s(w, h, cp) * w.layers * b.microbatches;
    const double share = b.cp_comm_s / raw;
    std::printf("seq %6d: exposed ring %.4f s of %.4f s raw (%.0f%%)\n", seq, b.cp_comm_s, raw,
                100 * share);
    if (seq == 2048) {
      // 256 tokens a rank: each attention step is far shorter than a hop.
      EXPECT_GT(share, 0.8);
    } else {
      // 16,384 tokens a rank: the steps hide the hops; what shows is the comm kernels' SM
      // share and the last gradient hop.
      EXPECT_LT(share, 0.25);
    }
    EXPECT_LE(b.cp_comm_s, raw * (1 + 1e-9));
  }
}

TEST(ContextParallel, AllGatherIsExposedAndRingIsNot) {
  const HardwareProfile h = profile("h100-sxm");
  const Workload w = gqa(131072, 8);
  StepOptions ag;
  ag.cp_exchange = StepOptions::CpExchange::kAllGather;
  const Layout l = with_cp(Layout{8, 1, 1, 1}, 8);
  const StepBreakdown ring = AnalyticStepModel(w, l, h).breakdown(8, 1, 1);
  const StepBreakdown gather = AnalyticStepModel(w, l, h, ag).breakdown(8, 1, 1);
  EXPECT_GT(gather.cp_comm_s, ring.cp_comm_s);
  EXPECT_EQ(gather.compute_s, ring.compute_s);
}

// Megatron-LM's rank order makes a CP group CP consecutive TP groups; a domain of G GPUs holds
// floor(G/TP) TP groups, so CP groups stay inside domains only where CP divides that count.
TEST(ContextParallel, CpGroupsAreInsideDomainsWhereCpDividesTheTpGroupsADomainHolds) {
  EXPECT_TRUE(cp_groups_in_domains(72, 8, 1));
  EXPECT_TRUE(cp_groups_in_domains(72, 8, 3));
  EXPECT_TRUE(cp_groups_in_domains(72, 8, 9));
  EXPECT_FALSE(cp_groups_in_domains(72, 8, 8));  // 64 GPUs, yet the second group straddles
  EXPECT_TRUE(cp_groups_in_domains(64, 8, 8));
  EXPECT_FALSE(cp_groups_in_domains(72, 64, 2));  // larger than a domain
  EXPECT_FALSE(cp_groups_in_domains(8, 8, 16));
  EXPECT_TRUE(cp_groups_in_domains(0, 8, 16));  // no domains: one fabric
}

// CP groups that fit a domain's GPU count but straddle two pay the scale-out ring, exactly as
// groups too large for a domain do; aligned groups use the scale-up fabric.
TEST(ContextParallel, StraddlingCpGroupsPayTheScaleOutRing) {
  const Workload w = gqa(2048, 8);  // short attention steps: the ring is exposed
  const Layout l = with_cp(Layout{8, 1, 1, 1}, 8);
  const auto cp_comm = [&](int domain_gpus) {
    HardwareProfile h = profile("gb200-nvl72");
    h.gpus_per_domain = domain_gpus;
    return AnalyticStepModel(w, l, h).breakdown(8, 1, 1);
  };
  const StepBreakdown straddling = cp_comm(72), aligned = cp_comm(64), too_large = cp_comm(32);
  EXPECT_EQ(straddling.cp_comm_s, too_large.cp_comm_s);
  EXPECT_GT(straddling.cp_comm_s, 1.5 * aligned.cp_comm_s);
  EXPECT_EQ(straddling.compute_s, aligned.compute_s);
}

TEST(ContextParallel, SequenceMustSplitIntoTwoCpChunks) {
  const Workload w = gqa(8192, 8);
  EXPECT_TRUE(check_context_split(w, with_cp(Layout{8, 1, 1, 1}, 4)).field.empty());
  const SplitError e = check_context_split(w, with_cp(Layout{8, 1, 1, 1}, 3));
  EXPECT_EQ(e.field, "cp");
  EXPECT_EQ(e.message,
            "CP 3 splits each sequence into 6 chunks (2 x CP, causal load balance); the sequence "
            "length 8192 does not divide into them");
}

TEST(ContextParallel, LayoutSearchKeepsTheCpDegree) {
  const Workload w = gqa(32768, 64);
  LayoutSearch search{256, 8, 0, 1};
  search.cp = 4;
  const auto best = fastest_layout(w, profile("h100-sxm"), search);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->layout.cp, 4);
  EXPECT_EQ(best->layout.gpus(), 256);
}

}  // namespace
}  // namespace ntpsim::models
