// What to measure: GEMM shapes of a transformer layer at the TP degrees of interest, explicit
// grids, and message-size ladders for collectives and reshards (DESIGN.md §4, §5).
//
// Shapes follow Megatron-LM's tensor parallelism: at TP degree t the busiest GPU holds
// ceil(units / t) of each split dimension (heads, KV heads, FFN columns), so non-dividing degrees
// (71, 70, 63, ...) give the shapes the damaged replica really runs. Plain C++ (used by ntpcal).
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/backend.h"

namespace ntpsim::calibrate {

// ceil(a / b) for a >= 0, b > 0: tiles, waves and per-GPU shares of split dimensions.
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The dimensions of one dense decoder layer and its micro-batch; all > 0 (kv_heads divides heads).
struct LayerDims {
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  int ffn = 0;
  bool gated_ffn = true;    // SwiGLU: up and gate projections fused into one GEMM
  int seq_len = 0;
  int micro_batch = 1;
  int vocab = 0;  // > 0 adds the LM head (vocabulary-parallel: padded_vocab / t rows)
};

// Reads the layer dimensions from a flat workload file (models/workloads/*.yaml: top-level
// `key: value  # comment` lines). Only hidden, heads, kv_heads, ffn, gated_ffn, seq_len,
// micro_batch and vocab are used (others are ignored); they must be plain integers / true|false.
// ntpcal reads workloads this way because GPU machines may lack yaml-cpp. Errors name
// `name:line`; missing hidden/heads/ffn/seq_len are errors; kv_heads defaults to heads.
Result<LayerDims> parse_flat_workload(const std::string& text, const std::string& name);

// The three GEMMs of a linear layer in training.
enum class Pass { kForward, kDataGrad, kWeightGrad };
// The layout Transformer Engine runs a pass's GEMM in: bf16 forward TN, data gradient NN, weight
// gradient NT; the 8-bit types TN for every pass (TE keeps transposed fp8/mxfp8 copies of the
// operands so that each GEMM is TN, the only fp8 layout cuBLASLt runs before Blackwell).
GemmLayout pass_layout(GemmDType dtype, Pass pass);

// The vocabulary as Megatron-LM pads it for TP degree t: up to a multiple of 128 * t (its
// make_vocab_size_divisible_by = 128), so every rank's LM-head slice is a multiple of 128.
int64_t padded_vocab(int64_t vocab, int t);

// The per-layer GEMMs at each TP degree in `tps`: QKV, attention output, MLP up(+gate), MLP down,
// and the LM head when d.vocab > 0;
// forward, and with `backward` also the data-gradient (m, k, n) and weight-gradient (n, k, m)
// GEMMs, each in its pass's layout (pass_layout). Identical (layout, m, n, k) are measured once
// (their labels joined with '|'). With sequence parallelism the GEMM's m is still the full
// micro-batch's tokens (after the all-gather).
std::vector<GemmRequest> layer_shapes(const LayerDims& d, const std::vector<int>& tps,
                                      GemmDType dtype, bool backward);

// Every (m, n, k) of the cartesian product, in one layout.
std::vector<GemmRequest> grid_shapes(const std::vector<int64_t>& ms, const std::vector<int64_t>& ns,
                                     const std::vector<int64_t>& ks, GemmDType dtype,
                                     GemmLayout layout = GemmLayout::kTN);

// Square shapes s x s x s: the intensity ladder the power subcommand walks.
std::vector<GemmRequest> square_shapes(const std::vector<int64_t>& sizes, GemmDType dtype,
                                       GemmLayout layout = GemmLayout::kTN);

// lo, lo*factor, ... up to and including hi (when reached). REQUIRES: 0 < lo <= hi, factor > 1.
std::vector<int64_t> geometric(int64_t lo, int64_t hi, double factor);

}  // namespace ntpsim::calibrate
