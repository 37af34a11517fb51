// Per-GPU memory of a Megatron-style training job, and the smallest TP degree that fits
// (DESIGN.md §4, memory model).
//
// Per GPU of the busiest pipeline stage (first: most activations in flight plus the embedding;
// last: the LM head and fp32 logits), at TP degree t (ceil(units/t) shards, transformer_shapes.h):
//  - weights: bf16 (2 B/param); gradients: fp32 main grads (4 B/param);
//  - optimizer: fp32 master weights + Adam m, v (12 B/param), sharded over the DP replicas by
//    the distributed optimizer (Megatron docs: 6 + 12/d bytes per parameter);
//  - activations per layer and micro-batch (Korthikanti et al. 2022, Table 2, generalised to GQA
//    and gated FFNs): 10·s·b·h replicated (÷t with sequence parallelism; 8·s·b·h without
//    dropout, whose two 1-byte masks it includes) + the sharded Q, K, V, projection-input and
//    FFN tensors + 5·a·s²·b/t attention scores when nothing is recomputed and attention is
//    unfused (2·a·s²·b/t without dropout); fused (flash) attention stores no scores, only its
//    fp32 log-sum-exp (4·a·s·b/t bytes), and recomputes the scores in backward; selective
//    recompute drops the scores; full recompute keeps only the 2·s·b·h layer input.
//    Micro-batches in flight follow Megatron-LM's warm-up: min(p, m) on the first stage (1F1B);
//    interleaved, 2(p-1) + (v-1)p + 1 chunks of 1/v of its layers, at most all m·v chunks
//    (the last stage: one micro-batch under 1F1B, (v-1)p + 1 chunks interleaved);
//  - the last stage adds fp32 logits 4·s·b·V/t.
// With context parallelism C every rank holds s/C tokens (activations and logits ÷ C) and the
// distributed optimizer shards over D x C ranks (Megatron's data-and-context-parallel group).
// Usable memory = hbm × usable_fraction − reserved. Pure functions; thread-safe.
#pragma once

#include "models/hardware.h"
#include "models/workload.h"

namespace ntpsim::models {

struct MemoryBreakdown {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;
  double total_bytes = 0;   // sum of the above
  double usable_bytes = 0;  // what the GPU offers
  bool fits() const { return total_bytes <= usable_bytes; }
};

// How many copies of the optimizer state the job keeps. Megatron's distributed optimizer shards
// it over the DP replicas, one copy of each shard (kSharded); in-place recovery needs a second
// copy of each shard on a GPU of another replica (kShardedPeerCopy: 2 x 12/d B/param) or an
// optimizer not sharded over DP (kReplicated: 12 B/param).
enum class OptimizerCopies { kSharded, kShardedPeerCopy, kReplicated };

// Activation bytes of one layer for one micro-batch of `tokens` tokens on the busiest GPU at tp.
// `flash_attention`: fused attention (no stored scores), else Megatron's unfused path.
double layer_activation_bytes(const Workload& w, int tp, double tokens,
                              bool flash_attention = true);

// Memory of the busiest GPU (max over the first and last stage) at TP degree `tp`.
// REQUIRES: tp >= 1, layout with pp, dp >= 1.
MemoryBreakdown memory_at(const Workload& w, const Layout& l, const HardwareProfile& h, int tp,
                          bool flash_attention = true,
                          OptimizerCopies copies = OptimizerCopies::kSharded);

// Smallest t such that every degree in [t, l.tp] fits; 0 when l.tp itself does not fit.
int min_tp(const Workload& w, const Layout& l, const HardwareProfile& h,
           bool flash_attention = true, OptimizerCopies copies = OptimizerCopies::kSharded);

}  // namespace ntpsim::models
