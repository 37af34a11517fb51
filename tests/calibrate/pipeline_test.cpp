// The calibration pipeline without a GPU: measure (synthetic backend) -> raw CSV -> replay
// (recorded backend) -> fit -> profile YAML -> models::read_hardware -> step time, compared with
// the same step model on a profile holding the true parameters. Also: failures keep completed rows.
#include <gtest/gtest.h>

#include "calibrate/driver.h"
#include "calibrate/fit.h"
#include "calibrate/model_check.h"
#include "calibrate/profile.h"
#include "calibrate/recorded_backend.h"
#include "calibrate/shapes.h"
#include "calibrate/synthetic.h"
#include "calibrate_test_util.h"
#include "models/base/yaml_reader.h"
#include "models/step_model.h"
#include "models/workload.h"

namespace ntpsim::calibrate {
namespace {

using test::measure;
using test::scratch_path;

const std::vector<std::string> kProfileDirs = {std::string(NTPSIM_SOURCE_DIR) + "/models/profiles"};
const std::vector<std::string> kWorkloadDirs = {std::string(NTPSIM_SOURCE_DIR) + "/models/workloads"};

models::HardwareProfile spec(const std::string& name) {
  auto h = models::read_hardware(YAML::Node(name), "hardware", YamlContext("test"), kProfileDirs);
  EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().message);
  return h.ok() ? *h : models::HardwareProfile{};
}

// Llama 3 8B shapes (h 4096, 32 heads, 8 KV heads, FFN 14336, seq 8192, vocab 128256) at TP 8, 7.
const LayerDims kDims{4096, 32, 8, 14336, true, 8192, 1, 128256};

// Every kind of raw file the harness writes, from the synthetic GPU.
std::vector<RawData> synthetic_campaign(const SyntheticTruth& truth, uint64_t seed) {
  SyntheticBackend b(truth, seed);
  std::vector<RawData> out;
  auto shapes = layer_shapes(kDims, {8, 7}, GemmDType::kBF16, true);
  for (const auto& s : square_shapes(geometric(512, 16384, 2.0), GemmDType::kBF16)) shapes.push_back(s);
  out.push_back(measure(RawKind::kGemm, [&](RawWriter& w) { return run_gemms(b, shapes, w, {}); }));
  CollectivePlan plan;
  plan.kinds = all_collectives();
  plan.bytes = geometric(1 << 12, 1 << 30, 4.0);
  plan.group_sizes = {2, 4, 7, 8};
  out.push_back(measure(RawKind::kCollective, [&](RawWriter& w) { return run_collectives(b, plan, w, {}); }));
  ReshardPlan rp;
  rp.tp = 8;
  rp.ks = {1, 2};
  rp.bytes_per_rank = geometric(1 << 20, 1 << 30, 4.0);
  out.push_back(measure(RawKind::kReshard, [&](RawWriter& w) { return run_reshards(b, rp, w, {}); }));
  return out;
}

TEST(Pipeline, RecordedBackendReplaysRowsExactly) {
  SyntheticBackend b(SyntheticTruth{}, 21);
  const auto shapes = square_shapes({1024, 2048, 4096}, GemmDType::kBF16);
  const RawData first = measure(RawKind::kGemm, [&](RawWriter& w) { return run_gemms(b, shapes, w, {}); },
                                true, "first.csv");
  RecordedBackend replay({first});
  const RawData second = measure(RawKind::kGemm, [&](RawWriter& w) { return run_gemms(replay, shapes, w, {}); },
                                 true, "second.csv");
  // Same rows (tflops, a derived column, is recomputed from the stored median and may differ in
  // its 9th digit).
  ASSERT_EQ(second.gemm.size(), first.gemm.size());
  for (size_t i = 0; i < first.gemm.size(); ++i) {
    const GemmRow& x = first.gemm[i];
    const GemmRow& y = second.gemm[i];
    EXPECT_EQ(x.request.m, y.request.m);
    EXPECT_EQ(x.request.label, y.request.label);
    EXPECT_EQ(x.power_limit_w, y.power_limit_w);
    EXPECT_EQ(x.time.reps, y.time.reps);
    for (const auto& [a, c] : {std::pair{x.time.median_s, y.time.median_s}, {x.time.p10_s, y.time.p10_s},
                               {x.time.p90_s, y.time.p90_s}, {x.time.min_s, y.time.min_s},
                               {x.time.max_s, y.time.max_s}, {x.power.mean_w, y.power.mean_w},
                               {x.power.sm_clock_mean_mhz, y.power.sm_clock_mean_mhz}}) {
      EXPECT_EQ(a, c);
    }
  }
}

TEST(Pipeline, RecordedBackendNamesWhatWasNotMeasured) {
  SyntheticBackend b(SyntheticTruth{}, 22);
  const RawData rec = measure(RawKind::kGemm, [&](RawWriter& w) {
    return run_gemms(b, square_shapes({1024}, GemmDType::kBF16), w, {});
  });
  RecordedBackend replay({rec});
  auto out = RawWriter::open(scratch_path("partial.csv"), RawKind::kGemm, test::test_context());
  ASSERT_TRUE(out.ok());
  const Status s = run_gemms(replay, square_shapes({1024, 3000}, GemmDType::kBF16), *out, {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(
      s.error().message.find(
          "gemm bf16 TN 3000x3000x3000: no recorded measurement for gemm bf16 TN 3000x3000x3000"),
      std::string::npos)
      << s.error().message;
  EXPECT_EQ(out->rows(), 1);  // the completed point is on disk
  auto back = read_raw_file(scratch_path("partial.csv"));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->gemm.size(), 1u);
}

// A backend whose third collective fails, like a timed-out NCCL call.
class FailingBackend final : public Backend {
 public:
  std::string name() const override { return "failing"; }
  int max_group_size() const override { return 8; }
  std::string gemm_unsupported(const GemmRequest&) const override { return {}; }
  double power_limit_w() const override { return 0; }
  Result<GemmMeasurement> gemm(const GemmRequest&) override { return Error::runtime("no"); }
  Result<CollectiveMeasurement> collective(const CollectiveRequest&) override {
    if (++calls_ == 3) return Error::runtime("ncclAllReduce: timed out after 120 s");
    return CollectiveMeasurement{summarize({1e-5})};
  }
  Result<ReshardMeasurement> reshard(const ReshardRequest&) override { return Error::runtime("no"); }
  Result<double> set_power_limit_w(double) override { return Error::runtime("no"); }

 private:
  int calls_ = 0;
};

TEST(Pipeline, AFailedCallKeepsEveryCompletedRow) {
  FailingBackend b;
  CollectivePlan plan;
  plan.kinds = {CollectiveKind::kAllReduce};
  plan.bytes = {1024, 4096, 16384, 65536};
  plan.group_sizes = {8};
  auto out = RawWriter::open(scratch_path("c.csv"), RawKind::kCollective, test::test_context());
  ASSERT_TRUE(out.ok());
  const Status s = run_collectives(b, plan, *out, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().exit_code, ExitCode::kRuntime);
  EXPECT_NE(s.error().message.find("all_reduce n=8 bytes=16384: ncclAllReduce: timed out"), std::string::npos);
  auto back = read_raw_file(scratch_path("c.csv"));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->collectives.size(), 2u);
  // A group larger than the backend's ranks is refused before anything runs.
  plan.group_sizes = {9};
  EXPECT_NE(run_collectives(b, plan, *out, {}).error().message.find("group size 9 is outside [2, 8]"), std::string::npos);
}

// The profile with the synthetic GPU's true parameters on top of the H200 spec profile.
models::HardwareProfile truth_profile(const SyntheticTruth& t) {
  models::HardwareProfile h = spec("h200-sxm");
  h.gemm.sm_count = t.sm_count;
  h.gemm.tile_m = t.tile_m;
  h.gemm.tile_n = t.tile_n;
  h.gemm.tile_k = t.tile_k;
  h.gemm.overhead_s = t.overhead_s;
  h.gemm.table.clear();
  h.gemm_efficiency = t.bf16_rate_flops / h.peak_bf16_flops;
  for (const auto& [kind, c] : t.collectives) {
    models::CollectiveParams p;
    p.alpha_s = c.alpha_s;
    p.bus_bw_Bps = c.bus_bw_Bps;
    h.scale_up.collectives[to_string(kind)] = p;
  }
  h.scale_up.collectives["all_to_all"].by_group_size[8] = {t.reshard_alpha_s, t.reshard_bw_Bps};
  return h;
}

TEST(Pipeline, MeasureFitProfileStepTime) {
  const SyntheticTruth truth;
  const auto raw = synthetic_campaign(truth, 23);
  auto fit = fit_raw(raw);
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  for (const bool table : {false, true}) {
    SCOPED_TRACE(table ? "with the measured GEMM table" : "tile model only");
    ProfileOptions opt;
    opt.base = spec("h200-sxm");
    opt.gemm_table = table;
    auto made = make_profile(*fit, opt);
    ASSERT_TRUE(made.ok()) << made.error().message;
    // Through the file format, exactly as `ntpsim run` reads it.
    const std::string text = profile_text(*made, *fit, check_profile(*made, raw));
    auto node = load_yaml_string(text, "fitted.yaml");
    ASSERT_TRUE(node.ok()) << node.error().message;
    auto fitted = models::read_hardware(*node, "", YamlContext("fitted.yaml"), kProfileDirs);
    ASSERT_TRUE(fitted.ok()) << fitted.error().message;
    EXPECT_EQ(fitted->origin, "measured");
    EXPECT_EQ(fitted->name, "h200-sxm-measured");
    EXPECT_EQ(fitted->measured.points, fit->points);
    EXPECT_GT(fitted->measured.gemm_r2, 0.999);
    EXPECT_NE(fitted->measured.context.find("files="), std::string::npos);

    auto w = models::read_workload(YAML::Node("llama3-8b"), "workload", YamlContext("test"), kWorkloadDirs);
    ASSERT_TRUE(w.ok()) << w.error().message;
    models::Layout l;
    l.tp = 8;
    l.dp = 16;
    auto measured_model = models::make_step_model("analytic", *w, l, *fitted);
    auto true_model = models::make_step_model("analytic", *w, l, truth_profile(truth));
    ASSERT_TRUE(measured_model.ok() && true_model.ok());
    // Tile model: within 1%. The table interpolates shapes it did not measure (LM head): 5%.
    const double tol = table ? 0.05 : 0.01;
    for (const int tp : {8, 7}) {
      const double got = (*measured_model)->replica_iteration_s(tp, 1.0, 1.0);
      const double want = (*true_model)->replica_iteration_s(tp, 1.0, 1.0);
      EXPECT_NEAR(got / want, 1.0, tol) << "tp " << tp;
    }
    const double reshard = (*measured_model)->reshard_overhead_s(7);
    EXPECT_GT(reshard, 0.0);
    EXPECT_NEAR(reshard / (*true_model)->reshard_overhead_s(7), 1.0, 0.02);
  }
}

TEST(Pipeline, ProfileChecksAgreeWithTheMeasurements) {
  const auto raw = synthetic_campaign(SyntheticTruth{}, 24);
  auto fit = fit_raw(raw);
  ASSERT_TRUE(fit.ok());
  ProfileOptions opt;
  opt.base = spec("h200-sxm");
  auto made = make_profile(*fit, opt);
  ASSERT_TRUE(made.ok());
  for (const ModelCheck& c : check_profile(*made, raw)) {
    SCOPED_TRACE(c.name);
    EXPECT_GT(c.quality.points, 0);
    // all_to_all at n = 8 carries the reshard's parameters (profile.h), so it alone may differ.
    if (c.name == "scale_up.all_to_all") continue;
    EXPECT_LT(c.quality.max_abs_rel_error, 0.03);
  }
}

TEST(Pipeline, MeasuredPowerLimitsReplaceTheDatasheets) {
  const auto raw = synthetic_campaign(SyntheticTruth{}, 26);
  auto fit = fit_raw(raw);
  ASSERT_TRUE(fit.ok());
  FitResult f = *fit;
  for (RawContext& c : f.contexts) c.set("power_limit_default_w", "600");  // an H200 NVL, say
  ProfileOptions opt;
  opt.base = spec("h200-sxm");
  auto made = make_profile(f, opt);
  ASSERT_TRUE(made.ok()) << made.error().message;
  EXPECT_DOUBLE_EQ(made->tdp_w, 600);
  EXPECT_DOUBLE_EQ(made->max_power_w, 700);  // no maximum recorded: the base's stays
  f.contexts[0].set("power_limit_max_w", "650");
  made = make_profile(f, opt);
  ASSERT_TRUE(made.ok());
  EXPECT_DOUBLE_EQ(made->max_power_w, 650);
}

TEST(Pipeline, WithoutABaseOnlyMeasuredValuesAreWritten) {
  const auto raw = synthetic_campaign(SyntheticTruth{}, 25);
  auto fit = fit_raw(raw);
  ASSERT_TRUE(fit.ok());
  auto made = make_profile(*fit, ProfileOptions{});
  ASSERT_FALSE(made.ok());  // HBM size, bandwidth, scale-out: not in these files
  EXPECT_NE(made.error().message.find("pass --base PROFILE"), std::string::npos);
  // With the context a GPU run records and both fabrics measured, a profile stands alone.
  FitResult f = *fit;
  f.contexts[0].set("gpu_memory_bytes", "150323855360");
  f.contexts[0].set("memory_bw_measured_GBps", "4300");
  CollectiveFitResult out = f.collectives[0];
  out.fabric = "scale_out";
  f.collectives.push_back(out);
  auto alone = make_profile(f, ProfileOptions{});
  ASSERT_TRUE(alone.ok()) << alone.error().message;
  EXPECT_DOUBLE_EQ(alone->gemm_efficiency, 1.0);  // the sustained rate is the peak
  EXPECT_NEAR(alone->peak_bf16_flops / SyntheticTruth{}.bf16_rate_flops, 1.0, 0.01);
  EXPECT_EQ(alone->name, "measured-TEST-GPU");
  auto node = load_yaml_string(profile_text(*alone, f, {}), "alone.yaml");
  ASSERT_TRUE(node.ok());
  EXPECT_TRUE(models::read_hardware(*node, "", YamlContext("alone.yaml"), kProfileDirs).ok());
}

// Blackwell's fp8 recipe: with mxfp8 measured and no per-tensor fp8 (refused here, a skipped
// point), the profile's fp8 peak reproduces the mxfp8 rate at the bf16 fit's efficiency.
TEST(Pipeline, Mxfp8SetsTheFp8PeakWithoutPerTensorFp8) {
  SyntheticTruth truth;
  truth.fp8 = false;
  truth.mxfp8 = true;
  SyntheticBackend b(truth, 31);
  auto shapes = square_shapes(geometric(512, 16384, 2.0), GemmDType::kBF16);
  for (const auto& s : square_shapes(geometric(1024, 16384, 2.0), GemmDType::kMXFP8)) {
    shapes.push_back(s);
  }
  for (const auto& s : square_shapes({4096}, GemmDType::kFP8)) shapes.push_back(s);
  const RawData raw =
      measure(RawKind::kGemm, [&](RawWriter& w) { return run_gemms(b, shapes, w, {}); });
  ASSERT_EQ(raw.skipped.size(), 1u);
  EXPECT_EQ(raw.skipped[0].reason, "no fp8 on this synthetic GPU");
  auto fit = fit_raw({raw});
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  ASSERT_EQ(fit->gemm.size(), 2u);
  EXPECT_EQ(fit->gemm[1].dtype, GemmDType::kMXFP8);
  ProfileOptions opt;
  opt.base = spec("h200-sxm");
  auto made = make_profile(*fit, opt);
  ASSERT_TRUE(made.ok()) << made.error().message;
  EXPECT_NEAR(made->peak_bf16_flops * made->gemm_efficiency / truth.bf16_rate_flops, 1.0, 0.01);
  EXPECT_NEAR(made->peak_fp8_flops * made->gemm_efficiency / truth.fp8_rate_flops, 1.0, 0.01);
}

}  // namespace
}  // namespace ntpsim::calibrate
