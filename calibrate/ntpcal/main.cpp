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
#include "calibrate/ntpcal/plan.h"
#include "calibrate/shapes.h"
#include "models/base/build_info.h"

namespace {

using namespace ntpsim;
using namespace ntpsim::calibrate;
using ntpsim::ntpcal::Args;

constexpr const char* kUsage =
    "usage: ntpcal SUBCOMMAND [options]\n"
    "  gemm         cuBLASLt GEMM times (bf16, fp8, mxfp8; TN/NN/NT) over workload shapes\n"
    "               or a grid, with power/clock\n"
    "  power        power and SM clock across GEMM intensities; --set-power-limits sweeps\n"
    "               limits (root)\n"
    "  collectives  NCCL all_reduce, all_gather, reduce_scatter, all_to_all, send_recv\n"
    "  reshard      the NTP gradient reshard (T ranks, k extra ranks' shards to T-k core\n"
    "               ranks and back)\n"
    "  info         print the measurement context of this machine\n"
    "Run under mpirun/srun for one process per GPU (when built with MPI).\n"
    "See calibrate/README.md.\n";

int fail(const Error& e, const std::string& where = "") {
  std::fprintf(stderr, "ntpcal: error: %s%s\n", e.message.c_str(), where.c_str());
  return static_cast<int>(e.exit_code);
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
      if (!host_list.empty()) host_list += ' ';
      host_list += h;
    }
  }
  ctx.set("hostname", host_list);
  std::string cmd;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) cmd += ' ';
    cmd += argv[i];
  }
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
  ntpcal::declare(a, sub);
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
  auto plan = ntpcal::make_plan(a, sub);
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
  if (plan->kind == RawKind::kCollective || plan->kind == RawKind::kReshard) {
    // As nccl-tests' -g: GPUs per process. This ntpcal drives one GPU per process under MPI and
    // every selected local GPU in a single process.
    if (world.mpi() && plan->gpus > 1) {
      return fail(
          Error::bad_input("under mpirun/srun each ntpcal process drives one GPU: -g/--gpus "
                           "must be 1 (or left out); start one process per GPU"));
    }
    if (!world.mpi() && (plan->gpus == 1 || (plan->gpus == 0 && *count < 2))) {
      return fail(Error::bad_input(
          sub + " needs at least 2 ranks: -g/--gpus 2 or more local GPUs (this machine has " +
          std::to_string(*count) + "), or one process per GPU under mpirun/srun"));
    }
  }
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
  if (sub != "info") ctx.set("timing", ntpcal::timing_context(*plan));
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
    const int rc = fail(
        st.error(), " (" + std::to_string(out->rows()) + " completed rows kept in " + path + ")");
    if (ntpcal::g_device_hung) {
      // The GPU may never finish its queued work: no clean-up that would wait for it (cudaFree,
      // context teardown). The rows are flushed and any power limit is already restored.
      std::fprintf(stderr,
                   "ntpcal: the GPU did not finish its queued work: exiting without "
                   "freeing device memory\n");
      std::fflush(nullptr);
      if (world.size() > 1) world.abort(rc);
      std::_Exit(rc);
    }
    return rc;
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
