#include "models/memory_model.h"

#include <algorithm>
#include <cmath>

#include "models/base/check.h"
#include "models/transformer_shapes.h"

namespace ntpsim::models {

namespace {

constexpr double kWeightBytes = 2.0;      // bf16 weights
constexpr double kGradBytes = 4.0;        // fp32 main gradients
constexpr double kOptimizerBytes = 12.0;  // fp32 master + Adam m, v

int microbatches(const Workload& w, const Layout& l) {
  const double per_replica = static_cast<double>(w.global_batch) / std::max(1, l.dp);
  return std::max(1, static_cast<int>(std::ceil(per_replica / std::max(1, w.micro_batch))));
}

// Layers' worth of micro-batch activations that pipeline rank `rank` holds at its peak under
// Megatron-LM's schedules, for `layers` layers on the rank. 1F1B: the rank runs p - rank - 1
// warm-up forwards, then one more before its first backward, so min(p - rank, m) micro-batches
// are in flight. Interleaved (v chunks of layers / v each): 2 (p - rank - 1) + (v - 1) p warm-up
// chunk forwards plus one, at most all m x v of them (Megatron caps the warm-up at the total).
// For rank 0 and m >= p that is p + (p - 1) / v micro-batches' worth of its layers (Korthikanti
// et al. 2022, section 4.2.3).
double layers_in_flight(int p, int v, int m, int rank, double layers) {
  if (v <= 1) return std::min(p - rank, m) * layers;
  const double warmup = 2.0 * (p - rank - 1) + static_cast<double>(v - 1) * p;
  const double chunks = std::min(warmup + 1.0, static_cast<double>(m) * v);
  return chunks * layers / v;
}

}  // namespace

double layer_activation_bytes(const Workload& w, int tp, double tokens, bool flash_attention) {
  const TpShard s = shard_at(w, tp);
  const double h = w.hidden;
  if (w.recompute == Recompute::kFull) {
    return 2.0 * tokens * h / (w.sequence_parallel ? tp : 1);
  }
  // Two norm inputs and the QKV and FC1 inputs (2 B each), plus the 1-byte masks of the
  // dropouts after attention and after the MLP.
  const double replicated = (8.0 + (w.dropout ? 2.0 : 0.0)) * h / (w.sequence_parallel ? tp : 1);
  const double attention = 2.0 * (s.q_heads + 2 * s.kv_heads + s.q_heads) * s.head_dim;
  const double mlp = (w.gated_ffn ? 6.0 : 4.0) * s.ffn;
  double per_token = replicated + attention + mlp;
  if (w.recompute == Recompute::kNone) {
    // Unfused: the softmax output (2 B per score), and with dropout its mask (1 B) and output
    // (2 B), which the P·V GEMM then reads instead.
    const double per_score = w.dropout ? 5.0 : 2.0;
    per_token += flash_attention ? 4.0 * s.q_heads : per_score * s.q_heads * w.seq_len;
  }
  return per_token * tokens;
}

MemoryBreakdown memory_at(const Workload& w, const Layout& l, const HardwareProfile& h, int tp,
                          bool flash_attention, OptimizerCopies copies) {
  NTPSIM_CHECK(tp >= 1 && l.pp >= 1 && l.dp >= 1 && l.cp >= 1);
  const StageLayers layers = stage_layers(w, l);
  const double layer_params = layer_params_per_gpu(w, tp);
  const double vocab_params = vocab_params_per_gpu(w, tp);
  // A context-parallel rank holds s/C tokens of each sequence: activations and logits divide
  // by C; the distributed optimizer shards over the DP x CP ranks.
  const double mb_tokens = static_cast<double>(w.micro_batch) * w.seq_len / l.cp;
  const double shards = static_cast<double>(l.dp) * l.cp;
  const int m = microbatches(w, l);
  const int v = std::max(1, l.virtual_stages);
  const double per_layer_act = layer_activation_bytes(w, tp, mb_tokens, flash_attention);

  auto stage = [&](double params, double activations) {
    MemoryBreakdown b;
    b.weights_bytes = kWeightBytes * params;
    b.gradients_bytes = kGradBytes * params;
    b.optimizer_bytes = copies == OptimizerCopies::kReplicated ? kOptimizerBytes * params
                        : copies == OptimizerCopies::kShardedPeerCopy
                            ? 2.0 * kOptimizerBytes * params / shards
                            : kOptimizerBytes * params / shards;
    b.activations_bytes = activations;
    b.total_bytes = b.weights_bytes + b.gradients_bytes + b.optimizer_bytes + b.activations_bytes;
    return b;
  };
  const double logits = 4.0 * mb_tokens * shard_at(w, tp).vocab;
  // First stage: embedding table, the most micro-batches in flight.
  MemoryBreakdown first = stage(layers.first * layer_params + vocab_params,
                                layers_in_flight(l.pp, v, m, 0, layers.first) * per_layer_act);
  // Last stage: LM head and logits (and the embedding when p == 1); one micro-batch in flight
  // under 1F1B, (v - 1)p + 1 chunks interleaved.
  MemoryBreakdown last =
      stage(layers.last * layer_params + (l.pp == 1 ? 2 : 1) * vocab_params,
            layers_in_flight(l.pp, v, m, l.pp - 1, layers.last) * per_layer_act + logits);
  MemoryBreakdown worst = first.total_bytes >= last.total_bytes ? first : last;
  if (l.pp > 2 && layers.middle > layers.first) {
    // The second stage holds fewer micro-batches than the first in flight; with more layers
    // than the first stage it can be the fullest.
    MemoryBreakdown middle = stage(layers.middle * layer_params,
                                   layers_in_flight(l.pp, v, m, 1, layers.middle) * per_layer_act);
    if (middle.total_bytes > worst.total_bytes) worst = middle;
  }
  worst.usable_bytes = h.hbm_bytes * h.memory.usable_fraction - h.memory.reserved_bytes;
  return worst;
}

int min_tp(const Workload& w, const Layout& l, const HardwareProfile& h, bool flash_attention,
           OptimizerCopies copies) {
  // Walk down from the nominal degree so every degree in [result, l.tp] fits (ceil(units/t)
  // makes memory only roughly monotone in t).
  int result = 0;
  for (int t = l.tp; t >= 1; --t) {
    if (!memory_at(w, l, h, t, flash_attention, copies).fits()) break;
    result = t;
  }
  return result;
}

}  // namespace ntpsim::models
