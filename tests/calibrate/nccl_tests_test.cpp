// The nccl-tests log importer (calibrate/nccl_tests_log.h): the shipped synthetic logs of the five
// collectives (one node and two nodes), the fit they give, provenance, and malformed logs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "calibrate/fit.h"
#include "calibrate/nccl_tests_log.h"
#include "calibrate/profile.h"
#include "calibrate_test_util.h"
#include "models/base/yaml_reader.h"
#include "models/hardware.h"

namespace ntpsim::calibrate {
namespace {

const std::string kDir = std::string(NTPSIM_SOURCE_DIR) + "/calibrate/recorded/nccl-tests/";

RawData read_log(const std::string& file, const NcclTestsOptions& opt = {}) {
  auto d = read_measurement_file(kDir + file, opt);
  EXPECT_TRUE(d.ok()) << d.error().message;
  return d.ok() ? *d : RawData{};
}

// A small well-formed all_reduce log over two GPUs of one host, with `rows` appended.
std::string small_log(const std::string& rows, const std::string& extra_header = "") {
  return "# nccl-tests version 2.13.11 nccl-headers=22803 nccl-library=22803\n"
         "# Collective test starting: all_reduce_perf\n" +
         extra_header +
         "# nThread 1 nGpus 2 minBytes 1024 maxBytes 4096 step: 4(factor) warmup iters: 5 iters: "
         "20\n"
         "# Using devices\n"
         "#  Rank  0 Group  0 Pid  1 on host1 device  0 [0x19] NVIDIA H200\n"
         "#  Rank  1 Group  0 Pid  1 on host1 device  1 [0x29] NVIDIA H200\n"
         "#\n"
         "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
         "time   algbw   busbw #wrong\n" +
         rows;
}

TEST(NcclTestsLog, ReadsEachShippedLog) {
  struct Want {
    const char* file;
    CollectiveKind kind;
    int ranks;
    const char* fabric;
  };
  const std::vector<Want> wants = {
      {"all_reduce_perf-h200x8.log", CollectiveKind::kAllReduce, 8, "scale_up"},
      {"all_gather_perf-h200x8.log", CollectiveKind::kAllGather, 8, "scale_up"},
      {"sendrecv_perf-h200x8.log", CollectiveKind::kSendRecv, 8, "scale_up"},  // older layout
      {"all_reduce_perf-h200-2nodes.log", CollectiveKind::kAllReduce, 16, "scale_out"},
      {"reduce_scatter_perf-h200-2nodes.log", CollectiveKind::kReduceScatter, 16, "scale_out"},
      {"alltoall_perf-h200-2nodes.log", CollectiveKind::kAllToAll, 16, "scale_out"},
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(w.file);
    const RawData d = read_log(w.file);
    EXPECT_EQ(d.kind, RawKind::kCollective);
    ASSERT_EQ(d.collectives.size(), 11u);  // 1 KiB .. 1 GiB in x4 steps
    for (const CollectiveRow& r : d.collectives) {
      EXPECT_EQ(r.request.kind, w.kind);
      EXPECT_EQ(r.request.group_size, w.ranks);
      EXPECT_EQ(r.fabric, w.fabric);
      EXPECT_EQ(r.request.reps, 20);
    }
    EXPECT_EQ(d.collectives.front().request.bytes, 1024);
    EXPECT_EQ(d.collectives.back().request.bytes, int64_t{1} << 30);
    EXPECT_EQ(data_origin(d), "synthetic");
    EXPECT_EQ(d.context.get("gpu"), "NVIDIA H200");
  }
  // Two NVL72 trays are one NVLink domain: the fabric is given.
  NcclTestsOptions nvl;
  nvl.fabric = "scale_up";
  const RawData d = read_log("all_reduce_perf-gb200-nvl-2trays.log", nvl);
  EXPECT_EQ(d.context.get("nodes"), "2");
  EXPECT_EQ(d.collectives.front().fabric, "scale_up");
  EXPECT_EQ(d.collectives.front().request.group_size, 8);
}

// A UTF-8 byte order mark before the first line changes nothing.
TEST(NcclTestsLog, ByteOrderMarkIsIgnored) {
  const std::string rows =
      "     1048576        262144     float     sum      -1   100.00   10.49   10.49      0    "
      "50.00   20.97   20.97      0\n";
  const std::string log = "\xEF\xBB\xBF" + small_log(rows);
  EXPECT_TRUE(looks_like_nccl_tests(log));
  auto with = parse_nccl_tests(log, "x.log");
  auto without = parse_nccl_tests(small_log(rows), "x.log");
  ASSERT_TRUE(with.ok()) << with.error().message;
  ASSERT_TRUE(without.ok()) << without.error().message;
  ASSERT_EQ(with->collectives.size(), without->collectives.size());
  EXPECT_DOUBLE_EQ(with->collectives[0].time.median_s, without->collectives[0].time.median_s);
}

TEST(NcclTestsLog, InPlaceColumnsAreSelectable) {
  const std::string rows =
      "        4096          1024     float     sum      -1    20.00    0.20    0.20      0    "
      "10.00    0.41    0.41      0\n"
      "     1048576        262144     float     sum      -1   100.00   10.49   10.49      0    "
      "50.00   20.97   20.97      0\n";
  auto out = parse_nccl_tests(small_log(rows), "x.log");
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_DOUBLE_EQ(out->collectives[0].time.median_s, 20e-6);
  NcclTestsOptions in;
  in.in_place = true;
  auto inp = parse_nccl_tests(small_log(rows), "x.log", in);
  ASSERT_TRUE(inp.ok()) << inp.error().message;
  EXPECT_DOUBLE_EQ(inp->collectives[0].time.median_s, 10e-6);
  EXPECT_EQ(data_origin(*inp), "measured");  // no synthetic line: a real log
}

TEST(NcclTestsLog, FitRecoversTheParametersTheLogsWereWrittenWith) {
  std::vector<RawData> files;
  for (const char* f : {"all_reduce_perf-h200x8.log", "all_gather_perf-h200x8.log",
                        "sendrecv_perf-h200x8.log", "all_reduce_perf-h200-2nodes.log",
                        "reduce_scatter_perf-h200-2nodes.log", "alltoall_perf-h200-2nodes.log"}) {
    files.push_back(read_log(f));
  }
  auto fit = fit_raw(files);
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  // (fabric, kind) -> bus bandwidth GB/s and alpha us per step the logs were generated with
  // (calibrate/recorded/nccl-tests/*: first line); the jitter is ±1.1%.
  struct Truth {
    const char* fabric;
    CollectiveKind kind;
    double bw_GBps, alpha_us;
  };
  const std::vector<Truth> truths = {{"scale_up", CollectiveKind::kAllReduce, 360, 3.0},
                                     {"scale_up", CollectiveKind::kAllGather, 340, 2.5},
                                     {"scale_up", CollectiveKind::kSendRecv, 300, 6.0},
                                     {"scale_out", CollectiveKind::kAllReduce, 45, 5.0},
                                     {"scale_out", CollectiveKind::kReduceScatter, 44, 4.5},
                                     {"scale_out", CollectiveKind::kAllToAll, 40, 6.5}};
  ASSERT_EQ(fit->collectives.size(), truths.size());
  for (const Truth& t : truths) {
    SCOPED_TRACE(std::string(t.fabric) + " " + to_string(t.kind));
    const CollectiveFitResult* c = nullptr;
    for (const auto& x : fit->collectives) {
      if (x.fabric == t.fabric && x.kind == t.kind) c = &x;
    }
    ASSERT_NE(c, nullptr);
    EXPECT_NEAR(c->bus_bw_Bps / 1e9 / t.bw_GBps, 1.0, 0.03);
    EXPECT_NEAR(c->alpha_s * 1e6 / t.alpha_us, 1.0, 0.05);
    EXPECT_LT(c->quality.max_abs_rel_error, 0.03);
  }
  EXPECT_EQ(fit->origin, "synthetic");

  // Into a profile on the H200 spec: synthetic, never measured, per part too.
  auto node = load_yaml_string("h200-sxm", "base");
  ASSERT_TRUE(node.ok());
  auto base = models::read_hardware(*node, "base", YamlContext("test"),
                                    {std::string(NTPSIM_SOURCE_DIR) + "/models/profiles"});
  ASSERT_TRUE(base.ok()) << base.error().message;
  ProfileOptions opt;
  opt.base = *base;
  auto h = make_profile(*fit, opt);
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->origin, "synthetic");
  EXPECT_EQ(h->name, "h200-sxm-synthetic");
  EXPECT_EQ(h->field_origins.at("scale_up"), "synthetic");
  EXPECT_EQ(h->field_origins.at("scale_out"), "synthetic");
  EXPECT_EQ(h->field_origins.at("gemm"), "spec");
  EXPECT_EQ(h->field_origins.at("other"), "spec");
  // The profile file round-trips its provenance.
  const std::string text = profile_text(*h, *fit, check_profile(*h, files));
  auto written = load_yaml_string(text, "p.yaml");
  ASSERT_TRUE(written.ok()) << written.error().message;
  auto back = models::read_hardware(*written, "", YamlContext("p.yaml"), {});
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->origin, "synthetic");
  EXPECT_EQ(back->field_origins, h->field_origins);
}

TEST(NcclTestsLog, SyntheticAndMeasuredTogetherAreMixed) {
  const std::string rows =
      "        4096          1024     float     sum      -1    20.00    0.20    0.20      0    "
      "20.00    0.20    0.20      0\n"
      "     1048576        262144     float     sum      -1   100.00   10.49   10.49      0    "
      "100.00   10.49   10.49      0\n";
  auto real = parse_nccl_tests(small_log(rows), "real.log");
  ASSERT_TRUE(real.ok()) << real.error().message;
  std::vector<RawData> files = {*real, read_log("alltoall_perf-h200-2nodes.log")};
  auto fit = fit_raw(files);
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  EXPECT_EQ(fit->origin, "mixed");
  EXPECT_EQ(fit->part_origins.at("scale_up"), "measured");
  EXPECT_EQ(fit->part_origins.at("scale_out"), "synthetic");
}

// Each malformed log is one error naming file:line:col.
TEST(NcclTestsLog, MalformedLogsNameFileLineAndColumn) {
  const std::string good =
      "        4096          1024     float     sum      -1    20.00    0.20    0.20      0    "
      "20.00    0.20    0.20      0\n";
  struct Case {
    std::string text;
    NcclTestsOptions opt;
    std::string want;
  };
  NcclTestsOptions four_ranks;
  four_ranks.ranks = 4;
  const std::vector<Case> cases = {
      {small_log(
           good +
           "        8192          2048     float     sum      -1    fast    0.20    0.20      0    "
           "20.00    0.20    0.20      0\n"),
       {},
       "bad.log:10:57: column 'time': 'fast' is not a positive time in us"},
      {small_log(good + "        8192          2048     float     sum      -1    20.00\n"),
       {},
       "bad.log:10:1: expected 13 fields as in the header at line 8, found 6"},
      {small_log("        4096          1024     float     sum      -1    20.00    0.20    0.20    "
                 "  3    "
                 "20.00    0.20    0.20      0\n"),
       {},
       "bad.log:9:84: column '#wrong': 3 wrong results"},
      {small_log(good), four_ranks,
       "bad.log:9:74: column 'busbw': busbw 0.20 GB/s is not algbw x 1.5"},
      {small_log("        4096          1024     float     sum      -1    20.00    9.00    9.00    "
                 "  0    "
                 "20.00    0.20    0.20      0\n"),
       {},
       "bad.log:9:66: column 'algbw': algbw 9.00 GB/s is not size / time"},
      {small_log(good + "#       size         count      type   redop    root     time   algbw   "
                        "busbw #wrong     "
                        "time   algbw   busbw #wrong\n"),
       {},
       "bad.log:10:1: a second nccl-tests table"},
      {small_log("# Out of bounds values : 0 OK\n"),
       {},
       "the nccl-tests table has no rows with size > 0"},
  };
  for (const Case& c : cases) {
    auto out = parse_nccl_tests(c.text, "bad.log", c.opt);
    ASSERT_FALSE(out.ok()) << c.want;
    EXPECT_EQ(out.error().exit_code, ExitCode::kBadInput);
    EXPECT_NE(out.error().message.find(c.want), std::string::npos) << out.error().message;
  }
  // Which collective: neither the log nor the file name says.
  std::string anonymous = small_log(good);
  anonymous.erase(anonymous.find("# Collective test starting"),
                  std::string("# Collective test starting: all_reduce_perf\n").size());
  auto unnamed = parse_nccl_tests(anonymous, "run7.log");
  ASSERT_FALSE(unnamed.ok());
  EXPECT_NE(unnamed.error().message.find("--nccl-collective"), std::string::npos);
  NcclTestsOptions named;
  named.collective = "all_reduce";
  EXPECT_TRUE(parse_nccl_tests(anonymous, "run7.log", named).ok());
  EXPECT_TRUE(parse_nccl_tests(anonymous, "logs/all_reduce_perf.run7.log").ok());
  // A single rank measures no collective.
  NcclTestsOptions one;
  std::string single = small_log(good);
  single.erase(single.find("#  Rank  1"), single.find("#\n#  ") - single.find("#  Rank  1"));
  auto s = parse_nccl_tests(single, "one.log");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("at least 2"), std::string::npos) << s.error().message;
}

TEST(NcclTestsLog, DetectsRawFilesAndLogs) {
  EXPECT_TRUE(looks_like_nccl_tests(small_log("")));
  EXPECT_FALSE(looks_like_nccl_tests("# format: ntpcal-raw/1\n# kind: gemm\n"));
  EXPECT_FALSE(looks_like_nccl_tests("dtype,m,n,k\n"));
  auto raw = read_measurement_file(std::string(NTPSIM_SOURCE_DIR) +
                                   "/calibrate/recorded/synthetic-collectives.csv");
  ASSERT_TRUE(raw.ok()) << raw.error().message;
  EXPECT_EQ(raw->kind, RawKind::kCollective);
  EXPECT_EQ(data_origin(*raw), "synthetic");
}

}  // namespace
}  // namespace ntpsim::calibrate
