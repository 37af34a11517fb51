// `ntpsim fit`, `ntpcal-synth` and `ntpcal` run as programs: exit codes and messages.
// ntpcal's no-GPU behaviour is checked only on machines without an NVIDIA device.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/driver.h"
#include "calibrate/raw_reader.h"
#include "calibrate/recorded_backend.h"
#include "calibrate_test_util.h"
#include "models/base/yaml_reader.h"
#include "models/hardware.h"

namespace ntpsim::calibrate {
namespace {

namespace fs = std::filesystem;

struct ProgramRun {
  int exit_code = -1;
  std::string out, err;
};

ProgramRun run(const std::string& program, const std::string& args, const std::string& env = "") {
  const std::string out = test::scratch_path("out.txt"), err = test::scratch_path("err.txt");
  const std::string cmd = env + (env.empty() ? "" : " ") + "'" + program + "' " + args + " > '" +
                          out + "' 2> '" + err + "'";
  const int status = std::system(cmd.c_str());
  ProgramRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = test::read_text(out);
  r.err = test::read_text(err);
  return r;
}

// A small two-day scenario on the fitted profile, written to `path`: `domains` domains of 8 GPUs
// (one of them spare with `spare`), TP 8 x PP 1 x DP `dp` of `workload`, checkpoint_restart and
// ntp, so `ntpsim run` shows the profile's origin travelling into the results.
void write_small_scenario(const std::string& path, const std::string& name, int domains,
                          int spare, const std::string& workload, int dp,
                          const std::string& profile, int seed) {
  std::ofstream f(path);
  f << "name: " << name << "\n"
    << "cluster: {domains: " << domains << ", gpus_per_domain: 8, spare_domains: " << spare
    << "}\n"
    << "workload: " << workload << "\nlayout: {tp: 8, pp: 1, dp: " << dp << "}\nhardware: "
    << profile
    << "\n"
       "model: analytic\n"
       "failures:\n  processes:\n    - component: gpu\n      rate: \"2e-3/h\"\n      kinds:\n"
       "        - {name: hardware, share: 1, repair: {distribution: fixed, mean: \"1d\"}}\n"
       "checkpoint: {interval: auto, write: \"60s\", restore: \"5min\"}\n"
       "recovery: {detection: \"2min\", restart: \"10min\", reconfigure: \"1min\", spare_swap: "
       "\"5min\"}\n"
       "strategies: [checkpoint_restart, ntp]\nhorizon: \"2d\"\nreplications: 2\nseed: "
    << seed << "\n";
}

TEST(FitCli, FitsSyntheticFilesIntoALoadableProfile) {
  const std::string dir = fs::path(test::scratch_path("x")).parent_path().string();
  const ProgramRun synth = run(NTPCAL_SYNTH_BIN, "'" + dir + "' --seed 3");
  ASSERT_EQ(synth.exit_code, 0) << synth.err;
  const std::string profile = dir + "/fitted.yaml";
  const ProgramRun fit = run(NTPSIM_BIN, "fit '" + dir + "/synthetic-gemm.csv' '" + dir + "/synthetic-power.csv' '" + dir +
                                      "/synthetic-collectives.csv' '" + dir + "/synthetic-reshard.csv' --base h200-sxm -o '" +
                                      profile + "' --report '" + dir + "/report.csv'");
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  EXPECT_NE(fit.out.find("gemm bf16: rate"), std::string::npos);
  EXPECT_NE(fit.err.find("WARNING"), std::string::npos);  // synthetic input is called out
  EXPECT_NE(fit.out.find("origin synthetic"), std::string::npos);
  auto node = load_yaml_file(profile);
  ASSERT_TRUE(node.ok());
  auto h = models::read_hardware(*node, "", YamlContext(profile), {});
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->origin, "synthetic");  // generated files never yield a "measured" profile
  EXPECT_EQ(h->field_origins.at("gemm"), "synthetic");
  EXPECT_NEAR(h->power_elasticity, 0.35, 0.03);
  EXPECT_NE(test::read_text(profile).find("SYNTHETIC"), std::string::npos);
  EXPECT_NE(test::read_text(dir + "/report.csv").find("fit,what,measured_s,predicted_s,rel_error"), std::string::npos);
}

// The whole path without a GPU: synthetic raw files (the synthetic backend through ntpcal's
// measurement loops) and nccl-tests logs -> fit -> profile -> step -> run, with the provenance
// carried and warned about at each step.
TEST(FitCli, RawFilesAndNcclTestsLogsToProfileStepAndRun) {
  const std::string dir = fs::path(test::scratch_path("x")).parent_path().string();
  ASSERT_EQ(run(NTPCAL_SYNTH_BIN, "'" + dir + "' --seed 5").exit_code, 0);
  const std::string logs = std::string(NTPSIM_SOURCE_DIR) + "/calibrate/recorded/nccl-tests/";
  const std::string profile = dir + "/mixed-in.yaml";
  const ProgramRun fit =
      run(NTPSIM_BIN,
          "fit '" + dir + "/synthetic-gemm.csv' '" + dir + "/synthetic-power.csv' '" + logs +
              "all_reduce_perf-h200-2nodes.log' '" + logs + "alltoall_perf-h200-2nodes.log' '" +
              logs + "reduce_scatter_perf-h200-2nodes.log' --base h200-sxm -o '" + profile + "'");
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  EXPECT_NE(fit.out.find("scale_out all_reduce: alpha"), std::string::npos) << fit.out;
  EXPECT_NE(fit.err.find("all_reduce_perf-h200-2nodes.log is SYNTHETIC"), std::string::npos)
      << fit.err;
  auto node = load_yaml_file(profile);
  ASSERT_TRUE(node.ok());
  auto h = models::read_hardware(*node, "", YamlContext(profile), {});
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->origin, "synthetic");
  EXPECT_EQ(h->name, "h200-sxm-synthetic");
  EXPECT_EQ(h->field_origins.at("scale_out"), "synthetic");
  EXPECT_EQ(h->field_origins.at("scale_up"), "spec");  // not fitted: the base's
  EXPECT_GT(h->scale_out.collectives.at("all_reduce").bus_bw_Bps, 40e9);
  EXPECT_LT(h->scale_out.collectives.at("all_reduce").bus_bw_Bps, 50e9);

  const ProgramRun step =
      run(NTPSIM_BIN, "step --workload llama3-8b --profile '" + profile + "' --tp 8 --pp 1 --dp 4");
  ASSERT_EQ(step.exit_code, 0) << step.err;
  EXPECT_NE(step.out.find("h200-sxm-synthetic (synthetic)"), std::string::npos) << step.out;
  EXPECT_NE(step.err.find("warning: hardware profile 'h200-sxm-synthetic' has origin synthetic"),
            std::string::npos)
      << step.err;

  const std::string scenario = dir + "/small.yaml", results = dir + "/small.json";
  write_small_scenario(scenario, "calibrated-small", 4, 0, "llama3-8b", 4, profile, 3);
  const ProgramRun sim =
      run(NTPSIM_BIN, "run '" + scenario + "' --threads 1 --out '" + results + "'");
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_NE(sim.err.find("has origin synthetic"), std::string::npos) << sim.err;
  const std::string json = test::read_text(results);
  EXPECT_NE(json.find("\"profile_origin\": \"synthetic\""), std::string::npos);
  EXPECT_NE(json.find("fitted from synthetic data, not measured"), std::string::npos);
}

TEST(FitCli, MalformedNcclTestsLogIsExit2WithFileAndLine) {
  const std::string log = test::scratch_path("all_gather_perf.log");
  {
    std::ofstream f(log);
    f << "# Using devices\n"
         "#  Rank  0 Group  0 Pid  1 on h1 device  0 [0x19] NVIDIA H200\n"
         "#  Rank  1 Group  0 Pid  1 on h1 device  1 [0x29] NVIDIA H200\n"
         "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
         "time   algbw   busbw #wrong\n"
         "        4096           512     float    none      -1    20.00    0.20    0.90      0    "
         "20.00    0.20    0.10      0\n";
  }
  const ProgramRun r = run(
      NTPSIM_BIN, "fit '" + log + "' -o '" + test::scratch_path("p.yaml") + "' --base h200-sxm");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(log + ":5:74: column 'busbw': busbw 0.90 GB/s is not algbw x 0.5"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(test::scratch_path("p.yaml")));
}

TEST(FitCli, MalformedRawFileIsExit2WithFileAndLine) {
  const std::string raw = test::scratch_path("bad.csv");
  {
    std::ofstream f(raw);
    f << "# format: ntpcal-raw/1\n# kind: reshard\n"
         "fabric,tp,k,bytes_per_rank,busiest_bytes,reps,time_median_s,time_p10_s,time_p90_s,time_min_s,time_max_s\n"
         "scale_up,8,1,1000,1000,3,1e-4,1e-4,1e-4,1e-4,1e-4\n"
         "scale_up,8,1,2000,2000,3,fast,1e-4,1e-4,1e-4,1e-4\n";
  }
  const ProgramRun r = run(NTPSIM_BIN, "fit '" + raw + "' -o '" + test::scratch_path("p.yaml") + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(raw + ":5:26: column 'time_median_s': 'fast' is not a number"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(test::scratch_path("p.yaml")));
  const ProgramRun missing = run(NTPSIM_BIN, "fit /nonexistent.csv -o '" + test::scratch_path("p.yaml") + "'");
  EXPECT_EQ(missing.exit_code, 2);
  const ProgramRun base = run(NTPSIM_BIN, "fit '" + raw + "' --base h200-sx -o x.yaml");
  EXPECT_EQ(base.exit_code, 2);
}

// Replays one recorded raw file through ntpcal's measurement loops (the recorded backend in
// place of the GPU) into `out`, with the file's context: every row is asked for again, in order.
Status replay_file(const RawData& rec, const std::string& out) {
  const std::string fabric = !rec.collectives.empty() ? rec.collectives.front().fabric
                             : !rec.reshards.empty()  ? rec.reshards.front().fabric
                                                      : "scale_up";
  RecordedBackend b({rec}, fabric);
  auto w = RawWriter::open(out, rec.kind, rec.context);
  if (!w.ok()) return w.error();
  if (rec.kind == RawKind::kGemm) {
    std::vector<GemmRequest> shapes;
    for (const GemmRow& r : rec.gemm) shapes.push_back(r.request);
    return run_gemms(b, shapes, *w, {});
  }
  if (rec.kind == RawKind::kPower) {  // the shape ladder, once per recorded limit
    std::vector<GemmRequest> ladder;
    std::vector<double> limits;
    for (const GemmRow& r : rec.gemm) {
      if (std::find(limits.begin(), limits.end(), r.power_limit_w) == limits.end())
        limits.push_back(r.power_limit_w);
      if (r.power_limit_w == rec.gemm.front().power_limit_w) ladder.push_back(r.request);
    }
    return run_power(b, ladder, limits, *w, {});
  }
  if (rec.kind == RawKind::kCollective) {  // per (group size, collective): its recorded sizes
    std::vector<std::pair<int, CollectiveKind>> order;
    std::map<std::pair<int, CollectiveKind>, std::vector<int64_t>> sizes;
    for (const CollectiveRow& r : rec.collectives) {
      const auto key = std::make_pair(r.request.group_size, r.request.kind);
      if (sizes.find(key) == sizes.end()) order.push_back(key);
      sizes[key].push_back(r.request.bytes);
    }
    for (const auto& key : order) {
      CollectivePlan plan;
      plan.kinds = {key.second};
      plan.group_sizes = {key.first};
      plan.bytes = sizes[key];
      plan.fabric = fabric;
      NTPSIM_RETURN_IF_ERROR(run_collectives(b, plan, *w, {}));
    }
    return Status::Ok();
  }
  std::vector<std::pair<int, int>> order;  // reshard: per (T, k) its recorded sizes
  std::map<std::pair<int, int>, std::vector<int64_t>> sizes;
  for (const ReshardRow& r : rec.reshards) {
    const auto key = std::make_pair(r.request.tp, r.request.k);
    if (sizes.find(key) == sizes.end()) order.push_back(key);
    sizes[key].push_back(r.request.bytes_per_rank);
  }
  for (const auto& key : order) {
    ReshardPlan plan;
    plan.tp = key.first;
    plan.ks = {key.second};
    plan.bytes_per_rank = sizes[key];
    plan.fabric = fabric;
    NTPSIM_RETURN_IF_ERROR(run_reshards(b, plan, *w, {}));
  }
  return Status::Ok();
}

// The whole path with the recorded backend in place of a GPU: the shipped example raw files
// (calibrate/recorded/synthetic-*.csv) replayed through ntpcal's measurement loops into new raw
// files -> `ntpsim fit` -> profile -> `ntpsim step` -> a small `ntpsim run`. The replay must
// answer every row, so the profile agrees with the one fitted from the shipped files directly
// (to 1e-4: where a file holds one shape twice, the replay answers both with one of them), and
// the synthetic provenance reaches the run's results.
TEST(RecordedPath, ReplayFitStepRun) {
  const std::string dir = fs::path(test::scratch_path("x")).parent_path().string();
  const std::string recorded = std::string(NTPSIM_SOURCE_DIR) + "/calibrate/recorded";
  std::string originals, replays;
  for (const char* kind : {"gemm", "power", "collectives", "reshard"}) {
    const std::string in = recorded + "/synthetic-" + kind + ".csv";
    if (!fs::exists(in)) continue;  // the shipped set has no reshard file
    const std::string out = dir + "/replayed-" + kind + ".csv";
    auto rec = read_raw_file(in);
    ASSERT_TRUE(rec.ok()) << rec.error().message;
    const Status s = replay_file(*rec, out);
    ASSERT_TRUE(s.ok()) << kind << ": " << s.error().message;
    auto back = read_raw_file(out);
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_EQ(back->rows(), rec->rows()) << kind;
    originals += " '" + in + "'";
    replays += " '" + out + "'";
  }
  ASSERT_FALSE(replays.empty());
  const std::string direct = dir + "/direct.yaml", profile = dir + "/replayed.yaml";
  ASSERT_EQ(run(NTPSIM_BIN, "fit" + originals + " --base h200-sxm -o '" + direct + "'").exit_code,
            0);
  const ProgramRun fit = run(NTPSIM_BIN, "fit" + replays + " --base h200-sxm -o '" + profile + "'");
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  const auto load = [](const std::string& path) {
    auto node = load_yaml_file(path);
    EXPECT_TRUE(node.ok());
    auto h = models::read_hardware(*node, "", YamlContext(path), {});
    EXPECT_TRUE(h.ok()) << h.error().message;
    return h.ok() ? *h : models::HardwareProfile{};
  };
  const models::HardwareProfile h = load(profile), d = load(direct);
  EXPECT_EQ(h.origin, "synthetic");
  const auto near = [](double got, double want) { return std::abs(got / want - 1.0) < 1e-4; };
  EXPECT_TRUE(near(h.gemm_efficiency, d.gemm_efficiency)) << h.gemm_efficiency;
  EXPECT_TRUE(near(h.peak_fp8_flops, d.peak_fp8_flops)) << h.peak_fp8_flops;
  EXPECT_TRUE(near(h.gemm.overhead_s, d.gemm.overhead_s)) << h.gemm.overhead_s;
  EXPECT_TRUE(near(h.power_elasticity, d.power_elasticity)) << h.power_elasticity;
  ASSERT_EQ(h.scale_up.collectives.size(), d.scale_up.collectives.size());
  for (const auto& [name, c] : d.scale_up.collectives) {
    EXPECT_TRUE(near(h.scale_up.collectives.at(name).bus_bw_Bps, c.bus_bw_Bps)) << name;
    EXPECT_TRUE(near(h.scale_up.collectives.at(name).alpha_s, c.alpha_s)) << name;
  }

  const ProgramRun step = run(
      NTPSIM_BIN, "step --workload llama3-70b --profile '" + profile + "' --tp 8 --pp 1 --dp 8");
  ASSERT_EQ(step.exit_code, 0) << step.err;
  EXPECT_NE(step.out.find("(synthetic)"), std::string::npos) << step.out;
  const std::string scenario = dir + "/small.yaml", results = dir + "/small.json";
  write_small_scenario(scenario, "replayed-small", 8, 1, "llama3-70b", 8, profile, 4);
  const ProgramRun sim =
      run(NTPSIM_BIN, "run '" + scenario + "' --threads 1 --out '" + results + "'");
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_NE(test::read_text(results).find("\"profile_origin\": \"synthetic\""), std::string::npos);
}

// The on-ramp script (calibrate/tools/calibrate_node.sh) end to end without a GPU: ntpcal is
// replaced by a test double (ntpcal_stand_in.sh) that hands out the files ntpcal-synth wrote
// through ntpcal's measurement loops; the script, `ntpsim fit`, `ntpsim step` and `ntpsim run`
// are the real ones. Every step must succeed, the profile must say it came from synthetic data,
// and everything must land in --out. Where the real ntpcal is built and no GPU is present, each
// command line the script gave the double must pass ntpcal's own option checks, so a flag the
// script passes wrongly fails here and not in a GPU slot.
TEST(OnRampScript, EveryStepRunsOnSyntheticDataAndTheProfileSaysSo) {
  const std::string dir = fs::path(test::scratch_path("x")).parent_path().string();
  const std::string synth = dir + "/synth", out = dir + "/node";
  fs::remove_all(synth);
  fs::remove_all(out);
  fs::create_directories(synth);
  ASSERT_EQ(run(NTPCAL_SYNTH_BIN, "'" + synth + "' --seed 7").exit_code, 0);
  const std::string src = NTPSIM_SOURCE_DIR;
  const ProgramRun r = run("bash",
                           "'" + src + "/calibrate/tools/calibrate_node.sh' --ntpcal '" + src +
                               "/tests/calibrate/ntpcal_stand_in.sh' --ntpsim '" + NTPSIM_BIN +
                               "' --gpus 8 --budget 5 --out '" + out + "'",
                           "NTPCAL_SYNTH_DIR='" + synth + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string steps = test::read_text(out + "/steps.tsv");
  for (const char* step : {"info", "gemm-layers", "collectives", "reshard", "power", "gemm-square",
                           "fit", "step-time", "run"}) {
    EXPECT_NE(steps.find(std::string(step) + "\tok\t"), std::string::npos) << step << ":\n"
                                                                           << steps;
    EXPECT_TRUE(fs::exists(out + "/" + step + ".log")) << step;
  }
  auto node = load_yaml_file(out + "/profile.yaml");
  ASSERT_TRUE(node.ok());
  auto h = models::read_hardware(*node, "", YamlContext(out + "/profile.yaml"), {});
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->origin, "synthetic");
  EXPECT_NE(test::read_text(out + "/step-time.log").find("(synthetic)"), std::string::npos);
  EXPECT_NE(
      test::read_text(out + "/small-run-results.json").find("\"profile_origin\": \"synthetic\""),
      std::string::npos);

#ifdef NTPCAL_BIN
  if (fs::exists("/dev/nvidiactl") || fs::exists("/dev/nvidia0")) return;
  std::ifstream calls(synth + "/calls.txt");
  std::string line;
  int checked = 0;
  while (std::getline(calls, line)) {
    if (line.rfind("info", 0) == 0) continue;
    const ProgramRun c =
        run("/bin/sh", "-c \"cd '" + src + "' && '" + NTPCAL_BIN + "' " + line + "\"");
    EXPECT_EQ(c.exit_code, 2) << line;
    EXPECT_NE(c.err.find("no CUDA GPU found"), std::string::npos) << line << ": " << c.err;
    ++checked;
  }
  EXPECT_EQ(checked, 5);  // gemm (layers), collectives, reshard, power, gemm (squares)
#endif
}

// The calibration scripts parse (bash -n), and pass shellcheck where it is installed: a syntax
// error found in a GPU slot costs the slot.
TEST(OnRampScript, ScriptsPassBashAndShellcheck) {
  const std::string src = NTPSIM_SOURCE_DIR;
  const bool shellcheck = std::system("command -v shellcheck > /dev/null 2>&1") == 0;
  for (const char* f : {"calibrate/tools/calibrate_node.sh", "calibrate/tools/device_check.sh",
                        "calibrate/tools/slurm/hgx8.sbatch", "calibrate/tools/slurm/nvl72.sbatch",
                        "tests/calibrate/ntpcal_stand_in.sh"}) {
    const std::string path = src + "/" + f;
    ASSERT_TRUE(fs::exists(path)) << path;
    const ProgramRun syntax = run("bash", "-n '" + path + "'");
    EXPECT_EQ(syntax.exit_code, 0) << f << ": " << syntax.err;
    if (shellcheck) {
      const ProgramRun sc = run("shellcheck", "-s bash '" + path + "'");
      EXPECT_EQ(sc.exit_code, 0) << f << ":\n" << sc.out << sc.err;
    }
  }
}

#ifdef NTPCAL_BIN
TEST(NtpcalCli, OptionsAreCheckedBeforeTheGpu) {
  EXPECT_EQ(run(NTPCAL_BIN, "gemm --help").exit_code, 0);
  const ProgramRun bad = run(NTPCAL_BIN, "gemm --bogus 1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown option '--bogus'"), std::string::npos);
  EXPECT_EQ(run(NTPCAL_BIN, "gemm --hidden 4096 --heads 32").exit_code, 2);  // needs --ffn --seq --tp
  EXPECT_EQ(run(NTPCAL_BIN, "collectives --min-bytes 1X").exit_code, 2);
  EXPECT_EQ(run(NTPCAL_BIN, "frobnicate").exit_code, 2);
  const ProgramRun layout = run(NTPCAL_BIN, "gemm --square 256 --layout TT");
  EXPECT_EQ(layout.exit_code, 2);
  EXPECT_NE(layout.err.find("--layout: 'TT' is not TN, NN or NT"), std::string::npos) << layout.err;
  const ProgramRun dtype = run(NTPCAL_BIN, "gemm --square 256 --dtype fp4");
  EXPECT_EQ(dtype.exit_code, 2);
  EXPECT_NE(dtype.err.find("'fp4' is not bf16, fp8 or mxfp8"), std::string::npos) << dtype.err;
}

TEST(NtpcalCli, InfoWorksWithoutAGpu) {
  if (fs::exists("/dev/nvidiactl") || fs::exists("/dev/nvidia0"))
    GTEST_SKIP() << "this machine has an NVIDIA GPU";
  const ProgramRun r = run(NTPCAL_BIN, "info");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* key : {"cuda_toolkit: ", "cuda_driver: ", "cublas: ", "nccl: ", "nvml: ",
                          "mpi: ", "cublaslt_block_scaling: ", "gpus: none: "}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " missing from:\n" << r.out;
  }
  const ProgramRun sha = run(NTPCAL_BIN, "info", "NTPSIM_GIT_SHA=0123456789ab");
  EXPECT_NE(sha.out.find("git_sha: 0123456789ab"), std::string::npos) << sha.out;
}

TEST(NtpcalCli, NoGpuIsAClearMessageAndExit2) {
  if (fs::exists("/dev/nvidiactl") || fs::exists("/dev/nvidia0")) GTEST_SKIP() << "this machine has an NVIDIA GPU";
  const std::string out = test::scratch_path("gemm.csv");
  const ProgramRun r = run(NTPCAL_BIN, "gemm --out '" + out + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("ntpcal: error: no CUDA GPU found"), std::string::npos) << r.err;
  EXPECT_EQ(run(NTPCAL_BIN, "power").exit_code, 2);
  EXPECT_EQ(run(NTPCAL_BIN, "collectives").exit_code, 2);
  EXPECT_EQ(run(NTPCAL_BIN, "reshard").exit_code, 2);
}
#endif

}  // namespace
}  // namespace ntpsim::calibrate
