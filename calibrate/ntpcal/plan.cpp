#include "calibrate/ntpcal/plan.h"

#include <fstream>
#include <sstream>
#include <utility>

namespace ntpsim::ntpcal {

using namespace ntpsim::calibrate;

void declare(Args& a, const std::string& sub) {
  a.option("--help", "show this help", "", false);
  a.option("--out", "raw CSV file to write ('-' = stdout)", "ntpcal-" + sub + ".csv");
  a.option("--timeout", "seconds one measurement may take before it is abandoned", "120");
  a.option("--seed", "seed of the random GEMM inputs", "1");
  a.option("--quiet", "no progress lines", "", false);
  if (sub == "gemm" || sub == "power" || sub == "info") {
    a.option("--device", "CUDA device to measure (single-process mode)", "0");
  }
  if (sub == "gemm" || sub == "power") {
    a.option("--warmup", "warm-up runs per shape", "5");
    a.option("--reps", "timed samples per shape (each a batch of launches of at least 1 ms)", "30");
    a.option("--workspace", "cuBLASLt workspace in MiB (Transformer Engine uses 32 on Hopper)",
             "32");
    a.option("--graph",
             "time each sample's batch of launches as one captured CUDA graph (removes host "
             "launch cost for small shapes)",
             "", false);
  }
  if (sub == "gemm") {
    a.option("--dtype",
             "GEMM types: bf16, fp8 (per-tensor scales), mxfp8 (32-element UE8M0 block scales, "
             "Blackwell); each skipped with its reason where the GPU or toolkit lacks it",
             "bf16,fp8");
    a.option("--layout",
             "layouts of --m/--n/--k grids and --square shapes: TN, NN, NT (layer shapes take "
             "each pass's layout: forward TN, dgrad NN, wgrad NT for bf16)",
             "TN");
    a.option("--workload",
             "layer shapes from a flat workload file (models/workloads/*.yaml), with --tp");
    a.option("--hidden", "layer shapes: hidden size h (with --heads --ffn --seq --tp)");
    a.option("--heads", "attention heads");
    a.option("--kv-heads", "key/value heads (GQA; default = heads)");
    a.option("--ffn", "FFN inner size");
    a.option("--plain-ffn", "FFN without gate (up + down, not SwiGLU)", "", false);
    a.option("--seq", "sequence length");
    a.option("--micro-batch", "sequences per micro-batch", "1");
    a.option("--vocab", "vocabulary size (adds the LM head GEMMs)");
    a.option("--tp", "TP degrees of interest, e.g. 72,71,70,64 or 60-72");
    a.option("--forward-only", "only forward GEMMs (no dgrad/wgrad)", "", false);
    a.option("--m", "grid: list of m (with --n, --k)");
    a.option("--n", "grid: list of n");
    a.option("--k", "grid: list of k");
    a.option("--square", "square sizes s x s x s", "256,512,1024,2048,4096,8192,16384");
  }
  if (sub == "power") {
    a.option("--dtype", "GEMM type: bf16, fp8 or mxfp8", "bf16");
    a.option("--square", "square sizes (the intensity ladder)", "256,1024,4096,8192,16384");
    a.option("--min-seconds", "run each shape at least this long (NVML power averages ~1 s)", "3");
    a.option("--set-power-limits",
             "watts, e.g. 400,500,600,700: CHANGES the GPU power limit (root; restored after)");
  }
  if (sub == "collectives" || sub == "reshard") {
    a.option("--gpus", "local GPUs to use in single-process mode (default: all)");
    a.option("--fabric",
             "scale_up (ranks 0..n-1), scale_out (one rank per host, round robin), or auto "
             "(ranks 0..n-1, each group labelled scale_out when it spans hosts)",
             "auto");
    a.option("--factor", "size ladder factor", "4");
    a.option("--iters", "back-to-back launches per timed sample (nccl-tests -n)", "20");
    a.option("--graph",
             "capture each sample's --iters launches in a CUDA graph and replay it (nccl-tests "
             "-G)",
             "", false);
  }
  if (sub == "collectives") {
    a.option("--ops", "collectives", "all_reduce,all_gather,reduce_scatter,all_to_all,send_recv");
    a.option("--group-sizes", "group sizes, e.g. 2-8 or 64,70,71,72 (default: 2..ranks)");
    a.option("--min-bytes", "smallest message (K, M, G = 2^10, 2^20, 2^30)", "1K");
    a.option("--max-bytes", "largest message", "1G");
    a.option("--warmup", "warm-up launches per point", "5");
    a.option("--reps", "timed samples per point (each the mean of --iters launches)", "5");
  }
  if (sub == "reshard") {
    a.option("--tp", "healthy TP degree T (default: all ranks)");
    a.option("--k", "extra ranks k (1 <= k < T)", "1,2");
    a.option("--min-bytes", "smallest gradient shard per rank", "1M");
    a.option("--max-bytes", "largest gradient shard per rank", "1G");
    a.option("--warmup", "warm-up launches per point", "3");
    a.option("--reps", "timed samples per point (each the mean of --iters launches)", "5");
  }
  if (sub == "collectives" || sub == "reshard") {
    // nccl-tests' short flags: -b minBytes -e maxBytes -f stepFactor -n iters -w warmup iters
    // -g GPUs (single process, one thread) -N samples (run cycles).
    a.alias("-b", "--min-bytes");
    a.alias("-e", "--max-bytes");
    a.alias("-f", "--factor");
    a.alias("-n", "--iters");
    a.alias("-w", "--warmup");
    a.alias("-g", "--gpus");
    a.alias("-N", "--reps");
    a.alias("-G", "--graph");
  }
  a.alias("-h", "--help");
}

namespace {

// Layer dimensions from --workload FILE (a flat models/workloads/*.yaml) and/or the flags, the
// flags winning.
Result<LayerDims> layer_dims(const Args& a) {
  LayerDims d;
  if (a.has("--workload")) {
    const std::string path = a.text("--workload");
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error::bad_input(path + ": cannot open workload file");
    std::ostringstream text;
    text << in.rdbuf();
    auto parsed = parse_flat_workload(text.str(), path);
    if (!parsed.ok()) return parsed.error();
    d = *parsed;
  }
  const std::pair<const char*, int*> fields[] = {
      {"--hidden", &d.hidden}, {"--heads", &d.heads}, {"--kv-heads", &d.kv_heads},
      {"--ffn", &d.ffn},       {"--seq", &d.seq_len}, {"--micro-batch", &d.micro_batch},
      {"--vocab", &d.vocab}};
  for (const auto& [flag, field] : fields) {
    if (!a.has(flag)) continue;
    auto v = a.integer(flag);
    if (!v.ok()) return v.error();
    if (*v < 0 || *v > (int64_t{1} << 30))
      return Error::bad_input(std::string(flag) + " is out of range");
    *field = static_cast<int>(*v);
  }
  if (!a.has("--workload") && !a.has("--kv-heads")) d.kv_heads = d.heads;
  if (a.has("--plain-ffn")) d.gated_ffn = false;
  if (d.hidden <= 0 || d.heads <= 0 || d.ffn <= 0 || d.seq_len <= 0 || d.micro_batch <= 0) {
    return Error::bad_input(
        "layer shapes need --hidden, --heads, --ffn, --seq (or --workload) > 0");
  }
  if (d.kv_heads <= 0 || d.heads % d.kv_heads != 0 || d.hidden % d.heads != 0) {
    return Error::bad_input("--kv-heads must divide --heads, and --heads must divide --hidden");
  }
  return d;
}

// The GEMM shapes the options ask for.
Result<std::vector<GemmRequest>> gemm_shapes(const Args& a) {
  std::vector<GemmRequest> out;
  const bool layer = a.has("--workload") || a.has("--hidden");
  std::vector<GemmLayout> layouts;
  for (const std::string& w : a.words("--layout")) {
    GemmLayout l;
    if (!parse_layout(w, l)) {
      return Error::bad_input("--layout: '" + w + "' is not TN, NN or NT");
    }
    layouts.push_back(l);
  }
  if (layouts.empty()) return Error::bad_input("--layout: no layout given");
  if (layer && a.has("--layout")) {
    return Error::bad_input(
        "--layout applies to --m/--n/--k grids and --square shapes; layer shapes take each "
        "pass's layout (forward TN, dgrad NN, wgrad NT)");
  }
  for (const std::string& w : a.words("--dtype")) {
    GemmDType dt;
    if (!parse_dtype(w, dt)) {
      return Error::bad_input("--dtype: '" + w + "' is not bf16, fp8 or mxfp8");
    }
    std::vector<GemmRequest> part;
    if (layer) {
      auto d = layer_dims(a);
      if (!d.ok()) return d.error();
      if (!a.has("--tp"))
        return Error::bad_input("layer shapes need --tp (the TP degrees of interest)");
      auto tps = a.integers("--tp");
      if (!tps.ok()) return tps.error();
      std::vector<int> tp;
      for (const int64_t t : *tps) {
        if (t < 1) return Error::bad_input("--tp values must be >= 1");
        tp.push_back(static_cast<int>(t));
      }
      part = layer_shapes(*d, tp, dt, !a.has("--forward-only"));
    } else if (a.has("--m") || a.has("--n") || a.has("--k")) {
      auto m = a.integers("--m"), n = a.integers("--n"), k = a.integers("--k");
      if (!m.ok()) return m.error();
      if (!n.ok()) return n.error();
      if (!k.ok()) return k.error();
      if (m->empty() || n->empty() || k->empty())
        return Error::bad_input("a grid needs --m, --n and --k");
      for (const GemmLayout l : layouts) {
        for (const GemmRequest& r : grid_shapes(*m, *n, *k, dt, l)) part.push_back(r);
      }
    } else {
      auto s = a.integers("--square");
      if (!s.ok()) return s.error();
      for (const GemmLayout l : layouts) {
        for (const GemmRequest& r : square_shapes(*s, dt, l)) part.push_back(r);
      }
    }
    for (const GemmRequest& r : part) {
      if (r.m <= 0 || r.n <= 0 || r.k <= 0)
        return Error::bad_input("GEMM dimensions must be positive");
    }
    out.insert(out.end(), part.begin(), part.end());
  }
  if (out.empty()) return Error::bad_input("no GEMM shapes selected");
  return out;
}

Result<std::vector<int64_t>> ladder(const Args& a) {
  auto lo = parse_size(a.text("--min-bytes"));
  auto hi = parse_size(a.text("--max-bytes"));
  auto f = a.number("--factor");
  if (!lo.ok()) return lo.error();
  if (!hi.ok()) return hi.error();
  if (!f.ok()) return f.error();
  if (*lo <= 0 || *lo > *hi || *f <= 1.0) {
    return Error::bad_input("need 0 < --min-bytes <= --max-bytes and --factor > 1");
  }
  return geometric(*lo, *hi, *f);
}

Status read_counts(const Args& a, int& warmup, int& reps) {
  auto w = a.integer("--warmup"), r = a.integer("--reps");
  if (!w.ok()) return w.error();
  if (!r.ok()) return r.error();
  if (*w < 0 || *r < 1) return Error::bad_input("need --warmup >= 0 and --reps >= 1");
  warmup = static_cast<int>(*w);
  reps = static_cast<int>(*r);
  return Status::Ok();
}

}  // namespace

Result<Plan> make_plan(const Args& a, const std::string& sub) {
  Plan p;
  auto timeout = a.number("--timeout");
  auto seed = a.integer("--seed");
  if (!timeout.ok()) return timeout.error();
  if (!seed.ok()) return seed.error();
  if (*timeout <= 0) return Error::bad_input("--timeout must be > 0");
  p.cuda.timeout_s = *timeout;
  p.cuda.seed = static_cast<uint64_t>(*seed);
  if (sub == "gemm" || sub == "power" || sub == "info") {
    auto d = a.integer("--device");
    if (!d.ok()) return d.error();
    p.cuda.devices = {static_cast<int>(*d)};
  }
  if (sub == "info") return p;
  if (sub == "gemm" || sub == "power") {
    p.kind = sub == "gemm" ? RawKind::kGemm : RawKind::kPower;
    if (sub == "gemm") {
      auto s = gemm_shapes(a);
      if (!s.ok()) return s.error();
      p.shapes = *s;
    } else {
      GemmDType dt;
      if (!parse_dtype(a.text("--dtype"), dt)) {
        return Error::bad_input("--dtype must be bf16, fp8 or mxfp8");
      }
      auto sq = a.integers("--square");
      if (!sq.ok()) return sq.error();
      p.shapes = square_shapes(*sq, dt);
      if (a.has("--set-power-limits")) {
        auto l = a.numbers("--set-power-limits");
        if (!l.ok()) return l.error();
        p.limits_w = *l;
      }
    }
    auto ws = a.integer("--workspace");
    if (!ws.ok()) return ws.error();
    if (*ws < 0 || *ws > 4096) return Error::bad_input("--workspace must be in [0, 4096] MiB");
    p.cuda.workspace_bytes = static_cast<size_t>(*ws) << 20;
    int warmup = 0, reps = 0;
    NTPSIM_RETURN_IF_ERROR(read_counts(a, warmup, reps));
    double min_s = 0.0;
    if (sub == "power") {
      auto m = a.number("--min-seconds");
      if (!m.ok()) return m.error();
      min_s = *m;
    }
    p.graph = a.has("--graph");
    for (GemmRequest& r : p.shapes) {
      r.warmup = warmup;
      r.reps = reps;
      r.min_seconds = min_s;
      r.graph = p.graph;
    }
    return p;
  }
  // collectives, reshard
  auto sizes = ladder(a);
  if (!sizes.ok()) return sizes.error();
  p.fabric = a.text("--fabric");
  if (p.fabric != "auto" && p.fabric != "scale_up" && p.fabric != "scale_out") {
    return Error::bad_input("--fabric must be scale_up, scale_out or auto");
  }
  auto it = a.integer("--iters");
  if (!it.ok()) return it.error();
  if (*it < 1 || *it > 100000) return Error::bad_input("--iters must be in [1, 100000]");
  const int iters = static_cast<int>(*it);
  p.graph = a.has("--graph");
  p.collectives.graph = p.graph;
  p.reshard.graph = p.graph;
  if (a.has("--gpus")) {
    auto g = a.integer("--gpus");
    if (!g.ok()) return g.error();
    // -g 1 is nccl-tests' usual line under mpirun/srun (one GPU per process); a single process
    // needs 2 or more, which main() checks once it knows whether MPI launched it.
    if (*g < 1 || *g > 4096) return Error::bad_input("--gpus must be in [1, 4096]");
    p.gpus = static_cast<int>(*g);
  }
  if (sub == "collectives") {
    p.kind = RawKind::kCollective;
    for (const std::string& w : a.words("--ops")) {
      CollectiveKind k;
      if (!parse_collective(w, k)) return Error::bad_input("--ops: unknown collective '" + w + "'");
      p.collectives.kinds.push_back(k);
    }
    p.collectives.bytes = *sizes;
    if (a.has("--group-sizes")) {
      auto g = a.integers("--group-sizes");
      if (!g.ok()) return g.error();
      for (const int64_t v : *g) p.collectives.group_sizes.push_back(static_cast<int>(v));
    }
    NTPSIM_RETURN_IF_ERROR(read_counts(a, p.collectives.warmup, p.collectives.reps));
    p.collectives.iters = iters;
    return p;
  }
  p.kind = RawKind::kReshard;
  p.reshard.bytes_per_rank = *sizes;
  if (a.has("--tp")) {
    auto t = a.integer("--tp");
    if (!t.ok()) return t.error();
    p.reshard.tp = static_cast<int>(*t);
  }
  auto ks = a.integers("--k");
  if (!ks.ok()) return ks.error();
  for (const int64_t k : *ks) p.reshard.ks.push_back(static_cast<int>(k));
  NTPSIM_RETURN_IF_ERROR(read_counts(a, p.reshard.warmup, p.reshard.reps));
  p.reshard.iters = iters;
  return p;
}

std::string timing_context(const Plan& p) {
  const bool gemm = p.kind == RawKind::kGemm || p.kind == RawKind::kPower;
  if (gemm) {
    return p.graph ? "cuda_graph (each sample: one graph of a >= 1 ms batch of launches)"
                   : "stream (each sample: a >= 1 ms batch of back-to-back launches)";
  }
  return p.graph
             ? "cuda_graph (each sample: one graph of --iters launches per rank, as nccl-tests -G)"
             : "stream (each sample: --iters back-to-back launches per rank)";
}

}  // namespace ntpsim::ntpcal
