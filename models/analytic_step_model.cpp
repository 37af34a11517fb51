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
// Megatron's optimizer step, HBM bytes per parameter. Adam (apex multi_tensor_adam): fp32 grad,
// master, m, v read (16 B), master, m, v written (12 B); the fp32 master copied to the bf16
// model weight (4 B read + 2 B written); the gradient L2 norm for clipping (4 B read). These
// run over the optimizer's shard (the DP shard with the distributed optimizer). Every local
// parameter's fp32 gradient buffer is scaled in place by 1/DP before the reduction (4 B read,
// 4 B written; Megatron's DDP does it at any DP degree) and zeroed for the next iteration
// (4 B written).
constexpr double kAdamBytesPerParam = 28.0 + 6.0 + 4.0;
constexpr double kGradBufferBytesPerParam = 8.0 + 4.0;
// Megatron's vocabulary-parallel cross-entropy, HBM bytes per logit element. Forward: bf16
// logits up-cast to fp32 (2 B read, 4 written), max (4 read), subtract (4 + 4), exp in place
// (4 + 4), sum (4 read), divide in place (4 + 4): 38 B. Backward: the saved softmax times the
// incoming gradient in place (4 + 4), down-cast to bf16 for the GEMM (4 read, 2 written): 14 B.
constexpr double kCrossEntropyFwdBytes = 38.0;
constexpr double kCrossEntropyBwdBytes = 14.0;
// Memory-bound kernels, elements moved per hidden element of one token (bf16). Forward: two
// norms (read + write: 2 each) and two residual adds (read 2, write 1: 3 each) = 10; with
// dropout fused into the adds, each also writes its 1-byte mask (0.5) = 11. Backward: norm
// backward reads x and dy and writes dx (3 each); the residual branch gradients are summed
// (read 2, write 1: 3 each) = 12; dropout backward reads dy and the mask and writes dx (2.25
// each) = 16.5.
constexpr double kNormResidualFwd = 10.0;
constexpr double kNormResidualBwd = 12.0;
constexpr double kDropoutFwd = 1.0;
constexpr double kDropoutBwd = 4.5;
// Memory-bound kernels per layer, each paying the fixed per-kernel cost (gemm.overhead: launch,
// ramp-up, tail) on top of its traffic. Forward: 2 norms, 2 residual adds (dropout fused in),
// the activation. Backward: 2 norm backwards (data gradient, weight-gradient reduction), 2
// residual gradient sums, the activation backward, and 2 dropout backwards with dropout.
// Unfused attention adds softmax and the context permute each way, and the attention dropout.
constexpr double kLayerKernelsFwd = 5.0;
constexpr double kLayerKernelsBwd = 9.0;
constexpr double kDropoutKernelsBwd = 2.0;
constexpr double kUnfusedAttentionKernels = 2.0;
// Cross-entropy kernels (see kCrossEntropy*Bytes): 6 forward, 2 backward.
constexpr double kCrossEntropyKernelsFwd = 6.0;
constexpr double kCrossEntropyKernelsBwd = 2.0;
// NCCL's default bucket for overlapped gradient reduce-scatter (Megatron-core DDP:
// max(40M, 1M x DP) parameters).
constexpr double kMinBucketParams = 40e6;
constexpr double kBucketParamsPerRank = 1e6;

// Extra time a collective of `comm` seconds adds when it runs concurrently with a GEMM of `gemm`
// seconds: the collective's kernels occupy `sm_share` of the SMs, so the GEMM runs at
// (1 - sm_share) speed while they overlap; a collective longer than the slowed GEMM is exposed
// beyond it. Equals max(comm - gemm, sm_share x comm) for gemm >= 0.
double overlap_exposed_s(double comm, double gemm, double sm_share) {
  if (comm <= 0) return 0.0;
  return comm - std::min(gemm, comm * (1.0 - sm_share));
}
}  // namespace

struct AnalyticStepModel::MicroCost {
  // A backward collective Megatron issues asynchronously next to one GEMM (`gemm` is that
  // GEMM's time at TDP), `count` times per micro-batch.
  struct Overlap {
    double comm = 0;
    double gemm = 0;
    double count = 0;
  };
  double scaled_fwd = 0;  // compute-bound forward (GEMMs, attention): speeds up with power
  double scaled_bwd = 0;  // compute-bound backward, recompute included
  double memory_fwd = 0;  // memory-bound forward kernels
  double memory_bwd = 0;
  double tp_fwd = 0;                // TP collectives of the forward (exposed less tp_overlap)
  double tp_bwd = 0;                // TP collectives of the backward with nothing to overlap
  double tp_recompute = 0;          // TP collectives of a recomputed forward: exposed
  std::vector<Overlap> overlapped;  // backward collectives overlapping a GEMM
  // Context-parallel K/V exchanges of the forward and of the backward (recompute included),
  // each hidden behind the attention compute in `gemm` (0: exposed).
  std::vector<Overlap> cp_fwd;
  std::vector<Overlap> cp_bwd;

  void add(const MicroCost& o, double times) {
    scaled_fwd += times * o.scaled_fwd;
    scaled_bwd += times * o.scaled_bwd;
    memory_fwd += times * o.memory_fwd;
    memory_bwd += times * o.memory_bwd;
    tp_fwd += times * o.tp_fwd;
    tp_bwd += times * o.tp_bwd;
    tp_recompute += times * o.tp_recompute;
    for (Overlap x : o.overlapped) {
      x.count *= times;
      overlapped.push_back(x);
    }
    for (Overlap x : o.cp_fwd) {
      x.count *= times;
      cp_fwd.push_back(x);
    }
    for (Overlap x : o.cp_bwd) {
      x.count *= times;
      cp_bwd.push_back(x);
    }
  }
  // Backward TP time exposed at GEMM speed-up `speed`: the recomputed forward's collectives, the
  // unoverlapped ones, and what the overlapped ones add to their GEMMs.
  double tp_backward_exposed(double speed, double sm_share, bool overlap) const {
    double t = tp_bwd + tp_recompute;
    for (const Overlap& x : overlapped) {
      t += x.count * (overlap ? overlap_exposed_s(x.comm, x.gemm / speed, sm_share) : x.comm);
    }
    return t;
  }
};

struct AnalyticStepModel::StageCosts {
  MicroCost layer;      // one transformer layer
  MicroCost head;       // LM head and loss
  MicroCost embedding;  // input embedding
};

AnalyticStepModel::AnalyticStepModel(const Workload& w, const Layout& l, const HardwareProfile& h,
                                     const StepOptions& options)
    : workload_(w),
      layout_(l),
      hw_(h),
      options_(options),
      gemm_(h, w.dtype == DType::kFP8),
      power_(h) {
  NTPSIM_CHECK(l.tp >= 1 && l.pp >= 1 && l.dp >= 1 && l.virtual_stages >= 1 && l.cp >= 1);
  NTPSIM_CHECK(w.layers >= 1 && w.hidden >= 1 && w.heads >= 1 && w.seq_len >= 1);
  // Context parallelism splits the sequence into 2 x CP chunks and runs on fused attention
  // (Megatron-LM's CP needs Transformer Engine's attention).
  NTPSIM_CHECK(check_context_split(w, l).field.empty());
  NTPSIM_CHECK(l.cp == 1 || options.flash_attention);
  const double per_replica = static_cast<double>(w.global_batch) / l.dp;
  microbatches_ = std::max(1.0, per_replica / std::max(1, w.micro_batch));
  const int fit = models::min_tp(w, l, h, options.flash_attention);
  nominal_fits_ = fit > 0;
  min_tp_ = nominal_fits_ ? fit : l.tp;
  effective_tp_.assign(l.tp + 1, l.tp);
  whole_batch_s_.assign(l.tp + 1, 0.0);
  nominal_ = breakdown(l.tp, 1.0, 1.0);
  whole_batch_s_[l.tp] = nominal_.iteration_s;
  for (int t = min_tp_; t < l.tp; ++t) whole_batch_s_[t] = breakdown(t, 1.0, 1.0).iteration_s;
  int best = min_tp_;
  double best_s = whole_batch_s_[best];
  for (int t = min_tp_; t < l.tp; ++t) {
    const double it = whole_batch_s_[t];
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

bool cp_groups_in_domains(int domain_gpus, int tp, int cp) {
  if (domain_gpus <= 0 || cp == 1) return true;
  const int groups_per_domain = domain_gpus / tp;
  return cp <= groups_per_domain && groups_per_domain % cp == 0;
}

const Fabric& AnalyticStepModel::tp_fabric(int tp) const {
  // A TP group larger than the scale-up domain has to cross the scale-out network.
  return hw_.gpus_per_domain > 0 && tp > hw_.gpus_per_domain ? hw_.scale_out : hw_.scale_up;
}

double AnalyticStepModel::comm_sm_share(int tp) const {
  return std::min(1.0, static_cast<double>(tp_fabric(tp).comm_sms) / hw_.gemm.sm_count);
}

const Fabric& AnalyticStepModel::cp_fabric() const {
  // The slowest CP group paces the step. The placement is the nominal layout's: a TP group that
  // loses GPUs (a reduced TP degree) stays where it is.
  return cp_groups_in_domains(hw_.gpus_per_domain, layout_.tp, layout_.cp) ? hw_.scale_up
                                                                           : hw_.scale_out;
}

double AnalyticStepModel::cp_sm_share() const {
  return std::min(1.0, static_cast<double>(cp_fabric().comm_sms) / hw_.gemm.sm_count);
}

double AnalyticStepModel::cp_exposed_s(const MicroCost& c, double speed, bool backward) const {
  double t = 0;
  for (const MicroCost::Overlap& x : backward ? c.cp_bwd : c.cp_fwd) {
    t += x.count * overlap_exposed_s(x.comm, x.gemm / speed, cp_sm_share());
  }
  return t;
}

LayerTimes AnalyticStepModel::layer_times(int tp) const {
  NTPSIM_CHECK(tp >= 1 && tp <= layout_.tp);
  const MicroCost c =
      layer_cost(tp, static_cast<double>(workload_.micro_batch) * workload_.seq_len / layout_.cp);
  LayerTimes t;
  t.forward_s = c.scaled_fwd + c.memory_fwd + c.tp_fwd * (1.0 - options_.tp_overlap) +
                cp_exposed_s(c, 1.0, false);
  t.backward_s = c.scaled_bwd + c.memory_bwd +
                 c.tp_backward_exposed(1.0, comm_sm_share(tp), options_.tp_backward_overlap) +
                 cp_exposed_s(c, 1.0, true);
  return t;
}

AnalyticStepModel::MicroCost AnalyticStepModel::layer_cost(int tp, double n) const {
  const Workload& w = workload_;
  const TpShard s = shard_at(w, tp);
  const double h = w.hidden;
  MicroCost c;
  // Forward GEMMs (m = tokens, n = output columns, k = inner); backward: dgrad (n x k outputs)
  // and wgrad (k x n outputs, inner = tokens). QKV and FFN-up are column-parallel (their input
  // is replicated or all-gathered), output projection and FFN-down row-parallel.
  const double q = s.q_heads * s.head_dim;
  const double shapes[4][2] = {{(s.q_heads + 2 * s.kv_heads) * s.head_dim, h},  // QKV
                               {h, q},                                          // output proj
                               {s.ffn * (w.gated_ffn ? 2.0 : 1.0), h},          // up (+ gate)
                               {h, s.ffn}};                                     // down
  double dgrad[4] = {0, 0, 0, 0};
  double wgrad[4] = {0, 0, 0, 0};
  for (int i = 0; i < 4; ++i) {
    const auto& [cols, inner] = shapes[i];
    c.scaled_fwd += gemm_.time_s(n, cols, inner);
    dgrad[i] = gemm_.time_s(n, inner, cols);
    wgrad[i] = gemm_.time_s(inner, cols, n);
    c.scaled_bwd += dgrad[i] + wgrad[i];
  }
  // Memory-bound kernels: norms, residual adds with dropout on the sequence-parallel shard;
  // activation on the FFN shard; rotary on Q and K (elements per token: see the constants).
  const double n_sp = w.sequence_parallel ? n / tp : n;
  const double rotary = 2.0 * (s.q_heads + s.kv_heads) * s.head_dim * n;
  const double dropout = w.dropout ? 1.0 : 0.0;
  const double elems_fwd = (kNormResidualFwd + dropout * kDropoutFwd) * h * n_sp +
                           (w.gated_ffn ? 3.0 : 2.0) * s.ffn * n + rotary;
  // Activation backward reads its input(s) and dy and writes the input gradient(s).
  const double elems_bwd = (kNormResidualBwd + dropout * kDropoutBwd) * h * n_sp +
                           (w.gated_ffn ? 5.0 : 3.0) * s.ffn * n + rotary;
  const double kernel = hw_.gemm.overhead_s;
  c.memory_fwd += gemm_.memory_time_s(kAct * elems_fwd) + kLayerKernelsFwd * kernel;
  c.memory_bwd += gemm_.memory_time_s(kAct * elems_bwd) +
                  (kLayerKernelsBwd + dropout * kDropoutKernelsBwd) * kernel;
  const MicroCost before_attention = c;
  add_attention(s, n, c);
  if (layout_.cp > 1) {
    add_cp_exchange(s, n, c.scaled_fwd - before_attention.scaled_fwd,
                    c.scaled_bwd - before_attention.scaled_bwd, c);
  }
  if (tp > 1) {
    // Megatron's schedule of the two TP regions (attention, MLP) of a layer:
    // without SP, forward all-reduces the row-parallel outputs (exposed); backward all-reduces
    // the column-parallel input gradients asynchronously while the same layer's weight-gradient
    // GEMM runs. With SP, forward all-gathers the column-parallel inputs and reduce-scatters
    // the row-parallel outputs (exposed); backward all-gathers the output gradient of the
    // row-parallel reduce-scatter (exposed), all-gathers the column-parallel input again (it
    // was saved sharded) while the data-gradient GEMM runs, and reduce-scatters the input
    // gradient while the weight-gradient GEMM runs.
    const Fabric& f = tp_fabric(tp);
    const double bytes = kAct * n * h;
    if (w.sequence_parallel) {
      const double ag = collective_time_s(f, Collective::kAllGather, tp, bytes);
      const double rs = collective_time_s(f, Collective::kReduceScatter, tp, bytes);
      c.tp_fwd = 2.0 * (ag + rs);
      c.tp_bwd = 2.0 * ag;
      for (const int col : {0, 2}) {
        c.overlapped.push_back({ag, dgrad[col], 1.0});
        c.overlapped.push_back({rs, wgrad[col], 1.0});
      }
    } else {
      const double ar = collective_time_s(f, Collective::kAllReduce, tp, bytes);
      c.tp_fwd = 2.0 * ar;
      for (const int col : {0, 2}) c.overlapped.push_back({ar, wgrad[col], 1.0});
    }
  }
  if (w.recompute == Recompute::kSelective) {
    // Repeat the attention-core forward (scores, softmax, P·V) in backward: no collectives.
    c.scaled_bwd += c.scaled_fwd - before_attention.scaled_fwd;
    c.memory_bwd += c.memory_fwd - before_attention.memory_fwd;
    c.cp_bwd.insert(c.cp_bwd.end(), c.cp_fwd.begin(), c.cp_fwd.end());
  } else if (w.recompute == Recompute::kFull) {
    // Repeat the whole forward, its collectives included, right before the backward: nothing
    // runs beside them.
    c.scaled_bwd += c.scaled_fwd;
    c.memory_bwd += c.memory_fwd;
    c.tp_recompute += c.tp_fwd;
    c.cp_bwd.insert(c.cp_bwd.end(), c.cp_fwd.begin(), c.cp_fwd.end());
  }
  return c;
}

void AnalyticStepModel::add_cp_exchange(const TpShard& s, double n, double attention_fwd,
                                        double attention_bwd, MicroCost& c) const {
  // `n` tokens are this rank's two chunks; its K and V for them: kv_heads x head_dim per token
  // each (GQA keeps the exchange small beside the hidden size), in bf16.
  const int cp = layout_.cp;
  const Fabric& f = cp_fabric();
  const double kv_bytes = kAct * 2.0 * s.kv_heads * s.head_dim * n;
  if (options_.cp_exchange == StepOptions::CpExchange::kAllGather) {
    // Gather every rank's K and V before attending the local queries (nothing to hide it
    // behind); backward gathers them again (only the local chunk is kept) and reduce-scatters
    // their gradients to the owners.
    const double ag = collective_time_s(f, Collective::kAllGather, cp, cp * kv_bytes);
    const double rs = collective_time_s(f, Collective::kReduceScatter, cp, cp * kv_bytes);
    c.cp_fwd.push_back({ag, 0.0, 1.0});
    c.cp_bwd.push_back({ag + rs, 0.0, 1.0});
    return;
  }
  // Ring: C attention steps of equal work (the load-balanced chunks make every step two
  // chunk-pairs of the causal mask); the K/V block for step k + 1 travels while step k
  // computes, so C - 1 hops hide behind C - 1 steps. Backward circulates K, V and the partial
  // gradients dK, dV the same way; the last step's gradients go home after it, exposed.
  const double hop = collective_time_s(f, Collective::kSendRecv, 2, kv_bytes);
  const double grad_hop = collective_time_s(f, Collective::kSendRecv, 2, 2.0 * kv_bytes);
  const double hidden = (cp - 1.0) / cp;
  c.cp_fwd.push_back({(cp - 1.0) * hop, hidden * attention_fwd, 1.0});
  c.cp_bwd.push_back({(cp - 1.0) * grad_hop, hidden * attention_bwd, 1.0});
  c.cp_bwd.push_back({hop, 0.0, 1.0});
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
  // Bytes per score: forward, the softmax reads and writes (4), and dropout reads, writes and
  // stores its 1-byte mask (5); backward 13 without dropout, plus the dropout backward's read of
  // the gradient and the mask and write (5).
  const double scores = batch * seq * seq;
  const double dropout = workload_.dropout ? 1.0 : 0.0;
  const double kernels = (kUnfusedAttentionKernels + dropout) * hw_.gemm.overhead_s;
  c.memory_fwd += gemm_.memory_time_s((4.0 + 5.0 * dropout) * scores) + kernels;
  c.memory_bwd += gemm_.memory_time_s((13.0 + 5.0 * dropout) * scores) + kernels;
}

AnalyticStepModel::MicroCost AnalyticStepModel::head_cost(int tp, double n) const {
  // LM head on the last stage: a column-parallel GEMM, then Megatron's fp32 vocabulary-parallel
  // cross-entropy (three all-reduces of one fp32 value per token).
  const Workload& w = workload_;
  const TpShard s = shard_at(w, tp);
  const double h = w.hidden;
  const double act_bytes = kAct * n * h;
  MicroCost head;
  head.scaled_fwd = gemm_.time_s(n, s.vocab, h);
  const double head_wgrad = gemm_.time_s(h, s.vocab, n);
  const double head_dgrad = gemm_.time_s(n, h, s.vocab);
  head.scaled_bwd = head_dgrad + head_wgrad;
  head.memory_fwd = gemm_.memory_time_s(kCrossEntropyFwdBytes * n * s.vocab) +
                    kCrossEntropyKernelsFwd * hw_.gemm.overhead_s;
  head.memory_bwd = gemm_.memory_time_s(kCrossEntropyBwdBytes * n * s.vocab) +
                    kCrossEntropyKernelsBwd * hw_.gemm.overhead_s;
  if (tp > 1) {
    const Fabric& f = tp_fabric(tp);
    const double ce = 3.0 * collective_time_s(f, Collective::kAllReduce, tp, 4.0 * n);
    if (w.sequence_parallel) {
      const double ag = collective_time_s(f, Collective::kAllGather, tp, act_bytes);
      const double rs = collective_time_s(f, Collective::kReduceScatter, tp, act_bytes);
      head.tp_fwd = ag + ce;
      head.overlapped.push_back({ag, head_dgrad, 1.0});
      head.overlapped.push_back({rs, head_wgrad, 1.0});
    } else {
      head.tp_fwd = ce;
      head.overlapped.push_back(
          {collective_time_s(f, Collective::kAllReduce, tp, act_bytes), head_wgrad, 1.0});
    }
  }
  return head;
}

AnalyticStepModel::MicroCost AnalyticStepModel::embedding_cost(int tp, double n) const {
  // Embedding on the first stage: a gather of n rows forward; backward a dense gradient of the
  // vocabulary shard (bf16, 2 B) accumulated into the fp32 main gradient (4 B read, 2 B read,
  // 4 B written). Vocabulary-parallel: the partial rows are all-reduced (SP: reduce-scattered)
  // forward; with SP the output gradient is all-gathered backward.
  const Workload& w = workload_;
  const TpShard s = shard_at(w, tp);
  const double act_bytes = kAct * n * w.hidden;
  MicroCost embed;
  embed.memory_fwd = gemm_.memory_time_s(2.0 * act_bytes);
  embed.memory_bwd = gemm_.memory_time_s(act_bytes + 12.0 * s.vocab * w.hidden);
  if (tp > 1) {
    const Fabric& f = tp_fabric(tp);
    if (w.sequence_parallel) {
      embed.tp_fwd = collective_time_s(f, Collective::kReduceScatter, tp, act_bytes);
      embed.tp_bwd = collective_time_s(f, Collective::kAllGather, tp, act_bytes);
    } else {
      embed.tp_fwd = collective_time_s(f, Collective::kAllReduce, tp, act_bytes);
    }
  }
  return embed;
}

AnalyticStepModel::StageCosts AnalyticStepModel::stage_costs(int tp, double n) const {
  StageCosts c;
  c.layer = layer_cost(tp, n);
  c.head = head_cost(tp, n);
  c.embedding = embedding_cost(tp, n);
  return c;
}

AnalyticStepModel::MicroCost AnalyticStepModel::stage_cost(const StageCosts& c, Stage stage,
                                                           bool with_embedding) const {
  const StageLayers layers = stage_layers(workload_, layout_);
  MicroCost out;
  const bool first = stage == Stage::kFirst || layout_.pp == 1;
  const bool last = stage == Stage::kLast || layout_.pp == 1;
  out.add(c.layer, first ? layers.first : last ? layers.last : layers.middle);
  if (last) out.add(c.head, 1.0);
  if (first && with_embedding) out.add(c.embedding, 1.0);
  return out;
}

double AnalyticStepModel::micro_s(const MicroCost& c, double speed, int tp) const {
  return c.scaled_fwd / speed + c.memory_fwd + c.tp_fwd * (1.0 - options_.tp_overlap) +
         c.scaled_bwd / speed + c.memory_bwd +
         c.tp_backward_exposed(speed, comm_sm_share(tp), options_.tp_backward_overlap) +
         cp_exposed_s(c, speed, false) + cp_exposed_s(c, speed, true);
}

AnalyticStepModel::Stage AnalyticStepModel::busiest_stage(const StageCosts& c, double speed,
                                                          int tp) const {
  // The slowest stage's micro-batch sets the pace of the steady 1F1B phase; ties go to the
  // later stage (the last stage holds the LM head).
  if (layout_.pp == 1) return Stage::kLast;
  Stage best = Stage::kLast;
  double best_s = micro_s(stage_cost(c, Stage::kLast), speed, tp);
  const bool middle = layout_.pp > 2;
  for (const Stage st : {Stage::kMiddle, Stage::kFirst}) {
    if (st == Stage::kMiddle && !middle) continue;
    const double t = micro_s(stage_cost(c, st), speed, tp);
    if (t > best_s) {
      best = st;
      best_s = t;
    }
  }
  return best;
}

double AnalyticStepModel::stage_params(int tp, Stage stage) const {
  const StageLayers layers = stage_layers(workload_, layout_);
  const bool first = stage == Stage::kFirst || layout_.pp == 1;
  const bool last = stage == Stage::kLast || layout_.pp == 1;
  const double count = first ? layers.first : last ? layers.last : layers.middle;
  const double vocab = vocab_params_per_gpu(workload_, tp) * ((first ? 1.0 : 0.0) + (last ? 1.0 : 0.0));
  return count * layer_params_per_gpu(workload_, tp) + vocab;
}

StepBreakdown AnalyticStepModel::breakdown(int tp, double batch_share, double power_ratio) const {
  NTPSIM_CHECK(tp >= 1 && tp <= layout_.tp);
  NTPSIM_CHECK(batch_share > 0 && batch_share <= 1.0 + 1e-12 && power_ratio > 0);
  if (options_.power_speeds_all_phases && power_ratio != 1.0) {
    StepBreakdown b = breakdown(tp, batch_share, 1.0);
    const double speed = power_.speedup(power_ratio);
    for (double* t : {&b.compute_s, &b.tp_comm_s, &b.cp_comm_s, &b.pp_comm_s, &b.bubble_s,
                      &b.dp_comm_s, &b.optimizer_s, &b.iteration_s}) {
      *t /= speed;
    }
    b.power_ratio = power_ratio;
    b.mfu *= speed;
    b.tokens_per_s_per_gpu *= speed;
    return b;
  }
  const Workload& w = workload_;
  StepBreakdown b;
  b.tp = tp;
  b.batch_share = batch_share;
  b.power_ratio = power_ratio;
  b.microbatches = static_cast<int>(std::ceil(microbatches_ - 1e-9));
  b.microbatch_tokens = batch_share * w.micro_batch * w.seq_len;
  b.rank_tokens = b.microbatch_tokens / layout_.cp;
  const double n = b.rank_tokens;
  const double speed = power_.speedup(power_ratio);
  const StageCosts parts = stage_costs(tp, n);
  const Stage busiest = busiest_stage(parts, speed, tp);
  const MicroCost c = stage_cost(parts, busiest);

  const double compute_f = c.scaled_fwd / speed + c.memory_fwd;
  const double compute_b = c.scaled_bwd / speed + c.memory_bwd;
  const double tp_f = c.tp_fwd * (1.0 - options_.tp_overlap);
  const double tp_b = c.tp_backward_exposed(speed, comm_sm_share(tp), options_.tp_backward_overlap);
  const double cp_f = cp_exposed_s(c, speed, false);
  const double cp_b = cp_exposed_s(c, speed, true);
  const int p = layout_.pp;
  const double v = layout_.virtual_stages;
  double p2p = 0;
  double hop = 0;  // one send/recv of a chunk's boundary tensor
  if (p > 1) {
    // Per chunk, activations forward and gradients backward. Without SP Megatron sends 1/t of
    // the tensor and all-gathers it in the receiving TP group (scatter-gather optimization);
    // with SP the tensor is already sharded.
    const double bytes = kAct * n * w.hidden;
    double one = collective_time_s(hw_.scale_out, Collective::kSendRecv, 2, bytes / tp);
    if (!w.sequence_parallel && tp > 1) {
      one += collective_time_s(tp_fabric(tp), Collective::kAllGather, tp, bytes);
    }
    hop = one;
    p2p = 2.0 * v * one;
  }
  const double m = microbatches_;
  b.compute_s = m * (compute_f + compute_b);
  b.tp_comm_s = m * (tp_f + tp_b);
  b.cp_comm_s = m * (cp_f + cp_b);
  b.pp_comm_s = m * p2p;
  if (p > 1) {
    // Fill and drain of the 1F1B / interleaved schedule (Narayanan et al. 2021, section 2.2).
    // The busiest stage waits, before its first forward, for the first micro-batch's forward
    // through one chunk of each earlier stage, one send/recv per hop, and after its last
    // backward for that micro-batch's backward through the later ones (and symmetrically for
    // the stages after it). A chunk is 1/v of its stage, so the fill and drain are the forward +
    // backward of 1/v of all the work outside the busiest stage (every other stage's layers,
    // and the LM head + loss where it is not on the busiest stage) plus 2 (p - 1) hops,
    // independent of m: for evenly split layers, (p - 1) / (v m) of the stage's layer work, as
    // in the paper. The embedding is left out of the path: a gather whose cost is negligible
    // beside a layer.
    const MicroCost busiest_layers = stage_cost(parts, busiest, false);
    const double all_s = w.layers * micro_s(parts.layer, speed, tp) + micro_s(parts.head, speed, tp);
    b.bubble_s = (all_s - micro_s(busiest_layers, speed, tp)) / v + 2.0 * (p - 1) * hop;
  }

  const double params = stage_params(tp, busiest);
  const int r = layout_.dp;
  const int grad_ranks = layout_.dp * layout_.cp;  // gradients reduce over DP x CP
  if (grad_ranks > 1) {
    b.dp_comm_s = dp_exposed_s(params, compute_f + tp_f + cp_f, compute_b + tp_b + cp_b);
  }
  const double shard = options_.distributed_optimizer ? params / grad_ranks : params;
  b.optimizer_s =
      gemm_.memory_time_s(kAdamBytesPerParam * shard + kGradBufferBytesPerParam * params);
  b.iteration_s = b.compute_s + b.tp_comm_s + b.cp_comm_s + b.pp_comm_s + b.bubble_s + b.dp_comm_s +
                  b.optimizer_s;
  b.reshard_s = plain_reshard_s(tp);

  const double gpus = static_cast<double>(tp) * layout_.cp * layout_.pp;
  b.model_flops = model_flops_per_iteration(w) / r * batch_share;
  b.mfu = b.model_flops / (b.iteration_s * gpus * gemm_.peak_flops());
  b.tokens_per_s_per_gpu = w.tokens_per_iteration() / r * batch_share / (b.iteration_s * gpus);
  return b;
}

double AnalyticStepModel::dp_collective_s(Collective kind, double bytes) const {
  // The DP group of R ranks is rail-aligned (same local index in every scale-up domain), so
  // each rank drives its own NIC. When the ranks' domains span several leaf switches, the ring
  // crosses the spine once per leaf in each direction while every rank under a leaf runs its
  // own DP ring at once: the leaf's uplinks (downlinks / oversubscription) carry
  // L/R of the leaf's traffic, slowing the ring by max(1, oversubscription × L / R).
  // The group is the R x C data- and context-parallel ranks of one (TP rank, stage); together
  // with the TP x PP GPUs that each holds a copy of, they make up the job.
  const Fabric& f = hw_.scale_out;
  const int r = layout_.dp * layout_.cp;
  const double replica = static_cast<double>(layout_.tp) * layout_.pp;
  double factor = 1.0;
  if (f.domains_per_leaf > 0 && hw_.gpus_per_domain > 0) {
    const double domains = std::ceil(r * replica / hw_.gpus_per_domain);
    const double leaves = std::min<double>(r, std::ceil(domains / f.domains_per_leaf));
    if (leaves > 1) factor = std::max(1.0, f.oversubscription * leaves / r);
  }
  const CollectiveFit fit = collective_params(f, kind, r);
  return fit.alpha_s * ring_steps(kind, r) + factor * bytes * bus_factor(kind, r) / fit.bus_bw_Bps;
}

double AnalyticStepModel::dp_exposed_s(double params, double fwd_window, double bwd_window) const {
  // Gradients are reduced (reduce-scatter with the distributed optimizer, else all-reduce) and,
  // with the distributed optimizer, updated weights all-gathered. Overlapped as Megatron does:
  // buckets of max(40M, 1M × R) parameters are reduced as the last micro-batch's backward
  // produces them, so the traffic hides behind that backward except the last bucket; the
  // weight all-gather of each bucket is issued ahead of the first micro-batch's forward, the
  // first bucket exposed. Not overlapped: all of it is exposed.
  const int r = layout_.dp * layout_.cp;
  const double bucket =
      std::min(params, std::max(kMinBucketParams, kBucketParamsPerRank * static_cast<double>(r)));
  auto exposed = [&](Collective kind, double bytes_per_param, bool overlap, double window) {
    const double total = dp_collective_s(kind, params * bytes_per_param);
    if (!overlap) return total;
    const double last = dp_collective_s(kind, bucket * bytes_per_param);
    return std::max(last, total - window);
  };
  if (!options_.distributed_optimizer) {
    return exposed(Collective::kAllReduce, options_.grad_bytes, options_.overlap_grad_reduce,
                   bwd_window);
  }
  return exposed(Collective::kReduceScatter, options_.grad_bytes, options_.overlap_grad_reduce,
                 bwd_window) +
         exposed(Collective::kAllGather, kAct, options_.overlap_param_gather, fwd_window);
}

double AnalyticStepModel::replica_iteration_s(int tp, double batch_share,
                                              double power_ratio) const {
  const int t = effective_tp(tp);
  if (batch_share == 1.0 && power_ratio == 1.0) return whole_batch_s_[t];
  return breakdown(t, batch_share, power_ratio).iteration_s;
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
  const double nominal_tokens =
      static_cast<double>(workload_.micro_batch) * workload_.seq_len / layout_.cp;
  const StageCosts parts = stage_costs(big_t, nominal_tokens);
  const double shard_bytes =
      stage_params(big_t, busiest_stage(parts, 1.0, big_t)) * options_.grad_bytes;
  const double extra = big_t - tp;
  const double busiest = shard_bytes * std::max(1.0, extra / tp);
  const CollectiveFit f = collective_params(tp_fabric(big_t), Collective::kAllToAll, big_t);
  return 2.0 * (f.alpha_s * extra + busiest / f.bus_bw_Bps);
}

double AnalyticStepModel::gpu_power_w(double power_ratio) const {
  // Time-weighted over a healthy iteration: compute phases at the set power, the rest at the
  // communication-phase power.
  const StepBreakdown b = power_ratio == 1.0 ? nominal_ : breakdown(layout_.tp, 1.0, power_ratio);
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
