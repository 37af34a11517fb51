// The analytic step-time model of a dense decoder transformer under Megatron-style
// TP × CP × PP × DP (DESIGN.md §4). Implements StepModel and also exposes the full breakdown.
//
// Per micro-batch on the busiest GPU of the busiest pipeline stage (the slowest of the first
// stage: its layers + the embedding, a middle stage, and the last stage: its layers + the LM
// head and loss; layers per stage from stage_layers(), Megatron's split options included), at
// TP degree t with ceil(units/t) shards (transformer_shapes.h):
//  - GEMMs (QKV with GQA, attention output, FFN up/gate/down, LM head) through GemmModel, with
//    backward = data-gradient + weight-gradient GEMMs of the transposed shapes;
//  - fused causal attention (half of Megatron's full s² FLOPs, at gemm.attention_efficiency of
//    the BF16 peak),
//    backward 2.5× forward (FlashAttention's five matmuls against two); or, unfused, batched
//    score GEMMs and 9 B/score forward (18 backward) of softmax/dropout traffic (4 and 13
//    without dropout);
//  - memory-bound kernels (norms, residuals, activations, rotary, cross-entropy) as HBM
//    traffic plus the per-kernel fixed cost (gemm.overhead);
//  - TP collectives in the scale-up domain, scheduled as Megatron does: forward collectives
//    exposed (less tp_overlap); backward, the column-parallel input-gradient all-reduce (or
//    SP reduce-scatter) runs beside that layer's weight-gradient GEMM and SP's repeated input
//    all-gather beside the data-gradient GEMM, while SP's all-gather of the row-parallel output
//    gradient is exposed; a collective beside a GEMM takes the fabric's comm_sms SMs from it,
//    so it adds max(comm - gemm, comm x comm_sms / sm_count);
//  - recompute: selective adds the attention-core forward to backward, full a whole forward
//    whose collectives overlap nothing;
//  - CP (context parallelism, degree C): every rank of a CP group works on s/C tokens of each
//    sequence (2C chunks, rank i holding chunks i and 2C-1-i, so each rank does 1/C of the
//    causal attention work): GEMMs, memory-bound kernels, TP collectives, the LM head and the
//    PP boundary tensors all scale with s/C; attention exchanges the local K and V (kv_heads x
//    head_dim per token and TP rank, not hidden: GQA) over the CP group (scale-up when the TP x
//    C ranks fit in one domain, else scale-out), as StepOptions::cp_exchange says: Transformer
//    Engine's ring (C-1 send/recv hops forward, each hidden behind one of the C equal attention
//    steps, what exceeds them exposed; backward C-1 hops of K, V and their gradients behind
//    the backward steps plus the last gradient hop exposed), or an all-gather of K and V
//    (exposed) forward and again backward plus a reduce-scatter of their gradients (exposed);
//    a recomputed attention repeats the forward exchange;
//  - PP: one send/recv of the b·s·h/t boundary activations per chunk each way (scale-out; plus
//    the receiver's all-gather without SP); the fill and drain add 1/v of all the work outside
//    the busiest stage (other stages' layers, and the LM head where it is not on it; the
//    embedding gather is negligible) forward and backward and 2(p-1) send/recv hops, independent of
//    m: bubble (p-1)/(v·m) of the layer work for evenly split layers;
//  - DP: distributed-optimizer reduce-scatter of fp32 gradients and all-gather of bf16 weights,
//    or a plain all-reduce, over the R x C ranks (Megatron reduces gradients and shards the
//    optimizer over data- and context-parallel ranks together) on the scale-out network
//    (rail-aligned, slowed by leaf oversubscription when the ring spans leaves); with Megatron's
//    bucketed overlap all but the last gradient bucket hide behind the last micro-batch's backward
//    and all but the first weight bucket behind the first forward;
//  - optimizer step: Adam, master-to-model copy and gradient norm over the optimizer shard,
//    gradient scaling and zeroing over every local parameter, as HBM traffic;
//  - non-layer work: embedding gather and gradient, LM head GEMMs and Megatron's fp32
//    vocabulary-parallel cross-entropy;
//  - NTP reshard (healthy replicas, when damaged ones run at t < T): the T - t extra ranks send
//    their gradient shards to the t core ranks over the domain before the DP sync and back after.
// A damaged replica carrying batch share x keeps its micro-batch count and shrinks each
// micro-batch to x of its tokens (as Megatron-LM's NTP does). A replica left with t < T GPUs runs
// at the fastest degree t' in [min_tp, t] (at full share and TDP), leaving the rest idle as NTP
// pads replicas, so replica_iteration_s is non-increasing in t below T; breakdown(t) is the
// plain degree-t cost. Power ratio r speeds GEMMs and
// attention by PowerModel::speedup(r); memory-bound and communication phases do not speed up.
// Immutable after construction; thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "models/collective_model.h"
#include "models/gemm_model.h"
#include "models/power_model.h"
#include "models/step_model.h"
#include "models/transformer_shapes.h"

namespace ntpsim::models {

// Software settings of the modelled Megatron run (not hardware properties).
struct StepOptions {
  double tp_overlap = 0.0;  // share of forward TP communication hidden (TE --tp-comm-overlap)
  bool tp_backward_overlap = true;  // backward TP collectives overlap weight-gradient GEMMs
  // DP: Megatron's distributed optimizer (reduce-scatter gradients, all-gather weights) or a
  // plain all-reduce of gradients; bucketed overlap of the gradient reduction with the last
  // backward (--overlap-grad-reduce) and of the weight all-gather with the first forward
  // (--overlap-param-gather).
  bool distributed_optimizer = true;
  bool overlap_grad_reduce = true;
  bool overlap_param_gather = true;
  double grad_bytes = 4.0;  // bytes per gradient element in the DP reduction (fp32)
  // Fused (flash) causal attention. false: Megatron's older unfused path — batched Q·K^T and P·V
  // GEMMs over the full s x s scores plus memory-bound scale/mask/softmax/dropout kernels.
  bool flash_attention = true;
  // Power speeds up only compute-bound kernels (GEMMs, attention): memory-bound kernels and
  // communication run at the same speed at any power. true: every phase speeds up by
  // PowerModel::speedup, the implicit assumption of a perf-per-GPU-work argument such as the
  // NTP paper's (kept to test against it, not a physical setting).
  bool power_speeds_all_phases = false;
  // How attention exchanges K and V among the context-parallel ranks (unused at CP 1).
  // kRing: Transformer Engine's point-to-point ring (Megatron-LM's default, --cp-comm-type
  // p2p), overlapped with the attention steps. kAllGather: all-gather K and V, then attend the
  // local queries, the exchange exposed (Llama 3's choice, arXiv 2407.21783 §3.3.2).
  enum class CpExchange { kRing, kAllGather };
  CpExchange cp_exchange = CpExchange::kRing;
};

// One iteration of one DP replica, seconds unless named otherwise.
struct StepBreakdown {
  int tp = 0;
  double batch_share = 1.0;
  double power_ratio = 1.0;
  int microbatches = 0;             // m per replica (rounded up)
  double microbatch_tokens = 0;     // tokens in one micro-batch (after the batch share)
  double rank_tokens = 0;           // of them, what one context-parallel rank works on
  double compute_s = 0;             // GEMMs, attention, memory-bound kernels, over m micro-batches
  double tp_comm_s = 0;             // exposed TP collectives
  double cp_comm_s = 0;             // exposed context-parallel K/V exchange
  double pp_comm_s = 0;             // pipeline send/recv
  double bubble_s = 0;              // pipeline fill and drain
  double dp_comm_s = 0;             // exposed DP reduce-scatter + all-gather
  double optimizer_s = 0;           // optimizer step
  double iteration_s = 0;           // sum of the above
  double reshard_s = 0;             // NTP reshard the healthy replicas add when tp < nominal
  double model_flops = 0;           // model FLOPs of this replica's share of the iteration
  double mfu = 0;                   // model_flops / (iteration_s × GPUs in use × peak)
  double tokens_per_s_per_gpu = 0;  // over the GPUs in use (tp × cp × pp)
};

// One transformer layer for one micro-batch on the busiest GPU, at TDP.
struct LayerTimes {
  double forward_s = 0;   // compute + exposed forward TP and CP communication
  double backward_s = 0;  // compute, recompute, exposed backward TP and CP communication
};

// Whether every context-parallel group lies inside one scale-up domain of `domain_gpus` GPUs
// (0: no domains). Megatron-LM orders ranks tp-cp-dp-pp, so a CP group is `cp` consecutive TP
// groups of `tp` GPUs, and a domain holds floor(domain_gpus / tp) TP groups: the CP groups are
// inside domains when `cp` divides that count. Otherwise some straddle two domains, and their K/V
// exchange crosses the scale-out network.
bool cp_groups_in_domains(int domain_gpus, int tp, int cp);

class AnalyticStepModel final : public StepModel {
 public:
  AnalyticStepModel(const Workload& w, const Layout& l, const HardwareProfile& h,
                    const StepOptions& options = {});

  std::string name() const override { return "analytic"; }
  int nominal_tp() const override { return layout_.tp; }
  int min_tp() const override { return min_tp_; }
  double replica_iteration_s(int tp, double batch_share, double power_ratio) const override;
  double reshard_overhead_s(int tp) const override;
  double gpu_power_w(double power_ratio) const override;
  double max_power_ratio() const override { return power_.max_ratio(); }

  // REQUIRES: 1 <= tp <= nominal_tp(), batch_share in (0, 1], power_ratio > 0.
  StepBreakdown breakdown(int tp, double batch_share, double power_ratio) const;
  // One layer of one full micro-batch (a CP rank's share of it) at degree tp.
  // REQUIRES: 1 <= tp <= nominal_tp().
  LayerTimes layer_times(int tp) const;
  // The degree a replica with `tp` usable GPUs runs at (see above). REQUIRES: 1 <= tp <= T.
  int effective_tp(int tp) const;
  // Whether the nominal layout fits in memory (min_tp() is nominal_tp() when it does not).
  bool nominal_fits() const { return nominal_fits_; }
  const PowerModel& power_model() const { return power_; }

 private:
  struct MicroCost;
  struct StageCosts;
  enum class Stage { kFirst, kMiddle, kLast };
  MicroCost layer_cost(int tp, double tokens) const;
  void add_attention(const TpShard& s, double tokens, MicroCost& c) const;
  // The K/V exchange among the CP ranks around a layer's attention (after add_attention).
  void add_cp_exchange(const TpShard& s, double tokens, double attention_fwd, double attention_bwd,
                       MicroCost& c) const;
  const Fabric& cp_fabric() const;
  double cp_sm_share() const;
  // Exposed CP exchange of `c` forward and backward at GEMM speed-up `speed`.
  double cp_exposed_s(const MicroCost& c, double speed, bool backward) const;
  // The one home of the non-layer work: the LM head and loss (last stage) and the embedding
  // (first stage), per micro-batch.
  MicroCost head_cost(int tp, double tokens) const;
  MicroCost embedding_cost(int tp, double tokens) const;
  StageCosts stage_costs(int tp, double tokens) const;
  // One micro-batch on `stage` (its layers, stage_layers(), plus the embedding or the head).
  MicroCost stage_cost(const StageCosts& c, Stage stage, bool with_embedding = true) const;
  // Forward + backward time of `c` at GEMM speed-up `speed`, exposed communication included.
  double micro_s(const MicroCost& c, double speed, int tp) const;
  Stage busiest_stage(const StageCosts& c, double speed, int tp) const;
  const Fabric& tp_fabric(int tp) const;
  double comm_sm_share(int tp) const;
  double dp_collective_s(Collective kind, double bytes) const;
  double dp_exposed_s(double params, double fwd_window, double bwd_window) const;
  double stage_params(int tp, Stage stage) const;
  double plain_reshard_s(int tp) const;

  Workload workload_;
  Layout layout_;
  HardwareProfile hw_;
  StepOptions options_;
  GemmModel gemm_;
  PowerModel power_;
  double microbatches_ = 1;  // per replica, fractional when the batch does not divide
  int min_tp_ = 1;
  bool nominal_fits_ = true;
  std::vector<int> effective_tp_;  // indexed by tp; filled for [min_tp, T]
  // breakdown(t, 1, 1), the whole batch at nominal power, asked of every scenario's healthy
  // iteration, power and degraded degrees: computed once, bit for bit the value a call gives.
  StepBreakdown nominal_;              // at t = T
  std::vector<double> whole_batch_s_;  // its iteration_s, indexed by tp; filled for [min_tp, T]
};

}  // namespace ntpsim::models
