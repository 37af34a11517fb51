// Reading, validating and printing workloads and layouts (models/workload.h).
//
// A workload is given inline (a map), by name (a file <name>.yaml in one of the search dirs, e.g.
// models/workloads/), by path, or as a map with `base:` naming one of those plus fields that
// override it. Errors inside a workload file name that file; the field path stays the scenario's
// (e.g. "workload.heads") so the user sees where in their scenario the value is used.
#include "models/workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "models/base/file_memo.h"

namespace ntpsim::models {
namespace {

namespace fs = std::filesystem;

// Upper bounds that no real model reaches; larger values are typos or absurd input.
constexpr int kMaxLayers = 10'000;
constexpr int kMaxHidden = 1 << 20;
constexpr int kMaxHeads = 1 << 16;
constexpr int kMaxFfn = 1 << 23;
constexpr int kMaxVocab = 1 << 24;
constexpr int kMaxSeqLen = 1 << 24;
constexpr int kMaxBatch = 1 << 24;
constexpr int kMaxDegree = 1 << 16;
constexpr int kMaxDp = 1 << 24;
constexpr int kMaxVirtualStages = 128;
constexpr int64_t kMaxLayoutGpus = 100'000'000;

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos || s.ends_with(".yaml") || s.ends_with(".yml");
}

// Names (file stems) of the *.yaml files in `dirs`, sorted, for "did you mean" and listings.
std::vector<std::string> known_names(const std::vector<std::string>& dirs) {
  std::vector<std::string> names;
  for (const auto& d : dirs) {
    std::error_code ec;
    fs::directory_iterator it(d, ec);
    if (ec) continue;
    for (const auto& e : it) {
      if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// The file a workload reference names, or an error anchored at the reference. A path is tried as
// given, then relative to the folder of the file that holds the reference; a name is
// <dir>/<name>.yaml in the search dirs.
Result<std::string> resolve_file(const YAML::Node& ref, const std::string& path,
                                 const YamlContext& ctx,
                                 const std::vector<std::string>& search_dirs) {
  const std::string& text = ref.Scalar();
  std::error_code ec;
  if (looks_like_path(text)) {
    fs::path found = text;
    fs::file_status st = fs::status(found, ec);
    const std::string& holder = ctx.file_for(path);
    if (!fs::exists(st) && fs::path(text).is_relative() && !holder.empty()) {
      found = (fs::path(holder).parent_path() / text).lexically_normal();
      st = fs::status(found, ec);
    }
    if (fs::is_regular_file(st)) return found.string();
    if (!fs::exists(st)) {
      return Error::at(ctx.locate(ref, path), path,
                       fmt::format("workload file \"{}\" not found", clip_for_message(text)));
    }
    return Error::at(ctx.locate(ref, path), path,
                     fmt::format("workload file \"{}\" is {}, not a YAML file",
                                 clip_for_message(text), file_kind(st)));
  }
  for (const auto& d : search_dirs) {
    const fs::path p = fs::path(d) / (text + ".yaml");
    if (fs::is_regular_file(p, ec)) return p.lexically_normal().string();
  }
  const auto names = known_names(search_dirs);
  const std::string near = nearest_key(text, names);
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return Error::at(ctx.locate(ref, path), path,
                   fmt::format("unknown workload \"{}\"{}; known: {}", clip_for_message(text),
                               near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near),
                               list.empty() ? "(none in the search directories)" : list));
}

// Unknown keys are reported before missing ones, so a misspelt required key reads "unknown key
// (did you mean ...)" rather than "missing required field".
Status reject_unknown_keys(const YAML::Node& node, const std::string& path, const YamlContext& ctx,
                           const std::vector<std::string>& keys = {
                               "name", "base", "layers", "hidden", "heads", "kv_heads", "ffn",
                               "gated_ffn", "vocab", "seq_len", "global_batch", "micro_batch",
                               "dtype", "recompute", "sequence_parallel", "dropout"}) {
  auto r = MapReader::make(node, path, ctx);
  if (!r.ok()) return r.error();
  for (const auto& k : keys) r->mark_used(k);
  return r->finish();
}

Status read_choice_enum(MapReader& r, Workload& w) {
  std::string dtype = to_string(w.dtype);
  NTPSIM_RETURN_IF_ERROR(r.choice("dtype", dtype, {"bf16", "fp8"}, false));
  w.dtype = dtype == "fp8" ? DType::kFP8 : DType::kBF16;
  std::string rc = to_string(w.recompute);
  NTPSIM_RETURN_IF_ERROR(r.choice("recompute", rc, {"none", "selective", "full"}, false));
  w.recompute = rc == "full"        ? Recompute::kFull
                : rc == "selective" ? Recompute::kSelective
                                    : Recompute::kNone;
  return Status::Ok();
}

// Reads the fields of a workload map into `w`. With `all_required`, the shape fields must be
// present (an inline workload without `base:`); otherwise absent fields keep w's values.
Status read_fields(MapReader& r, Workload& w, bool all_required) {
  const bool req = all_required;
  NTPSIM_RETURN_IF_ERROR(r.string("name", w.name, false));
  NTPSIM_RETURN_IF_ERROR(r.integer("layers", w.layers, req, 1, kMaxLayers));
  NTPSIM_RETURN_IF_ERROR(r.integer("hidden", w.hidden, req, 1, kMaxHidden));
  NTPSIM_RETURN_IF_ERROR(r.integer("heads", w.heads, req, 1, kMaxHeads));
  // Absent: as many KV heads as attention heads; an explicit 0 is refused, not read as absent.
  NTPSIM_RETURN_IF_ERROR(r.integer("kv_heads", w.kv_heads, false, 1, kMaxHeads));
  NTPSIM_RETURN_IF_ERROR(r.integer("ffn", w.ffn, req, 1, kMaxFfn));
  NTPSIM_RETURN_IF_ERROR(r.boolean("gated_ffn", w.gated_ffn, false));
  NTPSIM_RETURN_IF_ERROR(r.integer("vocab", w.vocab, req, 1, kMaxVocab));
  NTPSIM_RETURN_IF_ERROR(r.integer("seq_len", w.seq_len, req, 1, kMaxSeqLen));
  NTPSIM_RETURN_IF_ERROR(r.integer("global_batch", w.global_batch, req, 1, kMaxBatch));
  NTPSIM_RETURN_IF_ERROR(r.integer("micro_batch", w.micro_batch, false, 1, kMaxBatch));
  NTPSIM_RETURN_IF_ERROR(read_choice_enum(r, w));
  NTPSIM_RETURN_IF_ERROR(r.boolean("sequence_parallel", w.sequence_parallel, false));
  NTPSIM_RETURN_IF_ERROR(r.boolean("dropout", w.dropout, false));
  return Status::Ok();
}

// Consistency of a complete workload; errors anchored at the offending key of `r` when present
// there, else at the map itself.
Status validate(const MapReader& r, Workload& w) {
  auto at = [&](std::string_view key, const std::string& what) {
    return r.has(key) ? r.error(key, what) : r.error_here(fmt::format("{}: {}", key, what));
  };
  if (w.kv_heads == 0) w.kv_heads = w.heads;
  if (w.kv_heads > w.heads) {
    return at("kv_heads",
              fmt::format("{} KV heads exceed the {} attention heads", w.kv_heads, w.heads));
  }
  if (w.heads % w.kv_heads != 0) {
    return at("kv_heads", fmt::format("{} attention heads are not a multiple of {} KV heads",
                                      w.heads, w.kv_heads));
  }
  if (w.hidden % w.heads != 0) {
    return at("heads",
              fmt::format("hidden size {} is not a multiple of {} heads", w.hidden, w.heads));
  }
  if (w.micro_batch > w.global_batch) {
    return at("micro_batch", fmt::format("micro-batch of {} sequences exceeds the global batch "
                                         "of {}",
                                         w.micro_batch, w.global_batch));
  }
  return Status::Ok();
}

// Reads the workload file `file` whose bytes are `text` (the whole file is one workload map).
Result<Workload> parse_file(const std::string& file, const std::string& text,
                            const std::string& path) {
  auto root = load_yaml_string(text, file);
  if (!root.ok()) return root.error();
  const YamlContext file_ctx(file);
  if (root->IsMap()) NTPSIM_RETURN_IF_ERROR(reject_unknown_keys(*root, path, file_ctx));
  auto r = MapReader::make(*root, path, file_ctx);
  if (!r.ok()) return r.error();
  Workload w;
  w.name = fs::path(file).stem().string();
  w.source = file;
  NTPSIM_RETURN_IF_ERROR(read_fields(*r, w, true));
  NTPSIM_RETURN_IF_ERROR(r->finish());
  NTPSIM_RETURN_IF_ERROR(validate(*r, w));
  return w;
}

// Reads the workload file `file` as parse_file does; a file read before with the same bytes
// (a planner loads its base scenario once per candidate) is not parsed again (file_memo.h).
Result<Workload> read_file(const std::string& file, const std::string& path) {
  static FileMemo<Workload> memo;
  return memo.get(file, path,
                  [&](const std::string& text) { return parse_file(file, text, path); });
}

}  // namespace

double Workload::parameters() const {
  const double h = hidden;
  const double head_dim = heads > 0 ? h / heads : 0.0;
  const double kv = (kv_heads > 0 ? kv_heads : heads) * head_dim;
  const double attention = h * h /*Q*/ + 2.0 * h * kv /*K, V*/ + h * h /*output*/;
  const double mlp = (gated_ffn ? 3.0 : 2.0) * h * ffn;
  const double norms = 2.0 * h;
  const double per_layer = attention + mlp + norms;
  const double embeddings = 2.0 * static_cast<double>(vocab) * h;  // input table + LM head
  return layers * per_layer + embeddings + h /*final norm*/;
}

Result<Workload> read_workload(const YAML::Node& node, const std::string& path,
                               const YamlContext& ctx,
                               const std::vector<std::string>& search_dirs) {
  if (node.IsDefined() && node.IsScalar()) {
    auto file = resolve_file(node, path, ctx, search_dirs);
    if (!file.ok()) return file.error();
    return read_file(*file, path);
  }
  if (!node.IsDefined() || node.IsNull()) {
    return Error::at(ctx.locate(node, path), path,
                     "expected a workload name, a file path, or a map of fields");
  }
  NTPSIM_RETURN_IF_ERROR(reject_unknown_keys(node, path, ctx));
  auto r = MapReader::make(node, path, ctx);
  if (!r.ok()) return r.error();
  Workload w;
  w.name = "inline";
  w.source = "inline";
  const YAML::Node base = r->child("base");
  const bool has_base = base.IsDefined() && !base.IsNull();
  if (has_base) {
    if (!base.IsScalar()) {
      return r->error("base",
                      fmt::format("expected a workload name or file, got {}", yaml_kind(base)));
    }
    auto file = resolve_file(base, join_path(path, "base"), ctx, search_dirs);
    if (!file.ok()) return file.error();
    auto b = read_file(*file, path);
    if (!b.ok()) return b.error();
    w = *b;
    w.source = *file;
  }
  NTPSIM_RETURN_IF_ERROR(read_fields(*r, w, !has_base));
  NTPSIM_RETURN_IF_ERROR(r->finish());
  NTPSIM_RETURN_IF_ERROR(validate(*r, w));
  return w;
}

Result<Layout> read_layout(const YAML::Node& node, const std::string& path,
                           const YamlContext& ctx) {
  NTPSIM_RETURN_IF_ERROR(reject_unknown_keys(
      node, path, ctx,
      {"tp", "cp", "pp", "dp", "virtual_stages", "account_for_embedding_in_pipeline_split",
       "account_for_loss_in_pipeline_split", "decoder_first_pipeline_num_layers",
       "decoder_last_pipeline_num_layers"}));
  auto r = MapReader::make(node, path, ctx);
  if (!r.ok()) return r.error();
  Layout l;
  NTPSIM_RETURN_IF_ERROR(r->integer("tp", l.tp, true, 1, kMaxDegree));
  NTPSIM_RETURN_IF_ERROR(r->integer("cp", l.cp, false, 1, kMaxDegree));
  NTPSIM_RETURN_IF_ERROR(r->integer("pp", l.pp, false, 1, kMaxDegree));
  NTPSIM_RETURN_IF_ERROR(r->integer("dp", l.dp, true, 1, kMaxDp));
  NTPSIM_RETURN_IF_ERROR(
      r->integer("virtual_stages", l.virtual_stages, false, 1, kMaxVirtualStages));
  NTPSIM_RETURN_IF_ERROR(
      r->boolean("account_for_embedding_in_pipeline_split", l.account_for_embedding, false));
  NTPSIM_RETURN_IF_ERROR(
      r->boolean("account_for_loss_in_pipeline_split", l.account_for_loss, false));
  NTPSIM_RETURN_IF_ERROR(
      r->integer("decoder_first_pipeline_num_layers", l.first_stage_layers, false, 1, kMaxLayers));
  NTPSIM_RETURN_IF_ERROR(
      r->integer("decoder_last_pipeline_num_layers", l.last_stage_layers, false, 1, kMaxLayers));
  NTPSIM_RETURN_IF_ERROR(r->finish());
  const int64_t gpus = static_cast<int64_t>(l.tp) * l.cp * l.pp * l.dp;
  if (gpus > kMaxLayoutGpus) {
    if (l.cp > 1) {
      return r->error_here(
          fmt::format("TP {} x CP {} x PP {} x DP {} = {} GPUs is more than the {} this "
                      "simulator accepts",
                      l.tp, l.cp, l.pp, l.dp, gpus, kMaxLayoutGpus));
    }
    return r->error_here(
        fmt::format("TP {} x PP {} x DP {} = {} GPUs is more than the {} this "
                    "simulator accepts",
                    l.tp, l.pp, l.dp, gpus, kMaxLayoutGpus));
  }
  return l;
}

YAML::Node to_yaml(const Workload& w) {
  YAML::Node n(YAML::NodeType::Map);
  n["name"] = w.name;
  n["layers"] = w.layers;
  n["hidden"] = w.hidden;
  n["heads"] = w.heads;
  n["kv_heads"] = w.kv_heads;
  n["ffn"] = w.ffn;
  n["gated_ffn"] = w.gated_ffn;
  n["vocab"] = w.vocab;
  n["seq_len"] = w.seq_len;
  n["global_batch"] = w.global_batch;
  n["micro_batch"] = w.micro_batch;
  n["dtype"] = to_string(w.dtype);
  n["recompute"] = to_string(w.recompute);
  n["sequence_parallel"] = w.sequence_parallel;
  n["dropout"] = w.dropout;
  return n;
}

YAML::Node to_yaml(const Layout& l) {
  YAML::Node n(YAML::NodeType::Map);
  n["tp"] = l.tp;
  if (l.cp > 1) n["cp"] = l.cp;  // omitted at 1 so that layouts without CP print as before
  n["pp"] = l.pp;
  n["dp"] = l.dp;
  n["virtual_stages"] = l.virtual_stages;
  if (l.account_for_embedding) n["account_for_embedding_in_pipeline_split"] = true;
  if (l.account_for_loss) n["account_for_loss_in_pipeline_split"] = true;
  if (l.first_stage_layers > 0) n["decoder_first_pipeline_num_layers"] = l.first_stage_layers;
  if (l.last_stage_layers > 0) n["decoder_last_pipeline_num_layers"] = l.last_stage_layers;
  return n;
}

int64_t pipeline_units(const Workload& w, const Layout& l) {
  return int64_t{w.layers} + (l.account_for_embedding ? 1 : 0) + (l.account_for_loss ? 1 : 0);
}

StageLayers stage_layers(const Workload& w, const Layout& l) {
  const int p = std::max(1, l.pp);
  if (p == 1) return {w.layers, w.layers, w.layers};
  if (l.first_stage_layers > 0 || l.last_stage_layers > 0) {
    const int given = (l.first_stage_layers > 0 ? 1 : 0) + (l.last_stage_layers > 0 ? 1 : 0);
    const int rest = w.layers - l.first_stage_layers - l.last_stage_layers;
    const int middle = p > given ? rest / (p - given) : 0;
    return {l.first_stage_layers > 0 ? l.first_stage_layers : middle, middle,
            l.last_stage_layers > 0 ? l.last_stage_layers : middle};
  }
  if (l.account_for_embedding || l.account_for_loss) {
    const int per = static_cast<int>(pipeline_units(w, l) / p);
    return {per - (l.account_for_embedding ? 1 : 0), per, per - (l.account_for_loss ? 1 : 0)};
  }
  const int per = (w.layers + p - 1) / p;
  return {per, per, per};
}

SplitError check_pipeline_split(const Workload& w, const Layout& l) {
  const int64_t p = l.pp;
  const int64_t v = l.virtual_stages;
  const int64_t layers = w.layers;
  const bool uneven = l.first_stage_layers > 0 || l.last_stage_layers > 0;
  const bool counted = l.account_for_embedding || l.account_for_loss;
  if (uneven && counted) {
    return {l.first_stage_layers > 0 ? "decoder_first_pipeline_num_layers"
                                     : "decoder_last_pipeline_num_layers",
            "an uneven first/last stage cannot be combined with "
            "account_for_embedding/loss_in_pipeline_split (Megatron-LM supports one or the other)"};
  }
  if (uneven) {
    const char* field = l.first_stage_layers > 0 ? "decoder_first_pipeline_num_layers"
                                                 : "decoder_last_pipeline_num_layers";
    const int64_t given = (l.first_stage_layers > 0 ? 1 : 0) + (l.last_stage_layers > 0 ? 1 : 0);
    if (p < 2) return {field, "an uneven first/last stage needs pp >= 2"};
    const int64_t rest = layers - l.first_stage_layers - l.last_stage_layers;
    const int64_t others = p - given;
    if (rest < 0 || (others == 0 && rest != 0) || (others > 0 && (rest < others || rest % others))) {
      return {field,
              fmt::format("{} layers less {} on the first and {} on the last stage do not split "
                          "evenly over the other {} stages",
                          layers, l.first_stage_layers, l.last_stage_layers, others)};
    }
    const StageLayers s = stage_layers(w, l);
    for (const int n : {s.first, s.middle, s.last}) {
      if (n % v != 0) {
        return {"virtual_stages",
                fmt::format("stages of {} / {} / {} layers (first / middle / last) do not split "
                            "into {} chunks each",
                            s.first, s.middle, s.last, v)};
      }
    }
    return {};
  }
  if (counted) {
    const int64_t units = pipeline_units(w, l);
    if (units % p != 0) {
      return {"pp", fmt::format("{} layers with the embedding and/or loss counted ({}) do not "
                                "split evenly into PP {} stages",
                                layers, units, p)};
    }
    if ((units / p) % v != 0) {
      return {"virtual_stages",
              fmt::format("{} layer slots per stage (embedding and/or loss counted) do not split "
                          "into {} chunks",
                          units / p, v)};
    }
    if (p < 2) return {"pp", "counting the embedding or loss in the split needs pp >= 2"};
    if (units / p < 2) {
      return {"pp", fmt::format("PP {} leaves no transformer layer on a stage that holds the "
                                "counted embedding or loss",
                                p)};
    }
    return {};
  }
  if (p * v > layers) {
    return {"pp", fmt::format("PP {} x {} virtual stages exceeds the workload's {} layers", p, v,
                              layers)};
  }
  return {};
}

SplitError check_context_split(const Workload& w, const Layout& l) {
  if (l.cp <= 1) return {};
  const int64_t chunks = 2 * int64_t{l.cp};
  if (w.seq_len % chunks != 0) {
    return {"cp", fmt::format("CP {} splits each sequence into {} chunks (2 x CP, causal load "
                              "balance); the sequence length {} does not divide into them",
                              l.cp, chunks, w.seq_len)};
  }
  return {};
}

const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
  }
  return "none";
}

const char* to_string(DType d) {
  switch (d) {
    case DType::kBF16:
      return "bf16";
    case DType::kFP8:
      return "fp8";
  }
  return "bf16";
}

}  // namespace ntpsim::models
