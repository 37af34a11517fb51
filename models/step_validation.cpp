#include "models/step_validation.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <utility>

#include "models/analytic_step_model.h"
#include "models/base/check.h"
#include "models/transformer_shapes.h"

namespace ntpsim::models {

namespace {

Workload gpt(int layers, int hidden, int heads, int batch, int micro) {
  Workload w;
  w.name = "gpt";
  w.layers = layers;
  w.hidden = hidden;
  w.heads = heads;
  w.kv_heads = heads;
  w.ffn = 4 * hidden;
  w.gated_ffn = false;
  w.vocab = 51200;
  w.seq_len = 2048;
  w.global_batch = batch;
  w.micro_batch = micro;
  w.recompute = Recompute::kSelective;
  w.sequence_parallel = true;
  return w;
}

// The 2022 Megatron-LM of the paper: unfused attention, data parallelism by a plain all-reduce
// of fp32 gradients after the backward.
StepOptions megatron_2022() {
  StepOptions o;
  o.flash_attention = false;
  o.distributed_optimizer = false;
  o.overlap_grad_reduce = false;
  o.overlap_param_gather = false;
  return o;
}

struct Table5Row {
  const char* name;
  int layers, hidden, heads, pp, vp, batch, micro;
  double full_s, present_s;
};

constexpr Table5Row kTable5[] = {
    {"22B", 48, 6144, 64, 1, 1, 4, 4, 1.42, 1.10},
    {"175B", 96, 12288, 96, 8, 3, 64, 1, 18.13, 13.75},
    {"530B", 105, 20480, 128, 35, 3, 280, 1, 49.05, 37.83},
    {"1T", 128, 25600, 160, 64, 1, 512, 1, 94.42, 71.49},
};

struct Table4Row {
  const char* name;
  bool sp;
  Recompute recompute;
  double forward_ms, backward_ms;
};

constexpr Table4Row kTable4[] = {
    {"baseline", false, Recompute::kNone, 7.7, 11.9},
    {"SP", true, Recompute::kNone, 7.2, 11.8},
    {"full recompute", false, Recompute::kFull, 7.7, 19.5},
    {"selective recompute", false, Recompute::kSelective, 7.7, 13.2},
    {"SP + selective", true, Recompute::kSelective, 7.2, 13.1},
};

struct Table2Series {
  const char* model;
  int layers, hidden, heads, pp, batch, v;
  const char* v_source;
  int gpus[3];
  double tflops[3];
};

// Narayanan et al. 2021, Table 2, PTD-P rows (model-parallel size 96 = TP 8 x PP 12 for 175B,
// 280 = TP 8 x PP 35 for 530B; micro-batch 1).
constexpr Table2Series kTable2[] = {
    {"GPT 175B",
     96,
     12288,
     96,
     12,
     1536,
     2,
     "four layers per chunk, as Korthikanti et al. 2022 interleave this model",
     {384, 768, 1536},
     {153, 149, 141}},
    {"GPT 530B",
     105,
     20480,
     128,
     35,
     2240,
     3,
     "one layer per chunk, as Korthikanti et al. 2022 run this layout",
     {560, 1120, 2240},
     {171, 167, 159}},
};

// The paper's equation 3: GEMM FLOPs of one iteration with the recomputed forward.
double narayanan_flops(const Workload& w) {
  const double b = w.global_batch;
  const double s = w.seq_len;
  const double l = w.layers;
  const double h = w.hidden;
  return 96.0 * b * s * l * h * h * (1.0 + s / (6.0 * h) + w.vocab / (16.0 * l * h));
}

}  // namespace

double StrongScalingSeries::measured_change() const {
  return points.back().measured_tflops / points.front().measured_tflops - 1.0;
}

double StrongScalingSeries::predicted_change(int schedule) const {
  return points.back().predicted_tflops(schedule) / points.front().predicted_tflops(schedule) - 1.0;
}

TimeFit fit_time(const std::vector<int>& microbatches, const std::vector<double>& times_s) {
  NTPSIM_CHECK(microbatches.size() == times_s.size() && microbatches.size() >= 2);
  const auto n = static_cast<Eigen::Index>(microbatches.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd t(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    a(i, 0) = microbatches[static_cast<size_t>(i)];
    a(i, 1) = 1.0;
    t(i) = times_s[static_cast<size_t>(i)];
  }
  const Eigen::Vector2d x = a.colPivHouseholderQr().solve(t);
  return {x(0), x(1)};
}

std::vector<StrongScalingSeries> megatron_strong_scaling(const HardwareProfile& a100) {
  std::vector<StrongScalingSeries> out;
  const StepOptions o = megatron_2022();
  for (const Table2Series& r : kTable2) {
    StrongScalingSeries series;
    series.model = r.model;
    series.layout = fmt::format("TP8 PP{}, batch {}, micro-batch 1", r.pp, r.batch);
    series.v_interleaved = r.v;
    series.v_source = r.v_source;
    Workload w = gpt(r.layers, r.hidden, r.heads, r.batch, 1);
    w.recompute = Recompute::kFull;
    w.sequence_parallel = false;
    for (int i = 0; i < 3; ++i) {
      StrongScalingPoint p;
      p.gpus = r.gpus[i];
      p.dp = r.gpus[i] / (8 * r.pp);
      p.microbatches = r.batch / p.dp;
      p.measured_tflops = r.tflops[i];
      p.flops = narayanan_flops(w);
      for (const int schedule : {0, 1}) {
        const AnalyticStepModel m(w, Layout{8, r.pp, p.dp, schedule == 0 ? 1 : r.v}, a100, o);
        p.predicted_s[schedule] = m.breakdown(8, 1.0, 1.0).iteration_s;
      }
      series.points.push_back(p);
    }
    out.push_back(std::move(series));
  }
  return out;
}

std::vector<StepValidationPoint> megatron_step_validation(const HardwareProfile& a100) {
  std::vector<StepValidationPoint> out;
  const StepOptions o = megatron_2022();
  for (const Table4Row& r : kTable4) {
    Workload w = gpt(48, 6144, 64, 4, 4);
    w.sequence_parallel = r.sp;
    w.recompute = r.recompute;
    const AnalyticStepModel m(w, Layout{8, 1, 1, 1}, a100, o);
    const LayerTimes t = m.layer_times(8);
    out.push_back({fmt::format("Table 4: 22B layer, {}", r.name), "TP8, micro-batch 4",
                   (r.forward_ms + r.backward_ms) * 1e-3, t.forward_s + t.backward_s});
  }
  for (const Table5Row& r : kTable5) {
    for (const bool present : {false, true}) {
      Workload w = gpt(r.layers, r.hidden, r.heads, r.batch, r.micro);
      w.recompute = present ? Recompute::kSelective : Recompute::kFull;
      w.sequence_parallel = present;
      const AnalyticStepModel m(w, Layout{8, r.pp, 1, r.vp}, a100, o);
      const std::string layout =
          r.pp == 1 ? fmt::format("TP8, batch {} (micro {})", r.batch, r.micro)
                    : fmt::format("TP8 PP{}{}, batch {}", r.pp,
                                  r.vp > 1 ? fmt::format(" v{}", r.vp) : std::string(), r.batch);
      out.push_back(
          {fmt::format("Table 5: {}, {}", r.name, present ? "SP + selective" : "full recompute"),
           layout, present ? r.present_s : r.full_s, m.breakdown(8, 1.0, 1.0).iteration_s});
    }
  }
  {
    const Table5Row& r = kTable5[2];
    Workload w = gpt(r.layers, r.hidden, r.heads, 8 * r.batch, r.micro);
    const AnalyticStepModel m(w, Layout{8, r.pp, 8, r.vp}, a100, o);
    out.push_back({"530B, DP 8, SP + selective", "TP8 PP35 v3 DP8, batch 2240", 39.15,
                   m.breakdown(8, 1.0, 1.0).iteration_s});
  }
  return out;
}

std::vector<Llama3StepPoint> llama3_step_validation(const HardwareProfile& h100) {
  struct Row {
    const char* name;
    int gpus, cp, dp, seq;
    double tflops, mfu;
  };
  constexpr Row kLlama3Table4[] = {
      {"8,192 GPUs, DP 64", 8192, 1, 64, 8192, 430, 0.43},
      {"16,384 GPUs, DP 128", 16384, 1, 128, 8192, 400, 0.41},
      {"16,384 GPUs, CP 16, DP 8", 16384, 16, 8, 131072, 380, 0.38},
  };
  std::vector<Llama3StepPoint> out;
  for (const Row& r : kLlama3Table4) {
    Llama3StepPoint p;
    p.name = r.name;
    p.gpus = r.gpus;
    p.dp = r.dp;
    p.cp = r.cp;
    p.seq_len = r.seq;
    p.measured_tflops = r.tflops;
    p.measured_mfu = r.mfu;
    const Workload w = llama3_405b_table4(r.seq);
    p.microbatches = w.global_batch / r.dp;
    Layout l{8, 16, r.dp, 8};
    l.account_for_embedding = true;
    l.account_for_loss = true;
    l.cp = r.cp;
    // Section 3.3.2: Meta's CP all-gathers K and V (then attends the local queries) rather than
    // passing them around a ring, the exchange exposed; 2 x CP chunks as Megatron-LM balances.
    StepOptions o;
    o.cp_exchange = StepOptions::CpExchange::kAllGather;
    const AnalyticStepModel m(w, l, h100, o);
    const StepBreakdown b = m.breakdown(8, 1.0, 1.0);
    p.predicted_s = b.iteration_s;
    p.predicted_tflops = b.model_flops / (b.iteration_s * l.replica_gpus()) * 1e-12;
    p.predicted_tokens_per_s = b.tokens_per_s_per_gpu;
    p.predicted_cp_comm_s = b.cp_comm_s;
    out.push_back(p);
  }
  return out;
}

Workload llama3_405b_table4(int seq_len) {
  Workload w;
  w.name = "llama3-405b";
  w.layers = 126;
  w.hidden = 16384;
  w.heads = 128;
  w.kv_heads = 8;
  w.ffn = 53248;
  w.gated_ffn = true;
  w.vocab = 128256;
  w.seq_len = seq_len;
  w.global_batch = 16 * 1024 * 1024 / seq_len;  // 16M tokens
  w.micro_batch = 1;
  w.recompute = Recompute::kNone;  // section 3.3.2: "without activation checkpointing"
  w.sequence_parallel = true;
  w.dropout = false;  // the released config: attention_dropout 0.0, no other dropout
  return w;
}

FlopCounts training_flops_per_token(const Workload& w) {
  FlopCounts c;
  c.full = model_flops_per_iteration(w) / w.tokens_per_iteration();
  // The attention scores in full, forward and backward (three forwards) in every layer; causal
  // counts half.
  const double scores = 3.0 * w.layers * attention_scores_forward_flops_per_token(w);
  c.causal = c.full - 0.5 * scores;
  c.six_n = 6.0 * w.parameters();
  return c;
}

}  // namespace ntpsim::models
