// Published Megatron-LM step times and the analytic model's predictions of them, shared by the
// model tests and `ntpsim validate` so both report the same points.
//
// Source: V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
// MLSys 2023, arXiv 2205.05198, on Selene (DGX A100 80GB): Table 4 (one 22B layer, TP 8,
// micro-batch 4, forward + backward), Table 5 (iteration times; configurations from Table 3) and
// the 530B run with 8-way data parallelism (gradient all-reduce not overlapped). Every point
// uses the spec-derived a100-sxm-80gb profile and the software of that run (unfused attention,
// no distributed optimizer, no DP overlap); nothing is fitted per configuration.
// Pure function; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "models/hardware.h"
#include "models/workload.h"

namespace ntpsim::models {

struct StepValidationPoint {
  std::string name;    // e.g. "Table 5: 175B, SP + selective"
  std::string layout;  // e.g. "TP8 PP8 v3, batch 64"
  double measured_s = 0;
  double predicted_s = 0;
  double error() const { return predicted_s / measured_s - 1.0; }
};

// Every published point, in the paper's order. REQUIRES: an A100 80GB profile.
std::vector<StepValidationPoint> megatron_step_validation(const HardwareProfile& a100);

// The response to the micro-batch count: D. Narayanan et al., "Efficient Large-Scale Language
// Model Training on GPU Clusters Using Megatron-LM", SC'21, arXiv 2104.04473, Table 2 (PTD-P
// rows), on Selene (DGX A100 80GB). Each model keeps its TP 8 x PP layout and global batch while
// the GPUs double twice, so DP doubles and the micro-batches per replica halve: what changes is
// only how the per-iteration costs (pipeline fill and drain, DP all-reduce, optimizer) weigh
// against the per-micro-batch work. Throughput is the paper's per-GPU teraFLOP/s of its
// equation 3 (GEMM FLOPs with the recomputed forward) over the iteration time; the paper prints
// it rounded to 1 TFLOP/s. The runs use full recompute, no SP, micro-batch 1 and the 2021
// Megatron-LM (the same software options as megatron_step_validation). Section 5.1 says the
// interleaved schedule was used but not with how many chunks, so every point is predicted under
// both schedules: non-interleaved (v 1) and interleaved with v_interleaved chunks.
struct StrongScalingPoint {
  int gpus = 0;
  int dp = 0;
  int microbatches = 0;            // per replica
  double measured_tflops = 0;      // per GPU, as printed
  double flops = 0;                // the paper's equation 3 for one iteration
  double predicted_s[2] = {0, 0};  // iteration time: [0] non-interleaved, [1] interleaved
  double measured_s() const { return flops / (gpus * measured_tflops * 1e12); }
  double predicted_tflops(int schedule) const {
    return flops / (gpus * predicted_s[schedule] * 1e12);
  }
  double error(int schedule) const { return predicted_tflops(schedule) / measured_tflops - 1.0; }
};

struct StrongScalingSeries {
  std::string model;   // e.g. "GPT 175B"
  std::string layout;  // e.g. "TP8 PP12, batch 1536"
  int v_interleaved = 1;
  std::string v_source;                    // why that chunk count
  std::vector<StrongScalingPoint> points;  // micro-batches per replica decreasing
  // Throughput at the fewest micro-batches relative to the most, minus one (negative: a drop).
  double measured_change() const;
  double predicted_change(int schedule) const;
};

// Least-squares fit of iteration time = a x m + c over a series: `a` the time one more
// micro-batch adds, `c` what does not scale with m (fill and drain, DP, optimizer). The
// response to m is c / a; a model that over-reacts has too large a c / a.
struct TimeFit {
  double per_microbatch_s = 0;
  double fixed_s = 0;
};
TimeFit fit_time(const std::vector<int>& microbatches, const std::vector<double>& times_s);

// Narayanan Table 2's PTD-P rows (175B and 530B). REQUIRES: an A100 80GB profile.
std::vector<StrongScalingSeries> megatron_strong_scaling(const HardwareProfile& a100);

// Llama 3 405B pre-training on H100 (Llama Team, "The Llama 3 Herd of Models", arXiv
// 2407.21783, Table 4): TP 8 x PP 16 at sequence 8,192 and 16M tokens per iteration on 8,192
// GPUs (DP 64) and 16,384 GPUs (DP 128), BF16 TFLOP/s per GPU as measured; a third row at
// sequence 131,072 with 16-way context parallelism (DP 8; K and V all-gathered over the CP
// ranks, the exchange exposed, as section 3.3.2 describes). Modelled with
// the spec-derived h100-sxm profile, Megatron-style software defaults (flash attention,
// distributed optimizer with bucketed overlap), micro-batch 1, and section 3.3.2's setup: no
// activation recompute, an interleaved schedule with the embedding and the loss each in place
// of one layer (126 + 2 = 16 stages x 8 chunks of one). Throughput uses ntpsim's model FLOPs
// (model_flops_per_iteration); the paper does not state its FLOP count.
struct Llama3StepPoint {
  std::string name;  // e.g. "8,192 GPUs, DP 64"
  int gpus = 0;
  int dp = 0;
  int cp = 1;
  int seq_len = 0;
  int microbatches = 0;            // per replica
  double measured_tflops = 0;      // per GPU
  double measured_mfu = 0;         // as printed (BF16 MFU)
  double predicted_tflops = 0;     // per GPU
  double predicted_s = 0;          // iteration time
  double predicted_tokens_per_s = 0;  // per GPU
  double predicted_cp_comm_s = 0;     // exposed K/V exchange of the iteration (CP > 1)
  double error() const { return predicted_tflops / measured_tflops - 1.0; }
  // The prediction on a count of `flops_per_token` against the figure as printed.
  double error_on(double flops_per_token) const {
    return predicted_tokens_per_s * flops_per_token * 1e-12 / measured_tflops - 1.0;
  }
};

// REQUIRES: an H100 SXM profile.
std::vector<Llama3StepPoint> llama3_step_validation(const HardwareProfile& h100);

// Training FLOPs per token (forward + backward, no recompute) under the three counts that
// published TFLOP/s and MFU figures use; a paper that does not say which it used can be compared
// on each. The prediction is a token rate, so a count c turns it into c x tokens/s: a smaller
// count than ntpsim's lowers the predicted TFLOP/s, never raises it.
//  - full: ntpsim's model_flops_per_iteration (Megatron's 2021 count, PaLM's 6N + 12·L·H·Q·T):
//    the GEMMs and the attention scores over the full s x s;
//  - causal: the same with the attention scores halved for the causal mask, as Megatron-LM and
//    NeMo count today (their llama formula's 12·s/h term times 0.5);
//  - six_n: 6 x every parameter (embedding and LM head included, no attention scores), the
//    6·N·D of compute budgets.
struct FlopCounts {
  double full = 0;
  double causal = 0;
  double six_n = 0;
};
FlopCounts training_flops_per_token(const Workload& w);

// A published throughput in both units, whose ratio is the FLOP count per token its authors
// used: NeMo's Llama 3.1 405B pre-training row on DGX H100 (Megatron-Bridge performance
// summary, 25.09 container: 1,024 GPUs, FP8, TP 8 x PP 8 x CP 2, VP 8, sequence 8,192).
struct PublishedRate {
  double tflops = 0;        // model TFLOP/s per GPU
  double tokens_per_s = 0;  // per GPU
};
inline constexpr PublishedRate kNemoLlama405bH100{763, 302};

// The Llama 3 405B workload of Meta's Table 4 at sequence `seq_len` (16M tokens per iteration,
// micro-batch 1, no recompute, SP, no dropout), as llama3_step_validation models it.
Workload llama3_405b_table4(int seq_len);

}  // namespace ntpsim::models
