#include "models/transformer_shapes.h"

#include <cmath>

#include "models/base/check.h"

namespace ntpsim::models {

namespace {
double ceil_div(int units, int tp) {
  return std::ceil(static_cast<double>(units) / tp);
}
int kv_heads_of(const Workload& w) {
  return w.kv_heads > 0 ? w.kv_heads : w.heads;
}
}  // namespace

TpShard shard_at(const Workload& w, int tp) {
  NTPSIM_CHECK(tp >= 1 && w.heads > 0 && w.hidden > 0);
  TpShard s;
  s.tp = tp;
  s.head_dim = static_cast<double>(w.hidden) / w.heads;
  s.q_heads = ceil_div(w.heads, tp);
  s.kv_heads = ceil_div(kv_heads_of(w), tp);
  s.ffn = ceil_div(w.ffn, tp);
  s.vocab = ceil_div(w.vocab, tp);
  return s;
}

double layer_params_per_gpu(const Workload& w, int tp) {
  const TpShard s = shard_at(w, tp);
  const double h = w.hidden;
  const double qkv = h * (s.q_heads + 2 * s.kv_heads) * s.head_dim;
  const double out = s.q_heads * s.head_dim * h;
  const double mlp = (w.gated_ffn ? 3.0 : 2.0) * h * s.ffn;
  return qkv + out + mlp + 2 * h /*two norms, replicated*/;
}

double vocab_params_per_gpu(const Workload& w, int tp) {
  return shard_at(w, tp).vocab * w.hidden;
}

double attention_scores_forward_flops_per_token(const Workload& w) {
  const double q = w.heads * (static_cast<double>(w.hidden) / w.heads);
  return 4.0 * w.seq_len * q;  // 2 FLOPs per MAC, full s x s
}

double layer_forward_flops_per_token(const Workload& w) {
  const double h = w.hidden;
  const double d = h / w.heads;
  const double q = w.heads * d;
  const double kv = kv_heads_of(w) * d;
  const double gemm_params = h * (q + 2 * kv) + q * h + (w.gated_ffn ? 3.0 : 2.0) * h * w.ffn;
  return 2.0 * gemm_params + attention_scores_forward_flops_per_token(w);
}

double head_forward_flops_per_token(const Workload& w) {
  return 2.0 * static_cast<double>(w.hidden) * w.vocab;
}

double model_flops_per_iteration(const Workload& w) {
  const double fwd = w.layers * layer_forward_flops_per_token(w) + head_forward_flops_per_token(w);
  return 3.0 * fwd * w.tokens_per_iteration();
}

double hardware_flops_per_iteration(const Workload& w) {
  double extra_per_token = 0;
  if (w.recompute == Recompute::kSelective) {
    extra_per_token = w.layers * 4.0 * w.seq_len * w.hidden;
  } else if (w.recompute == Recompute::kFull) {
    extra_per_token = w.layers * layer_forward_flops_per_token(w);
  }
  return model_flops_per_iteration(w) + extra_per_token * w.tokens_per_iteration();
}

}  // namespace ntpsim::models
