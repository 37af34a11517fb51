#include "models/analytic_step_model.h"

#include <algorithm>
#include <cmath>

#include "models/base/check.h"
#include "models/memory_model.h"
#include "models/transformer_shapes.h"

namespace ntpsim::models {

namespace {
constexpr double kAct = 2.0;                // bytes per bf16 activation element
constexpr double kCausalWork = 0.5;         // fused causal attention skips the upper triangle
constexpr double kAttentionBackward = 2.5;  // FlashAttention backward / forward matmul work
// Adam per parameter: fp32 grad, master, m, v read (16 B); master, m, v and bf16 weight written.
constexpr double kOptimizerBytesPerParam = 32.0;
}  // namespace

struct AnalyticStepModel::MicroCost {
  double scaled_fwd = 0;  // compute-bound forward (GEMMs, attention): speeds up with power
  double scaled_bwd = 0;  // compute-bound backward, recompute included
  double wgrad = 0;       // the weight-gradient GEMMs within scaled_bwd
  double memory_fwd = 0;  // memory-bound forward kernels
  double memory_bwd = 0;
  double tp_fwd = 0;  // TP collectives, forward
  double tp_bwd = 0;

  void add(const MicroCost& o, double times) {
    scaled_fwd += times * o.scaled_fwd;
    scaled_bwd += times * o.scaled_bwd;
    wgrad += times * o.wgrad;
    memory_fwd += times * o.memory_fwd;
    memory_bwd += times * o.memory_bwd;
    tp_fwd += times * o.tp_fwd;
    tp_bwd += times * o.tp_bwd;
  }
};

AnalyticStepModel::AnalyticStepModel(const Workload& w, const Layout& l, const HardwareProfile& h,
                                     const StepOptions& options)
    : workload_(w),
      layout_(l),
      hw_(h),
      options_(options),
      gemm_(h, w.dtype == DType::kFP8),
      power_(h) {
  NTPSIM_CHECK(l.tp >= 1 && l.pp >= 1 && l.dp >= 1 && l.virtual_stages >= 1);
  NTPSIM_CHECK(w.layers >= 1 && w.hidden >= 1 && w.heads >= 1 && w.seq_len >= 1);
  const double per_replica = static_cast<double>(w.global_batch) / l.dp;
  microbatches_ = std::max(1.0, per_replica / std::max(1, w.micro_batch));
  const int fit = models::min_tp(w, l, h);
  nominal_fits_ = fit > 0;
  min_tp_ = nominal_fits_ ? fit : l.tp;
  effective_tp_.assign(l.tp + 1, l.tp);
  int best = min_tp_;
  double best_s = breakdown(best, 1.0, 1.0).iteration_s;
  for (int t = min_tp_; t < l.tp; ++t) {
    const double it = breakdown(t, 1.0, 1.0).iteration_s;
    if (it < best_s) {
      best = t;
      best_s = it;
    }
    effective_tp_[t] = best;
  }
}

int AnalyticStepModel::effective_tp(int tp) const {
  NTPSIM_CHECK(tp >= 1 && tp <= layout_.tp);
  return effective_tp_[std::max(tp, min_tp_)];
}

const Fabric& AnalyticStepModel::tp_fabric(int tp) const {
  // A TP group larger than the scale-up domain has to cross the scale-out network.
  return hw_.gpus_per_domain > 0 && tp > hw_.gpus_per_domain ? hw_.scale_out : hw_.scale_up;
}

AnalyticStepModel::MicroCost AnalyticStepModel::layer_cost(int tp, double n) const {
  const Workload& w = workload_;
  const TpShard s = shard_at(w, tp);
  const double h = w.hidden;
  MicroCost c;
  // Forward GEMMs (m = tokens, n = output columns, k = inner); backward: dgrad (n x k outputs)
  // and wgrad (k x n outputs, inner = tokens).
  const double q = s.q_heads * s.head_dim;
  const double shapes[4][2] = {{(s.q_heads + 2 * s.kv_heads) * s.head_dim, h},  // QKV
                               {h, q},                                          // output proj
                               {s.ffn * (w.gated_ffn ? 2.0 : 1.0), h},          // up (+ gate)
                               {h, s.ffn}};                                     // down
  for (const auto& [cols, inner] : shapes) {
    c.scaled_fwd += gemm_.time_s(n, cols, inner);
    const double wg = gemm_.time_s(inner, cols, n);
    c.scaled_bwd += gemm_.time_s(n, inner, cols) + wg;
    c.wgrad += wg;
  }
  // Memory-bound kernels: 2 norms (read + write h), 2 residual adds with dropout (~3.5 h each)
  // on the sequence-parallel shard; activation on the FFN shard; rotary on Q and K.
  const double n_sp = w.sequence_parallel ? n / tp : n;
  const double elems = 11.0 * h * n_sp + (w.gated_ffn ? 3.0 : 2.0) * s.ffn * n +
                       2.0 * (s.q_heads + s.kv_heads) * s.head_dim * n;
  c.memory_fwd += gemm_.memory_time_s(kAct * elems);
  c.memory_bwd += 2.0 * gemm_.memory_time_s(kAct * elems);
  const MicroCost before_attention = c;
  add_attention(s, n, c);
  if (tp > 1) {
    const Fabric& f = tp_fabric(tp);
    const double bytes = kAct * n * h;
    const double one_way = w.sequence_parallel
                               ? 2.0 * (collective_time_s(f, Collective::kAllGather, tp, bytes) +
                                        collective_time_s(f, Collective::kReduceScatter, tp, bytes))
                               : 2.0 * collective_time_s(f, Collective::kAllReduce, tp, bytes);
    c.tp_fwd = one_way;
    c.tp_bwd = one_way;
  }
  if (w.recompute == Recompute::kSelective) {
    // Repeat the attention-core forward (scores, softmax, P·V) in backward.
    c.scaled_bwd += c.scaled_fwd - before_attention.scaled_fwd;
    c.memory_bwd += c.memory_fwd - before_attention.memory_fwd;
  } else if (w.recompute == Recompute::kFull) {
    c.scaled_bwd += c.scaled_fwd;
    c.memory_bwd += c.memory_fwd;
    c.tp_bwd += c.tp_fwd;
  }
  return c;
}

void AnalyticStepModel::add_attention(const TpShard& s, double n, MicroCost& c) const {
  const double seq = workload_.seq_len;
  const double q = s.q_heads * s.head_dim;
  if (options_.flash_attention) {
    const double flops = 4.0 * n * seq * q * kCausalWork;
    // Attention stays in BF16 even in FP8 runs (Transformer Engine keeps it in higher precision).
    const double fwd = flops / (hw_.peak_bf16_flops * hw_.gemm.attention_efficiency);
    c.scaled_fwd += fwd;
    c.scaled_bwd += kAttentionBackward * fwd;
    return;
  }
  // Unfused: (n/seq sequences × heads) batched GEMMs, modelled as one GEMM of the same tiles.
  const double batch = n / seq * s.q_heads;
  const double scores_fwd = gemm_.time_s(batch * seq, seq, s.head_dim);  // Q·K^T
  const double pv_fwd = gemm_.time_s(batch * seq, s.head_dim, seq);      // P·V
  c.scaled_fwd += scores_fwd + pv_fwd;
  c.scaled_bwd += 2.0 * (scores_fwd + pv_fwd);
  const double scores = batch * seq * seq;
  c.memory_fwd += gemm_.memory_time_s(9.0 * scores);  // scale+mask+softmax r/w, dropout r/w + mask
  c.memory_bwd += gemm_.memory_time_s(18.0 * scores);
}

AnalyticStepModel::MicroCost AnalyticStepModel::stage_cost(int tp, double n) const {
  const Workload& w = workload_;
  const double layers = std::ceil(static_cast<double>(w.layers) / layout_.pp);
  MicroCost c;
  c.add(layer_cost(tp, n), layers);
  const TpShard s = shard_at(w, tp);
  const double h = w.hidden;
  const Fabric& f = tp_fabric(tp);
  const double act_bytes = kAct * n * h;
  // LM head on the last stage (the busiest): GEMM, fp32 cross-entropy over the vocab shard.
  MicroCost head;
  head.scaled_fwd = gemm_.time_s(n, s.vocab, h);
  head.wgrad = gemm_.time_s(h, s.vocab, n);
  head.scaled_bwd = gemm_.time_s(n, h, s.vocab) + head.wgrad;
  head.memory_fwd = gemm_.memory_time_s(3.0 * 4.0 * n * s.vocab);
  head.memory_bwd = gemm_.memory_time_s(2.0 * 4.0 * n * s.vocab);
  MicroCost embed;
  embed.memory_fwd = gemm_.memory_time_s(act_bytes);
  embed.memory_bwd = gemm_.memory_time_s(act_bytes);
  if (tp > 1) {
    const double ce = 3.0 * collective_time_s(f, Collective::kAllReduce, tp, 4.0 * n);
    if (w.sequence_parallel) {
      head.tp_fwd = collective_time_s(f, Collective::kAllGather, tp, act_bytes) + ce;
      head.tp_bwd = collective_time_s(f, Collective::kReduceScatter, tp, act_bytes);
      embed.tp_fwd = collective_time_s(f, Collective::kReduceScatter, tp, act_bytes);
      embed.tp_bwd = collective_time_s(f, Collective::kAllGather, tp, act_bytes);
    } else {
      head.tp_fwd = ce;
      head.tp_bwd = collective_time_s(f, Collective::kAllReduce, tp, act_bytes);
      embed.tp_fwd = collective_time_s(f, Collective::kAllReduce, tp, act_bytes);
    }
  }
  c.add(head, 1.0);
  if (layout_.pp == 1) c.add(embed, 1.0);
  return c;
}

double AnalyticStepModel::stage_params(int tp) const {
  const double layers = std::ceil(static_cast<double>(workload_.layers) / layout_.pp);
  const double vocab = vocab_params_per_gpu(workload_, tp) * (layout_.pp == 1 ? 2.0 : 1.0);
  return layers * layer_params_per_gpu(workload_, tp) + vocab;
}

StepBreakdown AnalyticStepModel::breakdown(int tp, double batch_share, double power_ratio) const {
  NTPSIM_CHECK(tp >= 1 && tp <= layout_.tp);
  NTPSIM_CHECK(batch_share > 0 && batch_share <= 1.0 + 1e-12 && power_ratio > 0);
  const Workload& w = workload_;
  StepBreakdown b;
  b.tp = tp;
  b.batch_share = batch_share;
  b.power_ratio = power_ratio;
  b.microbatches = static_cast<int>(std::ceil(microbatches_ - 1e-9));
  b.microbatch_tokens = batch_share * w.micro_batch * w.seq_len;
  const double n = b.microbatch_tokens;
  const double speed = power_.speedup(power_ratio);
  const MicroCost c = stage_cost(tp, n);

  const double compute_f = c.scaled_fwd / speed + c.memory_fwd;
  const double compute_b = c.scaled_bwd / speed + c.memory_bwd;
  const double tp_f = c.tp_fwd * (1.0 - options_.tp_overlap);
  const double tp_b =
      options_.tp_backward_overlap ? std::max(0.0, c.tp_bwd - c.wgrad / speed) : c.tp_bwd;
  const int p = layout_.pp;
  const double v = layout_.virtual_stages;
  double p2p = 0;
  if (p > 1) {
    const double bytes = kAct * n * w.hidden / tp;
    p2p = 2.0 * v * collective_time_s(hw_.scale_out, Collective::kSendRecv, 2, bytes);
  }
  const double per_micro = compute_f + compute_b + tp_f + tp_b + p2p;
  const double m = microbatches_;
  b.compute_s = m * (compute_f + compute_b);
  b.tp_comm_s = m * (tp_f + tp_b);
  b.pp_comm_s = m * p2p;
  b.bubble_s = (p - 1) / v * per_micro;

  const double params = stage_params(tp);
  const int r = layout_.dp;
  if (r > 1) {
    const double rs = collective_time_s(hw_.scale_out, Collective::kReduceScatter, r,
                                        params * options_.grad_bytes);
    const double ag = collective_time_s(hw_.scale_out, Collective::kAllGather, r, params * kAct);
    b.dp_comm_s = std::max(0.0, rs - options_.dp_overlap * (compute_b + tp_b)) +
                  std::max(0.0, ag - options_.dp_overlap * (compute_f + tp_f));
  }
  b.optimizer_s = gemm_.memory_time_s(kOptimizerBytesPerParam * params / r);
  b.iteration_s =
      b.compute_s + b.tp_comm_s + b.pp_comm_s + b.bubble_s + b.dp_comm_s + b.optimizer_s;
  b.reshard_s = plain_reshard_s(tp);

  const double gpus = static_cast<double>(tp) * layout_.pp;
  b.model_flops = model_flops_per_iteration(w) / r * batch_share;
  b.mfu = b.model_flops / (b.iteration_s * gpus * gemm_.peak_flops());
  b.tokens_per_s_per_gpu = w.tokens_per_iteration() / r * batch_share / (b.iteration_s * gpus);
  return b;
}

double AnalyticStepModel::replica_iteration_s(int tp, double batch_share,
                                              double power_ratio) const {
  return breakdown(effective_tp(tp), batch_share, power_ratio).iteration_s;
}

double AnalyticStepModel::reshard_overhead_s(int tp) const {
  const int big_t = layout_.tp;
  NTPSIM_CHECK(tp >= 1 && tp <= big_t);
  if (tp == big_t) return 0.0;
  return plain_reshard_s(effective_tp(tp));
}

double AnalyticStepModel::plain_reshard_s(int tp) const {
  const int big_t = layout_.tp;
  if (tp == big_t) return 0.0;
  // Each of the T - t extra ranks sends its whole gradient shard; each core rank receives
  // (T - t)/t of one. The busier side sets the time; once before and once after the DP sync.
  const double shard_bytes = stage_params(big_t) * options_.grad_bytes;
  const double extra = big_t - tp;
  const double busiest = shard_bytes * std::max(1.0, extra / tp);
  const CollectiveFit f = collective_params(tp_fabric(big_t), Collective::kAllToAll, big_t);
  return 2.0 * (f.alpha_s * extra + busiest / f.bus_bw_Bps);
}

double AnalyticStepModel::gpu_power_w(double power_ratio) const {
  // Time-weighted over a healthy iteration: compute phases at the set power, the rest at the
  // communication-phase power.
  const StepBreakdown b = breakdown(layout_.tp, 1.0, power_ratio);
  const double compute_share = b.compute_s / b.iteration_s;
  return compute_share * power_.compute_power_w(power_ratio) +
         (1.0 - compute_share) * power_.comm_power_w(power_ratio);
}

Result<std::unique_ptr<StepModel>> make_step_model(const std::string& kind, const Workload& w,
                                                   const Layout& l, const HardwareProfile& h) {
  if (w.dtype == DType::kFP8 && h.peak_fp8_flops <= 0) {
    return Error::bad_input(
        "workload dtype fp8 needs a profile with peak_fp8_tflops > 0 (profile \"" + h.name +
        "\" has none)");
  }
  if (kind == "analytic") return std::unique_ptr<StepModel>(new AnalyticStepModel(w, l, h));
  if (kind == "proportional") return make_proportional_model(w, l, h);
  return Error::bad_input("unknown step model \"" + kind + "\" (choose analytic or proportional)");
}

}  // namespace ntpsim::models
