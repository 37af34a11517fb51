// The measurement options of the calibration harness that can be checked without a GPU: the
// collective size unit, which GEMM types and layouts a GPU can run (and the refusal messages),
// the layout column and skipped-point lines of the raw format (old files still read), and the
// loops skipping points whose failure the backend reports recoverable while a sticky failure
// stops the run with every completed row kept.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "calibrate/driver.h"
#include "calibrate/fit.h"
#include "calibrate/raw_reader.h"
#include "calibrate/recorded_backend.h"
#include "calibrate/shapes.h"
#include "calibrate/synthetic.h"
#include "calibrate_test_util.h"

namespace ntpsim::calibrate {
namespace {

using test::scratch_path;

TEST(CollectiveSizes, MultiplesOfSixteenBytesPerRank) {
  // nccl-tests sizes buffers so that every rank's slice is a whole number of 16-byte units.
  for (const int g : {2, 3, 7, 8, 63, 72}) {
    SCOPED_TRACE(g);
    const auto sizes = collective_sizes(geometric(1 << 10, 1 << 30, 2.0), g);
    ASSERT_FALSE(sizes.empty());
    for (size_t i = 0; i < sizes.size(); ++i) {
      EXPECT_EQ(sizes[i] % (16 * g), 0);
      EXPECT_EQ(sizes[i] / g % 16, 0);  // each rank's slice
      if (i > 0) {
        EXPECT_GT(sizes[i], sizes[i - 1]);
      }
    }
  }
  // Rounded down; sizes that round to 0 or repeat the previous one are dropped.
  EXPECT_EQ(collective_sizes({100, 1000, 1007, 4096}, 7), (std::vector<int64_t>{896, 4032}));
  EXPECT_EQ(collective_sizes({1024, 4096}, 8), (std::vector<int64_t>{1024, 4096}));
  EXPECT_TRUE(collective_sizes({1000}, 72).empty());  // below 16 * 72 = 1152 bytes
}

TEST(CollectiveSizes, TheSweepMeasuresThem) {
  SyntheticTruth truth;
  SyntheticBackend b(truth, 5);
  CollectivePlan plan;
  plan.kinds = {CollectiveKind::kAllGather};
  plan.bytes = {1000, 65536, 1 << 20};
  plan.group_sizes = {7};
  const RawData raw = test::measure(RawKind::kCollective,
                                    [&](RawWriter& w) { return run_collectives(b, plan, w, {}); });
  std::vector<int64_t> bytes;
  for (const CollectiveRow& c : raw.collectives) bytes.push_back(c.request.bytes);
  EXPECT_EQ(bytes, collective_sizes(plan.bytes, 7));
  EXPECT_EQ(bytes, (std::vector<int64_t>{896, 65520, 1048544}));
}

GemmRequest shape(GemmDType d, GemmLayout l, int64_t m, int64_t n, int64_t k) {
  GemmRequest r;
  r.dtype = d;
  r.layout = l;
  r.m = m;
  r.n = n;
  r.k = k;
  return r;
}

TEST(GemmSupport, TypesAndLayoutsPerGpuAndToolkit) {
  constexpr int kLt = 130100;  // cuBLASLt 13.1
  const auto tn = GemmLayout::kTN;
  EXPECT_EQ(
      gemm_support(shape(GemmDType::kBF16, GemmLayout::kNN, 4779, 9558, 8191), 80, kLt, false), "");
  EXPECT_EQ(gemm_support(shape(GemmDType::kFP8, tn, 4096, 4096, 4096), 90, kLt, true), "");
  EXPECT_EQ(gemm_support(shape(GemmDType::kFP8, tn, 4096, 4096, 4096), 80, kLt, true),
            "fp8 needs compute capability 8.9 or newer, this GPU has 8.0");
  EXPECT_EQ(gemm_support(shape(GemmDType::kFP8, tn, 4096, 4100, 4096), 90, kLt, true),
            "fp8 needs m, n, k multiples of 16");
  EXPECT_EQ(gemm_support(shape(GemmDType::kFP8, GemmLayout::kNN, 4096, 4096, 4096), 90, kLt, true),
            "fp8 before compute capability 10.0 runs only the TN layout, not NN");
  EXPECT_EQ(gemm_support(shape(GemmDType::kFP8, GemmLayout::kNT, 4096, 4096, 4096), 100, kLt, true),
            "");
  // mxfp8: Blackwell, block-scaled cuBLASLt in the build and in the loaded library, k in blocks
  // of 32.
  const GemmRequest mx = shape(GemmDType::kMXFP8, tn, 8192, 8192, 8192);
  EXPECT_EQ(gemm_support(mx, 100, kLt, true), "");
  EXPECT_EQ(gemm_support(mx, 103, kLt, true), "");
  EXPECT_EQ(gemm_support(mx, 90, kLt, true),
            "mxfp8 (block-scaled fp8, one UE8M0 scale per 32 elements) needs compute capability "
            "10.0 or newer (Blackwell), this GPU has 9.0");
  EXPECT_NE(gemm_support(mx, 100, kLt, false).find("this ntpcal was built with an older toolkit"),
            std::string::npos);
  EXPECT_NE(gemm_support(mx, 100, 120400, true)
                .find("cuBLASLt 12.8 or newer, the loaded library is version 120400"),
            std::string::npos);
  EXPECT_EQ(gemm_support(shape(GemmDType::kMXFP8, tn, 8192, 8192, 8208), 100, kLt, true),
            "mxfp8 needs m and n multiples of 16 and k a multiple of 32 (the scale block)");
}

TEST(RawFormat, LayoutColumnAndMxfp8RoundTrip) {
  SyntheticTruth truth;
  truth.mxfp8 = true;
  SyntheticBackend b(truth, 7);
  std::vector<GemmRequest> shapes;
  for (const GemmLayout l : {GemmLayout::kTN, GemmLayout::kNN, GemmLayout::kNT}) {
    for (const auto& s : square_shapes({1024, 2048}, GemmDType::kBF16, l)) shapes.push_back(s);
  }
  for (const auto& s : square_shapes({1024}, GemmDType::kMXFP8)) shapes.push_back(s);
  const RawData raw =
      test::measure(RawKind::kGemm, [&](RawWriter& w) { return run_gemms(b, shapes, w, {}); });
  ASSERT_EQ(raw.gemm.size(), shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    EXPECT_EQ(raw.gemm[i].request.layout, shapes[i].layout);
    EXPECT_EQ(raw.gemm[i].request.dtype, shapes[i].dtype);
  }
  EXPECT_TRUE(raw.skipped.empty());
  // Replay keeps the layouts apart: the same m, n, k in another layout is another measurement.
  RecordedBackend replay({raw});
  auto nn = replay.gemm(shapes[2]);
  ASSERT_TRUE(nn.ok()) << nn.error().message;
  EXPECT_DOUBLE_EQ(nn->time.median_s, raw.gemm[2].time.median_s);
  GemmRequest missing = shapes[6];
  missing.layout = GemmLayout::kNN;  // mxfp8 was measured TN only
  auto miss = replay.gemm(missing);
  ASSERT_FALSE(miss.ok());
  EXPECT_NE(miss.error().message.find("gemm mxfp8 NN 1024x1024x1024"), std::string::npos);
}

TEST(RawFormat, FilesWithoutTheLayoutColumnAreTN) {
  const std::string old =
      "# format: ntpcal-raw/1\n# kind: gemm\n"
      "dtype,m,n,k,label,power_limit_w,reps,time_median_s,time_p10_s,time_p90_s,time_min_s,"
      "time_max_s,tflops,power_samples,power_mean_w,power_max_w,sm_clock_mean_mhz\n"
      "bf16,1024,1024,1024,sq,,5,1e-3,1e-3,1e-3,1e-3,1e-3,2.14748365,0,,,\n";
  auto r = parse_raw(old, "old.csv");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->gemm.at(0).request.layout, GemmLayout::kTN);
  const std::string bad =
      "# format: ntpcal-raw/1\n# kind: gemm\n"
      "dtype,m,n,k,label,power_limit_w,reps,time_median_s,time_p10_s,time_p90_s,time_min_s,"
      "time_max_s,tflops,power_samples,power_mean_w,power_max_w,sm_clock_mean_mhz,layout\n"
      "bf16,1024,1024,1024,sq,,5,1e-3,1e-3,1e-3,1e-3,1e-3,2.14748365,0,,,,TT\n";
  auto e = parse_raw(bad, "raw.csv");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find(
                "raw.csv:4:68: column 'layout': 'TT' is not a GEMM layout (TN, NN, NT)"),
            std::string::npos)
      << e.error().message;
}

TEST(RawFormat, SkippedPointLinesAfterTheColumns) {
  const std::string text = std::string(
      "# format: ntpcal-raw/1\n# kind: collective\n"
      "collective,fabric,group_size,bytes,reps,time_median_s,time_p10_s,time_p90_s,time_min_s,"
      "time_max_s,algbw_GBps,busbw_GBps\n"
      "# skipped: all_reduce n=8 bytes=1073741824: cudaMalloc of 1073741824 bytes failed: out of "
      "memory\n"
      "all_reduce,scale_up,8,1024,5,1e-5,1e-5,1e-5,1e-5,1e-5,0.1024,0.1792\n");
  auto r = parse_raw(text, "raw.csv");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->skipped.size(), 1u);
  EXPECT_EQ(r->skipped[0].line, 4);
  EXPECT_EQ(r->skipped[0].what, "all_reduce n=8 bytes=1073741824");
  EXPECT_EQ(r->skipped[0].reason, "cudaMalloc of 1073741824 bytes failed: out of memory");
  EXPECT_EQ(r->collectives.size(), 1u);
  // Any other comment after the columns is still an error.
  auto e = parse_raw(text + "# gpu: late\n", "raw.csv");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("raw.csv:6:1: context line after the column header"),
            std::string::npos);
}

// The synthetic GPU, failing chosen points the way a GPU backend reports them.
class FlakyBackend final : public Backend {
 public:
  FlakyBackend() : inner_(SyntheticTruth{}, 3) {}
  std::set<int64_t> oom_m, sticky_m;          // GEMMs with this m fail
  std::set<int64_t> oom_bytes, sticky_bytes;  // collectives of these sizes fail

  std::string name() const override { return "flaky"; }
  int max_group_size() const override { return inner_.max_group_size(); }
  std::string gemm_unsupported(const GemmRequest& r) const override {
    return inner_.gemm_unsupported(r);
  }
  double power_limit_w() const override { return inner_.power_limit_w(); }
  bool failure_recoverable() const override { return recoverable_; }
  Result<GemmMeasurement> gemm(const GemmRequest& r) override {
    return fail_or(oom_m.count(r.m) != 0, sticky_m.count(r.m) != 0, [&] { return inner_.gemm(r); });
  }
  Result<CollectiveMeasurement> collective(const CollectiveRequest& r) override {
    return fail_or(oom_bytes.count(r.bytes) != 0, sticky_bytes.count(r.bytes) != 0,
                   [&] { return inner_.collective(r); });
  }
  Result<ReshardMeasurement> reshard(const ReshardRequest& r) override { return inner_.reshard(r); }
  Result<double> set_power_limit_w(double w) override { return inner_.set_power_limit_w(w); }

 private:
  template <typename F>
  auto fail_or(bool oom, bool sticky, F&& measure) -> decltype(measure()) {
    recoverable_ = oom;
    if (oom) return Error::runtime("cudaMalloc of 1073741824 bytes failed: out of memory");
    if (sticky)
      return Error::runtime("cublasLtMatmul failed: an illegal memory access was encountered");
    return measure();
  }
  SyntheticBackend inner_;
  bool recoverable_ = false;
};

// The synthetic GPU held below its power limit by another cap (as NVML's enforced limit shows
// when a rack or board cap is lower than the limit set).
class CappedBackend final : public Backend {
 public:
  explicit CappedBackend(double cap_w) : inner_(SyntheticTruth{}, 4), cap_w_(cap_w) {}
  std::vector<double> set_calls;

  std::string name() const override { return "capped"; }
  int max_group_size() const override { return inner_.max_group_size(); }
  std::string gemm_unsupported(const GemmRequest& r) const override {
    return inner_.gemm_unsupported(r);
  }
  double power_limit_w() const override { return inner_.power_limit_w(); }
  double enforced_power_limit_w() const override {
    return std::min(cap_w_, inner_.power_limit_w());
  }
  Result<GemmMeasurement> gemm(const GemmRequest& r) override { return inner_.gemm(r); }
  Result<CollectiveMeasurement> collective(const CollectiveRequest& r) override {
    return inner_.collective(r);
  }
  Result<ReshardMeasurement> reshard(const ReshardRequest& r) override { return inner_.reshard(r); }
  Result<double> set_power_limit_w(double w) override {
    set_calls.push_back(w);
    return inner_.set_power_limit_w(w);
  }

 private:
  SyntheticBackend inner_;
  double cap_w_;
};

TEST(PowerLimits, RowsCarryTheEnforcedLimitAndTheSweepRestoresTheSetOne) {
  const SyntheticTruth truth;
  CappedBackend b(600.0);
  const auto shapes = square_shapes({1024, 4096}, GemmDType::kBF16);
  const RawData plain =
      test::measure(RawKind::kGemm, [&](RawWriter& w) { return run_gemms(b, shapes, w, {}); });
  ASSERT_EQ(plain.gemm.size(), 2u);
  EXPECT_DOUBLE_EQ(plain.gemm[0].power_limit_w, 600.0);  // the cap, not the TDP limit
  const RawData sweep = test::measure(
      RawKind::kPower,
      [&](RawWriter& w) {
        return run_power(b, shapes, {500, 650}, w, {});
      },
      true, "sweep.csv");
  ASSERT_EQ(sweep.gemm.size(), 4u);
  EXPECT_DOUBLE_EQ(sweep.gemm[0].power_limit_w, 500.0);  // below the cap: the limit set
  EXPECT_DOUBLE_EQ(sweep.gemm[2].power_limit_w, 600.0);  // 650 set, 600 enforced
  // Restored to the limit that was set before the sweep, not to the cap.
  ASSERT_EQ(b.set_calls.size(), 3u);
  EXPECT_DOUBLE_EQ(b.set_calls.back(), truth.tdp_w);
  EXPECT_DOUBLE_EQ(b.power_limit_w(), truth.tdp_w);
}

TEST(SkipOnFailure, RecoverableFailuresAreRecordedAndTheRunGoesOn) {
  FlakyBackend b;
  b.oom_m = {2048};
  std::vector<GemmRequest> shapes = square_shapes({1024, 2048, 4096}, GemmDType::kBF16);
  shapes.push_back(shape(GemmDType::kMXFP8, GemmLayout::kTN, 1024, 1024, 1024));  // refused
  std::vector<std::string> lines;
  const RawData raw = test::measure(RawKind::kGemm, [&](RawWriter& w) {
    return run_gemms(b, shapes, w, [&](const std::string& l) { lines.push_back(l); });
  });
  ASSERT_EQ(raw.gemm.size(), 2u);
  EXPECT_EQ(raw.gemm[0].request.m, 1024);
  EXPECT_EQ(raw.gemm[1].request.m, 4096);
  ASSERT_EQ(raw.skipped.size(), 2u);
  EXPECT_EQ(raw.skipped[0].what, "bf16 TN 2048x2048x2048");
  EXPECT_EQ(raw.skipped[0].reason, "cudaMalloc of 1073741824 bytes failed: out of memory");
  EXPECT_EQ(raw.skipped[1].what, "mxfp8 TN 1024x1024x1024");
  EXPECT_EQ(raw.skipped[1].reason, "no mxfp8 on this synthetic GPU");
  EXPECT_NE(lines.at(1).find("gemm 2/4 bf16 TN 2048x2048x2048: skipped (cudaMalloc"),
            std::string::npos);

  FlakyBackend c;
  c.oom_bytes = {4096};
  CollectivePlan plan;
  plan.kinds = {CollectiveKind::kAllReduce};
  plan.bytes = {1024, 4096, 16384};
  plan.group_sizes = {8};
  const RawData coll = test::measure(RawKind::kCollective,
                                     [&](RawWriter& w) { return run_collectives(c, plan, w, {}); });
  EXPECT_EQ(coll.collectives.size(), 2u);
  ASSERT_EQ(coll.skipped.size(), 1u);
  EXPECT_EQ(coll.skipped[0].what, "all_reduce n=8 bytes=4096");
}

// The fit names the skipped points (file:line, what, why), so a shape that failed is not taken
// for one that was never asked for.
TEST(SkipOnFailure, TheFitNamesSkippedPoints) {
  FlakyBackend b;
  b.oom_m = {2048};
  const auto shapes = square_shapes(geometric(256, 16384, 2.0), GemmDType::kBF16);
  const RawData raw =
      test::measure(RawKind::kGemm, [&](RawWriter& w) { return run_gemms(b, shapes, w, {}); });
  ASSERT_EQ(raw.skipped.size(), 1u);
  auto fit = fit_raw({raw});
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  EXPECT_EQ(fit->gemm.at(0).quality.points, static_cast<int>(shapes.size()) - 1);
  ASSERT_EQ(fit->skipped.size(), 1u);
  EXPECT_EQ(fit->skipped[0], raw.file + ":" + std::to_string(raw.skipped[0].line) +
                                 " bf16 TN 2048x2048x2048: cudaMalloc of 1073741824 bytes "
                                 "failed: out of memory");
  EXPECT_NE(
      describe(*fit).find("note: 1 point(s) were not measured (the runs skipped them):\n    " +
                          fit->skipped[0] + "\n"),
      std::string::npos);
}

TEST(SkipOnFailure, AStickyFailureStopsTheRunKeepingCompletedRows) {
  FlakyBackend b;
  b.oom_m = {1024};
  b.sticky_m = {4096};
  const auto shapes = square_shapes({1024, 2048, 4096, 8192}, GemmDType::kBF16);
  const std::string path = scratch_path("gemm.csv");
  {
    auto w = RawWriter::open(path, RawKind::kGemm, test::test_context());
    ASSERT_TRUE(w.ok());
    const Status s = run_gemms(b, shapes, *w, {});
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().exit_code, ExitCode::kRuntime);
    EXPECT_NE(s.error().message.find(
                  "gemm bf16 TN 4096x4096x4096: cublasLtMatmul failed: an illegal memory access"),
              std::string::npos)
        << s.error().message;
    EXPECT_EQ(w->rows(), 1);  // skipped lines are not rows
  }
  auto back = read_raw_file(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->gemm.size(), 1u);
  EXPECT_EQ(back->gemm[0].request.m, 2048);
  ASSERT_EQ(back->skipped.size(), 1u);
  EXPECT_EQ(back->skipped[0].what, "bf16 TN 1024x1024x1024");
}

}  // namespace
}  // namespace ntpsim::calibrate
