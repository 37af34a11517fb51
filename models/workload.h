// The training job's model and its parallel layout (DESIGN.md §3.1, §4).
//
// `Workload` describes a dense decoder transformer and its batch; `Layout` the Megatron-style
// parallelism (TP inside a scale-up domain, CP, PP and DP across domains; the world is
// TP x CP x PP x DP, Megatron-LM's order tp-cp-dp-pp). Both are plain values read
// from YAML (inline, or a file under models/workloads/) by `read_workload` / `read_layout`.
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "models/base/yaml_reader.h"

namespace ntpsim::models {

enum class Recompute { kNone, kSelective, kFull };
enum class DType { kBF16, kFP8 };

struct Workload {
  std::string name;              // e.g. "llama3-405b"
  std::string source;            // file it was read from, or "inline"
  int layers = 0;                // transformer blocks
  int hidden = 0;                // model width h
  int heads = 0;                 // attention (query) heads
  int kv_heads = 0;              // key/value heads (GQA); = heads for MHA. 0 when read means = heads
  int ffn = 0;                   // FFN inner size
  bool gated_ffn = true;         // SwiGLU-style (up + gate + down) vs plain (up + down)
  int vocab = 0;                 // vocabulary size
  int seq_len = 0;               // tokens per sequence
  int global_batch = 0;          // sequences per iteration (the mini-batch)
  int micro_batch = 1;           // sequences per micro-batch
  DType dtype = DType::kBF16;    // GEMM precision
  Recompute recompute = Recompute::kNone;
  bool sequence_parallel = true; // Megatron sequence parallelism (AG + RS instead of AR)
  // Dropout after attention and after the MLP (and on the attention probabilities when
  // attention is unfused), Megatron-LM's default (--hidden-dropout/--attention-dropout 0.1): its
  // 1-byte masks are stored for backward and read and written by the memory-bound kernels.
  // false for models trained without dropout (Llama 3: attention_dropout 0.0, no hidden dropout).
  bool dropout = true;

  // Parameters of the model (embeddings counted once, untied LM head counted).
  double parameters() const;
  double tokens_per_iteration() const { return static_cast<double>(global_batch) * seq_len; }

  // Member by member (a cache compares whole values to reuse what was built from them).
  friend bool operator==(const Workload&, const Workload&) = default;
};

struct Layout {
  int tp = 1;              // tensor-parallel degree T (inside one scale-up domain)
  int pp = 1;              // pipeline stages P
  int dp = 1;              // data-parallel replicas R
  int virtual_stages = 1;  // interleaved schedule chunks per stage (1 = plain 1F1B)
  // How the layers split over the pipeline stages, as Megatron-LM's options do. The embedding
  // always runs on the first stage and the LM head and loss on the last; with
  // account_for_embedding (--account-for-embedding-in-pipeline-split) the embedding takes the
  // place of one transformer layer in the split, likewise account_for_loss for the head and loss
  // (Llama 3 405B: 126 layers + 2 = 16 stages x 8 chunks of one). first_stage_layers /
  // last_stage_layers (--decoder-first/last-pipeline-num-layers; 0: not set) give the first or
  // last stage its own layer count, the other stages sharing the rest evenly.
  bool account_for_embedding = false;
  bool account_for_loss = false;
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  // Context-parallel degree C (Megatron-LM --context-parallel-size): each sequence is cut into
  // 2C chunks and rank i holds chunks i and 2C-1-i (causal load balance), so a rank works on
  // s/C tokens; attention exchanges K and V among the C ranks. The C ranks of a CP group are
  // adjacent after TP (TP x C consecutive GPUs). REQUIRES seq_len divisible by 2C.
  // Last in the struct so that positional initialisers {tp, pp, dp, v} keep their meaning.
  int cp = 1;

  int gpus() const { return tp * cp * pp * dp; }
  // GPUs of one data-parallel replica (TP x CP x PP).
  int replica_gpus() const { return tp * cp * pp; }

  // Member by member (a cache compares whole values to reuse what was built from them).
  friend bool operator==(const Layout&, const Layout&) = default;
};

// Transformer layers on the first, each middle and the last pipeline stage (all equal to the
// layer count when pp == 1). Without any split option every stage is charged ceil(L / pp), the
// busiest stage's share.
// What Megatron-LM splits over PP x v stages: the transformer layers, plus one slot each for the
// embedding and the loss where the layout counts them as layers.
int64_t pipeline_units(const Workload& w, const Layout& l);

struct StageLayers {
  int first = 0;
  int middle = 0;
  int last = 0;
};
StageLayers stage_layers(const Workload& w, const Layout& l);

// Megatron-LM's rules for the split (REQUIRES: a valid workload and layout degrees): with the
// embedding and/or loss counted, L + those must divide into pp stages and each stage into
// virtual_stages chunks; with an uneven first/last stage, the other stages share the rest
// evenly, every stage divides into virtual_stages chunks, and the embedding/loss options are
// not set; otherwise pp x virtual_stages <= L. Returns the offending layout field (e.g.
// "virtual_stages") and a message, or an empty field when the split is valid.
struct SplitError {
  std::string field;
  std::string message;
};
SplitError check_pipeline_split(const Workload& w, const Layout& l);

// Megatron-LM's rule for context parallelism: the sequence splits into 2 x cp equal chunks
// (causal load balance). Returns field "cp" and a message, or an empty field when valid.
SplitError check_context_split(const Workload& w, const Layout& l);

// Reads `workload:` — a map of fields, or a string naming a file (path, or name resolved in
// `search_dirs` as <name>.yaml). Validates ranges and consistency (kv_heads divides heads,...).
Result<Workload> read_workload(const YAML::Node& node, const std::string& path,
                               const YamlContext& ctx, const std::vector<std::string>& search_dirs);
Result<Layout> read_layout(const YAML::Node& node, const std::string& path, const YamlContext& ctx);

// YAML text of the resolved workload / layout with units (for `ntpsim check`).
YAML::Node to_yaml(const Workload& w);
YAML::Node to_yaml(const Layout& l);

const char* to_string(Recompute r);
const char* to_string(DType d);

}  // namespace ntpsim::models
