// ntpcal: measures GEMMs, NCCL collectives, the NTP reshard and power on real GPUs and writes raw
// CSV files for `ntpsim fit` (DESIGN.md §5; calibrate/README.md has the full usage).
//
//   ntpcal gemm|power|collectives|reshard|info [options]    (ntpcal SUBCOMMAND --help)
//
// Exit codes: 0 ok; 2 bad options or no GPU; 1 a CUDA/NCCL/NVML call failed or timed out (every
// row measured before the failure is already in the output file).
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "calibrate/driver.h"
#include "calibrate/ntpcal/args.h"
#include "calibrate/ntpcal/cuda_backend.h"
#include "calibrate/ntpcal/cuda_util.h"
#include "calibrate/shapes.h"
#include "models/base/build_info.h"

namespace {

using namespace ntpsim;
using namespace ntpsim::calibrate;
using ntpsim::ntpcal::Args;

constexpr const char* kUsage =
    "usage: ntpcal SUBCOMMAND [options]\n"
    "  gemm         cuBLASLt GEMM times (bf16, fp8) over workload shapes or a grid, with power/clock\n"
    "  power        power and SM clock across GEMM intensities; --set-power-limits sweeps limits (root)\n"
    "  collectives  NCCL all_reduce, all_gather, reduce_scatter, all_to_all, send_recv\n"
    "  reshard      the NTP gradient reshard (T ranks, k extra ranks' shards to T-k core ranks and back)\n"
    "  info         print the measurement context of this machine\n"
    "Run under mpirun/srun for one process per GPU (when built with MPI). See calibrate/README.md.\n";

int fail(const Error& e, const std::string& where = "") {
  std::fprintf(stderr, "ntpcal: error: %s%s\n", e.message.c_str(), where.c_str());
  return static_cast<int>(e.exit_code);
}

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
  }
  if (sub == "gemm") {
    a.option("--dtype", "GEMM types: bf16,fp8 (fp8 skipped where unsupported)", "bf16,fp8");
    a.option("--workload", "layer shapes from a flat workload file (models/workloads/*.yaml), with --tp");
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
    a.option("--dtype", "GEMM type", "bf16");
    a.option("--square", "square sizes (the intensity ladder)", "256,1024,4096,8192,16384");
    a.option("--min-seconds", "run each shape at least this long (NVML power averages ~1 s)", "3");
    a.option("--set-power-limits", "watts, e.g. 400,500,600,700: CHANGES the GPU power limit (root; restored after)");
  }
  if (sub == "collectives" || sub == "reshard") {
    a.option("--gpus", "local GPUs to use in single-process mode (default: all)");
    a.option("--fabric",
             "scale_up (ranks 0..n-1), scale_out (one rank per host, round robin), or auto "
             "(ranks 0..n-1, each group labelled scale_out when it spans hosts)",
             "auto");
    a.option("--factor", "size ladder factor", "4");
    a.option("--iters", "back-to-back launches per timed sample (nccl-tests -n)", "20");
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
  }
  a.alias("-h", "--help");
}

// The context lines every subcommand records about the run itself. The git SHA is the build's,
// or NTPSIM_GIT_SHA when set (a copy without .git, such as a device machine's, builds "unknown").
void base_context(RawContext& ctx, const ntpcal::World& world, const std::string& sub, int argc,
                  char** argv);

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

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
      {"--hidden", &d.hidden}, {"--heads", &d.heads}, {"--kv-heads", &d.kv_heads}, {"--ffn", &d.ffn},
      {"--seq", &d.seq_len}, {"--micro-batch", &d.micro_batch}, {"--vocab", &d.vocab}};
  for (const auto& [flag, field] : fields) {
    if (!a.has(flag)) continue;
    auto v = a.integer(flag);
    if (!v.ok()) return v.error();
    if (*v < 0 || *v > (int64_t{1} << 30)) return Error::bad_input(std::string(flag) + " is out of range");
    *field = static_cast<int>(*v);
  }
  if (!a.has("--workload") && !a.has("--kv-heads")) d.kv_heads = d.heads;
  if (a.has("--plain-ffn")) d.gated_ffn = false;
  if (d.hidden <= 0 || d.heads <= 0 || d.ffn <= 0 || d.seq_len <= 0 || d.micro_batch <= 0) {
    return Error::bad_input("layer shapes need --hidden, --heads, --ffn, --seq (or --workload) > 0");
  }
  if (d.kv_heads <= 0 || d.heads % d.kv_heads != 0 || d.hidden % d.heads != 0) {
    return Error::bad_input("--kv-heads must divide --heads, and --heads must divide --hidden");
  }
  return d;
}

// The GEMM shapes the options ask for.
Result<std::vector<GemmRequest>> gemm_shapes(const Args& a) {
  std::vector<GemmRequest> out;
  for (const std::string& w : a.words("--dtype")) {
    GemmDType dt;
    if (!parse_dtype(w, dt)) return Error::bad_input("--dtype: '" + w + "' is not bf16 or fp8");
    std::vector<GemmRequest> part;
    if (a.has("--workload") || a.has("--hidden")) {
      auto d = layer_dims(a);
      if (!d.ok()) return d.error();
      if (!a.has("--tp")) return Error::bad_input("layer shapes need --tp (the TP degrees of interest)");
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
      if (m->empty() || n->empty() || k->empty()) return Error::bad_input("a grid needs --m, --n and --k");
      part = grid_shapes(*m, *n, *k, dt);
    } else {
      auto s = a.integers("--square");
      if (!s.ok()) return s.error();
      part = square_shapes(*s, dt);
    }
    for (const GemmRequest& r : part) {
      if (r.m <= 0 || r.n <= 0 || r.k <= 0) return Error::bad_input("GEMM dimensions must be positive");
    }
    out.insert(out.end(), part.begin(), part.end());
  }
  if (out.empty()) return Error::bad_input("no GEMM shapes selected");
  return out;
}

Result<std::vector<int64_t>> ladder(const Args& a) {
  auto lo = ntpcal::parse_size(a.text("--min-bytes"));
  auto hi = ntpcal::parse_size(a.text("--max-bytes"));
  auto f = a.number("--factor");
  if (!lo.ok()) return lo.error();
  if (!hi.ok()) return hi.error();
  if (!f.ok()) return f.error();
  if (*lo <= 0 || *lo > *hi || *f <= 1.0) {
    return Error::bad_input("need 0 < --min-bytes <= --max-bytes and --factor > 1");
  }
  return geometric(*lo, *hi, *f);
}

// Everything a subcommand will do, parsed and checked before any GPU is touched. Defaults that
// need the ranks (group sizes, T) stay empty / 0 until the backend exists.
struct Plan {
  RawKind kind = RawKind::kGemm;
  std::vector<GemmRequest> shapes;      // gemm, power
  std::vector<double> limits_w;         // power --set-power-limits
  CollectivePlan collectives;
  ReshardPlan reshard;
  std::string fabric = "auto";
  int gpus = 0;                         // collectives/reshard --gpus (0 = all)
  ntpcal::CudaOptions cuda;             // devices filled for gemm/power in single-process mode
};

Status read_counts(const Args& a, int& warmup, int& reps) {
  auto w = a.integer("--warmup"), r = a.integer("--reps");
  if (!w.ok()) return w.error();
  if (!r.ok()) return r.error();
  if (*w < 0 || *r < 1) return Error::bad_input("need --warmup >= 0 and --reps >= 1");
  warmup = static_cast<int>(*w);
  reps = static_cast<int>(*r);
  return Status::Ok();
}

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
      if (!parse_dtype(a.text("--dtype"), dt)) return Error::bad_input("--dtype must be bf16 or fp8");
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
    for (GemmRequest& r : p.shapes) {
      r.warmup = warmup;
      r.reps = reps;
      r.min_seconds = min_s;
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
  if (a.has("--gpus")) {
    auto g = a.integer("--gpus");
    if (!g.ok()) return g.error();
    if (*g < 2) return Error::bad_input("--gpus must be at least 2");
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

void base_context(RawContext& ctx, const ntpcal::World& world, const std::string& sub, int argc,
                  char** argv) {
  ctx.set("tool", "ntpcal " + sub);
  ctx.set("ntpsim_version", build_info().version);
  const char* sha = std::getenv("NTPSIM_GIT_SHA");
  ctx.set("git_sha", sha != nullptr && *sha != '\0' ? std::string(sha) : build_info().git_sha);
  ctx.set("build_type", build_info().build_type);
  ctx.set("date", utc_now());
  std::string host_list;
  for (const auto& h : world.hostnames()) {
    if ((" " + host_list + " ").find(" " + h + " ") == std::string::npos) {
      host_list += (host_list.empty() ? "" : " ") + h;
    }
  }
  ctx.set("hostname", host_list);
  std::string cmd;
  for (int i = 0; i < argc; ++i) cmd += (i ? " " : "") + std::string(argv[i]);
  ctx.set("command", cmd);
}

int run(int argc, char** argv, ntpcal::World& world) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fputs(kUsage, stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string sub = argv[1];
  if (sub == "--version") {
    std::printf("ntpcal %s (git %s)\n", build_info().version.c_str(), build_info().git_sha.c_str());
    return 0;
  }
  if (sub != "gemm" && sub != "power" && sub != "collectives" && sub != "reshard" && sub != "info") {
    return fail(Error::bad_input("unknown subcommand '" + sub + "'\n" + kUsage));
  }
  Args a;
  declare(a, sub);
  if (auto s = a.parse(argc, argv, 2); !s.ok()) return fail(s.error());
  if (a.has("--help")) {
    std::printf("usage: ntpcal %s [options]\n%s", sub.c_str(), a.help().c_str());
    return 0;
  }
#ifndef NTPCAL_HAVE_NCCL
  if (sub == "collectives" || sub == "reshard") {
    return fail(Error::bad_input("this ntpcal was built without NCCL: no " + sub + " subcommand"));
  }
#endif
  auto plan = make_plan(a, sub);
  if (!plan.ok()) return fail(plan.error());
  ntpcal::Nvml nvml;
  auto count = ntpcal::cuda_device_count();
  if (sub == "info" && !count.ok()) {
    // Without a usable GPU, `info` still says what this machine has and why no GPU is usable.
    RawContext ctx;
    base_context(ctx, world, sub, argc, argv);
    ntpcal::describe_host(ctx, nvml, world);
    ctx.set("gpus", "none: " + count.error().message);
    for (const auto& [k, v] : ctx.entries()) std::printf("%s: %s\n", k.c_str(), v.c_str());
    return 0;
  }
  if (!count.ok()) return fail(count.error());
  ntpcal::CudaOptions opt = plan->cuda;
  if (world.mpi()) {
    opt.devices = {world.local_rank() % *count};
  } else if (opt.devices.empty()) {  // collectives and reshard: the first --gpus devices, or all
    for (int d = 0; d < (plan->gpus > 0 ? plan->gpus : *count); ++d) opt.devices.push_back(d);
  }
  // Collective groups: --fabric scale_out takes one rank per host, round robin over the hosts
  // (the groups then cross the scale-out network); otherwise ranks 0..n-1.
  const std::vector<std::string> hosts = world.hostnames();
  std::vector<std::string> distinct;
  for (const auto& h : hosts) {
    if (std::find(distinct.begin(), distinct.end(), h) == distinct.end()) distinct.push_back(h);
  }
  if ((sub == "collectives" || sub == "reshard") && plan->fabric == "scale_out") {
    if (distinct.size() < 2) {
      return fail(
          Error::bad_input("--fabric scale_out needs ranks on several hosts (run under "
                           "mpirun/srun with one process per GPU)"));
    }
    std::vector<std::vector<int>> by_host(distinct.size());
    for (size_t r = 0; r < hosts.size(); ++r) {
      const auto h = std::find(distinct.begin(), distinct.end(), hosts[r]) - distinct.begin();
      by_host[static_cast<size_t>(h)].push_back(static_cast<int>(r));
    }
    for (size_t i = 0; opt.rank_order.size() < hosts.size(); ++i) {
      for (const auto& ranks : by_host) {
        if (i < ranks.size()) opt.rank_order.push_back(ranks[i]);
      }
    }
  }
  auto backend = ntpcal::CudaBackend::create(world, nvml, opt);
  if (!backend.ok()) return fail(backend.error());
  ntpcal::CudaBackend& b = **backend;

  RawContext ctx;
  base_context(ctx, world, sub, argc, argv);
  ntpcal::describe_host(ctx, nvml, world);
  b.describe(ctx, sub == "gemm" || sub == "power" || sub == "info");
  if (sub == "info") {
    for (const auto& [k, v] : ctx.entries()) std::printf("%s: %s\n", k.c_str(), v.c_str());
    return 0;
  }

  // Defaults that depend on the ranks and hosts. With --fabric auto each group is labelled by
  // the hosts its ranks (0..n-1) span: one host is scale_up, several scale_out.
  const auto spans_hosts = [&](int g) {
    for (int r = 1; r < g && r < static_cast<int>(hosts.size()); ++r) {
      if (hosts[static_cast<size_t>(r)] != hosts[0]) return true;
    }
    return false;
  };
  std::string fabric = plan->fabric;
  if (fabric == "auto") {
    plan->collectives.fabric_of_group = [&](int g) {
      return spans_hosts(g) ? "scale_out" : "scale_up";
    };
  }
  if (fabric == "auto")
    fabric = distinct.size() > 1 ? "auto (scale_out for groups spanning hosts)" : "scale_up";
  plan->collectives.fabric = fabric;
  plan->reshard.fabric = plan->fabric == "auto"
                             ? (spans_hosts(b.max_group_size()) ? "scale_out" : "scale_up")
                             : plan->fabric;
  if (plan->collectives.group_sizes.empty()) {
    for (int g = 2; g <= b.max_group_size(); ++g) plan->collectives.group_sizes.push_back(g);
  }
  if (plan->reshard.tp == 0) plan->reshard.tp = b.max_group_size();
  if (plan->fabric == "auto")
    plan->reshard.fabric = spans_hosts(plan->reshard.tp) ? "scale_out" : "scale_up";
  if (!a.has("--k")) {
    std::erase_if(plan->reshard.ks, [&](int k) { return k >= plan->reshard.tp; });
  }
  if (plan->kind == RawKind::kCollective) ctx.set("fabric", fabric);
  if (plan->kind == RawKind::kReshard) ctx.set("fabric", plan->reshard.fabric);

  // GEMM and power: every rank writes its own file; collectives and reshard: rank 0 writes.
  std::string path = a.text("--out");
  const bool per_rank = plan->kind == RawKind::kGemm || plan->kind == RawKind::kPower;
  if (world.size() > 1 && world.rank() > 0) {
    path = per_rank && path != "-" ? path + ".rank" + std::to_string(world.rank()) : "/dev/null";
  }
  auto out = RawWriter::open(path, plan->kind, ctx);
  if (!out.ok()) return fail(out.error());
  const bool quiet = a.has("--quiet") || (world.rank() > 0 && !per_rank);
  const std::string prefix = world.size() > 1 ? "[rank " + std::to_string(world.rank()) + "] " : "";
  const ProgressFn progress = [&](const std::string& line) {
    if (!quiet) std::fprintf(stderr, "%s%s\n", prefix.c_str(), line.c_str());
  };
  if (!nvml.available() && !quiet) {
    std::fprintf(stderr, "ntpcal: %s: no power or clock samples\n", nvml.status().c_str());
  }

  Status st;
  switch (plan->kind) {
    case RawKind::kGemm: st = run_gemms(b, plan->shapes, *out, progress); break;
    case RawKind::kPower: st = run_power(b, plan->shapes, plan->limits_w, *out, progress); break;
    case RawKind::kCollective: st = run_collectives(b, plan->collectives, *out, progress); break;
    case RawKind::kReshard: st = run_reshards(b, plan->reshard, *out, progress); break;
  }
  if (!st.ok()) {
    return fail(st.error(), " (" + std::to_string(out->rows()) + " completed rows kept in " + path + ")");
  }
  if (!quiet) std::fprintf(stderr, "%swrote %d rows to %s\n", prefix.c_str(), out->rows(), path.c_str());
  return 0;
}

}  // namespace

extern "C" void ntpcal_on_signal(int) {
  ntpcal::g_interrupted = 1;
}

int main(int argc, char** argv) {
  // SIGINT/SIGTERM (Ctrl-C, Slurm's time limit, scancel) only set a flag that every wait polls:
  // the measurement stops with an error on the ordinary path, which restores any power limit
  // that --set-power-limits changed, and the completed rows stay in the file.
  struct sigaction sa {};
  sa.sa_handler = ntpcal_on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  ntpcal::World world(&argc, &argv);
  const int rc = run(argc, argv, world);
  if (rc != 0 && world.size() > 1) world.abort(rc);
  return rc;
}
