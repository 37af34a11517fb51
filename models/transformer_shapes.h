// Per-GPU shapes and FLOP counts of a dense decoder transformer under tensor parallelism.
//
// At TP degree t a GPU holds ceil(units/t) of each sharded dimension (attention heads, KV heads,
// FFN columns, vocabulary rows), so t need not divide anything: the busiest GPU sets the pace
// (DESIGN.md §4). KV heads fewer than t are replicated (Megatron's GQA rule), i.e. one per GPU.
// FLOP counts follow Megatron's accounting (Narayanan et al. 2021, Korthikanti et al. 2022):
// 2 FLOPs per multiply-add, attention scores counted in full (no causal halving), backward = 2x
// forward. Pure functions; thread-safe.
#pragma once

#include "models/workload.h"

namespace ntpsim::models {

// Sharded sizes on the busiest GPU of a TP group of `tp` GPUs.
struct TpShard {
  int tp = 1;
  double head_dim = 0;  // hidden / heads
  double q_heads = 0;   // ceil(heads / tp)
  double kv_heads = 0;  // ceil(kv_heads / tp)
  double ffn = 0;       // ceil(ffn / tp)
  double vocab = 0;     // ceil(vocab / tp)
};

// REQUIRES: tp >= 1 and a valid workload (heads > 0, hidden > 0).
TpShard shard_at(const Workload& w, int tp);

// Weights of one transformer layer held by the busiest GPU at `tp` (norm weights replicated).
double layer_params_per_gpu(const Workload& w, int tp);
// Embedding (input table) or LM-head weights per GPU at `tp` (vocabulary-parallel).
double vocab_params_per_gpu(const Workload& w, int tp);

// Forward FLOPs per token of one layer's attention scores (Q·K^T and P·V over the full s x s).
double attention_scores_forward_flops_per_token(const Workload& w);
// Forward FLOPs per token of one full (unsharded) layer, and of the LM head.
double layer_forward_flops_per_token(const Workload& w);
double head_forward_flops_per_token(const Workload& w);

// Model FLOPs of one training iteration (forward + backward, no recompute), the MFU numerator.
// For GPT-style models (MHA, plain 4h FFN) this equals Megatron's
// 72·B·L·s·h²·(1 + s/(6h) + V/(12·L·h)).
double model_flops_per_iteration(const Workload& w);
// Hardware FLOPs of one iteration including recompute: selective adds one forward of the
// attention scores per layer; full adds one forward of every layer.
double hardware_flops_per_iteration(const Workload& w);

}  // namespace ntpsim::models
