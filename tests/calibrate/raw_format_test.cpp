// The raw measurement format (calibrate/raw_csv.h, raw_reader.h), the shapes and the statistics:
// round trips, and malformed files giving file:line:col errors that name the column.
#include <gtest/gtest.h>

#include <string>

#include "calibrate/backend.h"
#include "calibrate/raw_reader.h"
#include "calibrate/shapes.h"
#include "calibrate_test_util.h"
#include "models/base/yaml_reader.h"
#include "models/workload.h"

namespace ntpsim::calibrate {
namespace {

const char* kHeader =
    "# format: ntpcal-raw/1\n"
    "# kind: collective\n"
    "# gpu: TEST\n"
    "collective,fabric,group_size,bytes,reps,time_median_s,time_p10_s,time_p90_s,time_min_s,"
    "time_max_s,algbw_GBps,busbw_GBps\n";

std::string error_of(const std::string& text) {
  auto r = parse_raw(text, "raw.csv");
  EXPECT_FALSE(r.ok()) << "expected an error for:\n" << text;
  return r.ok() ? std::string() : r.error().message;
}

TEST(RawFormat, ParsesCollectiveRows) {
  const std::string text = std::string(kHeader) +
      "all_reduce,scale_up,7,1048576,20,1e-5,0.9e-5,1.1e-5,0.8e-5,1.2e-5,104.8,179.7\n";
  auto r = parse_raw(text, "raw.csv");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->kind, RawKind::kCollective);
  EXPECT_EQ(r->context.get("gpu"), "TEST");
  ASSERT_EQ(r->collectives.size(), 1u);
  const CollectiveRow& c = r->collectives[0];
  EXPECT_EQ(c.line, 5);
  EXPECT_EQ(c.request.kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(c.request.group_size, 7);
  EXPECT_EQ(c.request.bytes, 1048576);
  EXPECT_DOUBLE_EQ(c.time.median_s, 1e-5);
  EXPECT_EQ(c.fabric, "scale_up");
}

// A UTF-8 byte order mark (editors on Windows write one) does not hide the format line.
TEST(RawFormat, ByteOrderMarkIsNotPartOfTheFirstLine) {
  const std::string row =
      "all_reduce,scale_up,7,1048576,20,1e-5,0.9e-5,1.1e-5,0.8e-5,1.2e-5,104.8,179.7\n";
  auto r = parse_raw("\xEF\xBB\xBF" + std::string(kHeader) + row, "raw.csv");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->collectives.size(), 1u);
}

TEST(RawFormat, ColumnsMayComeInAnyOrder) {
  const std::string text =
      "# format: ntpcal-raw/1\n# kind: reshard\n"
      "tp,k,fabric,bytes_per_rank,busiest_bytes,reps,time_median_s,time_p10_s,time_p90_s,time_min_s,time_max_s\n"
      "8,2,scale_up,1000,1000,3,1e-4,1e-4,1e-4,1e-4,1e-4\n";
  auto r = parse_raw(text, "raw.csv");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->reshards.size(), 1u);
  EXPECT_EQ(r->reshards[0].request.tp, 8);
  EXPECT_EQ(r->reshards[0].request.k, 2);
}

TEST(RawFormat, MalformedFilesNameFileLineAndColumn) {
  const std::string row = "all_reduce,scale_up,8,4096,20,1e-5,1e-5,1e-5,1e-5,1e-5,1,1\n";
  EXPECT_NE(error_of("dtype,m\n1,2\n").find("raw.csv:1:1: missing '# format: ntpcal-raw/1'"), std::string::npos);
  EXPECT_NE(error_of("# format: ntpcal-raw/9\n").find("raw.csv:1:3: unsupported format 'ntpcal-raw/9'"), std::string::npos);
  EXPECT_NE(error_of("# format: ntpcal-raw/1\n# kind: gemmm\n").find("raw.csv:2:3: unknown kind 'gemmm'"), std::string::npos);
  EXPECT_NE(error_of("# format: ntpcal-raw/1\n# kind: gemm\n").find("no column header"), std::string::npos);
  EXPECT_NE(error_of("# format: ntpcal-raw/1\n# kind: reshard\ntp,k\n").find("raw.csv:3:1: missing column 'fabric'"), std::string::npos);
  // An unknown column, with the nearest valid name.
  std::string typo = kHeader;
  typo.replace(typo.find("busbw_GBps"), 10, "busbw_GBs");
  EXPECT_NE(error_of(typo).find("unknown column 'busbw_GBs' for kind collective (did you mean 'busbw_GBps'?)"), std::string::npos);
  // Field count, numbers, ranges and names.
  EXPECT_NE(error_of(std::string(kHeader) + "all_reduce,scale_up,8\n").find("raw.csv:5:1: expected 12 fields, found 3"), std::string::npos);
  std::string bad = row;
  bad.replace(bad.find("4096"), 4, "4k96");
  EXPECT_NE(error_of(std::string(kHeader) + bad).find("raw.csv:5:23: column 'bytes': '4k96' is not a whole number"), std::string::npos);
  bad = row;
  bad.replace(bad.find("1e-5"), 4, "-1e-5");
  EXPECT_NE(error_of(std::string(kHeader) + bad).find("raw.csv:5:31: column 'time_median_s': -1e-5 is outside"), std::string::npos);
  bad = row;
  bad.replace(0, 10, "allreduce");
  EXPECT_NE(error_of(std::string(kHeader) + bad).find("raw.csv:5:1: column 'collective': 'allreduce' is not a collective"), std::string::npos);
  bad = row;
  bad.replace(bad.find(",8,"), 3, ",1,");
  EXPECT_NE(error_of(std::string(kHeader) + bad).find("column 'group_size': 1 is outside [2,"), std::string::npos);
  bad = "all_reduce,scale_up,8,4096,20,1e-5,1e-5,1e-5,2e-5,3e-5,1,1\n";
  EXPECT_NE(error_of(std::string(kHeader) + bad).find("median is not between"), std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row + "# late: context\n").find("raw.csv:6:1: context line after the column header"), std::string::npos);
}

TEST(RawFormat, ReshardAndGemmRowChecks) {
  const std::string reshard =
      "# format: ntpcal-raw/1\n# kind: reshard\n"
      "fabric,tp,k,bytes_per_rank,busiest_bytes,reps,time_median_s,time_p10_s,time_p90_s,time_min_s,time_max_s\n"
      "scale_up,8,8,1000,1000,3,1e-4,1e-4,1e-4,1e-4,1e-4\n";
  EXPECT_NE(error_of(reshard).find("raw.csv:4:12: column 'k': 8 is outside [1, 7]"), std::string::npos);
  const std::string gemm =
      "# format: ntpcal-raw/1\n# kind: gemm\n"
      "dtype,m,n,k,label,power_limit_w,reps,time_median_s,time_p10_s,time_p90_s,time_min_s,"
      "time_max_s,tflops,power_samples,power_mean_w,power_max_w,sm_clock_mean_mhz\n";
  // 2*1024^3 / 1e-3 s = 2.147 TFLOP/s; a hand-edited tflops is caught.
  EXPECT_TRUE(parse_raw(gemm + "bf16,1024,1024,1024,sq,,5,1e-3,1e-3,1e-3,1e-3,1e-3,2.14748365,0,,,\n", "raw.csv").ok());
  EXPECT_NE(error_of(gemm + "bf16,1024,1024,1024,sq,,5,1e-3,1e-3,1e-3,1e-3,1e-3,3.0,0,,,\n").find("column 'tflops': 3.0 does not match"), std::string::npos);
  EXPECT_NE(error_of(gemm + "fp16,1024,1024,1024,sq,,5,1e-3,1e-3,1e-3,1e-3,1e-3,2.1,0,,,\n").find("'fp16' is not a GEMM type"), std::string::npos);
  EXPECT_NE(error_of(gemm + "bf16,1024,1024,1024,sq,,5,1e-3,1e-3,1e-3,1e-3,1e-3,2.14748365,4,,,\n").find("column 'power_mean_w': is empty"), std::string::npos);
}

TEST(RawFormat, MissingFileIsBadInput) {
  auto r = read_raw_file("/nonexistent/raw.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(r.error().message.find("/nonexistent/raw.csv: cannot open"), std::string::npos);
}

TEST(Stats, SummarizeMedianAndPercentiles) {
  const TimeStats s = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(s.reps, 5);
  EXPECT_DOUBLE_EQ(s.median_s, 3);
  EXPECT_DOUBLE_EQ(s.min_s, 1);
  EXPECT_DOUBLE_EQ(s.max_s, 5);
  EXPECT_DOUBLE_EQ(s.mean_s, 3);
  EXPECT_DOUBLE_EQ(s.p10_s, 1.4);  // position 0.4 between 1 and 2
  EXPECT_DOUBLE_EQ(s.p90_s, 4.6);
  EXPECT_DOUBLE_EQ(summarize({2, 4}).median_s, 3);
}

TEST(Stats, NcclTestsFactors) {
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::kAllGather, 71), 70.0 / 71);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::kAllToAll, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::kSendRecv, 72), 1.0);
  EXPECT_EQ(latency_steps(CollectiveKind::kAllReduce, 72), 142);
  EXPECT_EQ(latency_steps(CollectiveKind::kReduceScatter, 70), 69);
  EXPECT_EQ(latency_steps(CollectiveKind::kSendRecv, 8), 1);
}

TEST(Shapes, LayerShapesUseTheBusiestGpusShards) {
  // Llama-3-70B-like: h 8192, 64 heads (d 128), 8 KV heads, FFN 28672, seq 8192.
  const LayerDims d{8192, 64, 8, 28672, true, 8192, 1};
  const auto fwd = layer_shapes(d, {7}, GemmDType::kBF16, false);
  ASSERT_EQ(fwd.size(), 4u);
  // QKV at t=7: ceil(64/7)=10 query heads, ceil(8/7)=2 KV heads -> (10 + 2*2) * 128 columns.
  EXPECT_EQ(fwd[0].m, 8192);
  EXPECT_EQ(fwd[0].n, 14 * 128);
  EXPECT_EQ(fwd[0].k, 8192);
  EXPECT_EQ(fwd[1].k, 10 * 128);            // attention output: K = local heads * d
  EXPECT_EQ(fwd[2].n, 2 * 4096);            // gated up: 2 * ceil(28672/7)
  EXPECT_EQ(fwd[3].k, 4096);                // down: K = ceil(28672/7)
  // bf16 passes run in their own layouts (TE: forward TN, dgrad NN, wgrad NT), so the same
  // (m, n, k) in two passes is two measurements.
  const auto all = layer_shapes(d, {8, 7}, GemmDType::kBF16, true);
  ASSERT_EQ(all.size(), 24u);
  for (const auto& r : all) {
    SCOPED_TRACE(r.label);
    EXPECT_EQ(r.label.find('|'), std::string::npos);
    const GemmLayout want = r.label.find(".dgrad") != std::string::npos   ? GemmLayout::kNN
                            : r.label.find(".wgrad") != std::string::npos ? GemmLayout::kNT
                                                                          : GemmLayout::kTN;
    EXPECT_EQ(r.layout, want);
  }
  // fp8 runs every pass as TN: identical shapes are merged, their labels joined.
  const auto fp8 = layer_shapes(d, {8, 7}, GemmDType::kFP8, true);
  EXPECT_LT(fp8.size(), 24u);
  bool merged = false;
  for (const auto& r : fp8) {
    merged = merged || r.label.find('|') != std::string::npos;
    EXPECT_EQ(r.layout, GemmLayout::kTN);
  }
  EXPECT_TRUE(merged);
  EXPECT_EQ(pass_layout(GemmDType::kMXFP8, Pass::kWeightGrad), GemmLayout::kTN);
  EXPECT_EQ(pass_layout(GemmDType::kBF16, Pass::kWeightGrad), GemmLayout::kNT);
}

TEST(Shapes, LmHeadIsVocabularyParallel) {
  const LayerDims d{4096, 32, 8, 14336, true, 8192, 1, 128256};
  const auto s = layer_shapes(d, {7}, GemmDType::kBF16, false);
  ASSERT_EQ(s.size(), 5u);
  // The LM head's rows: the vocabulary padded to a multiple of 128 * t (Megatron-LM), split t
  // ways: 128256 -> 129024 at t = 7, 18432 rows (not the unpadded ceil(128256 / 7) = 18323).
  EXPECT_EQ(s[4].n, 18432);
  EXPECT_EQ(padded_vocab(128256, 8), 129024);
  EXPECT_EQ(padded_vocab(128000, 8), 128000);
  EXPECT_EQ(s[4].k, 4096);
  EXPECT_EQ(s[4].label, "lm_head.fwd tp=7");
}

TEST(Shapes, FlatWorkloadFilesMatchTheYamlReader) {
  for (const char* name : {"llama3-8b", "llama3-70b", "llama3-405b", "gpt3-175b", "megatron-1t", "ntp-480b"}) {
    SCOPED_TRACE(name);
    const std::string path = std::string(NTPSIM_SOURCE_DIR) + "/models/workloads/" + name + ".yaml";
    auto flat = parse_flat_workload(test::read_text(path), path);
    ASSERT_TRUE(flat.ok()) << flat.error().message;
    auto node = load_yaml_file(path);
    ASSERT_TRUE(node.ok());
    auto w = models::read_workload(*node, "", YamlContext(path), {});
    ASSERT_TRUE(w.ok()) << w.error().message;
    EXPECT_EQ(flat->hidden, w->hidden);
    EXPECT_EQ(flat->heads, w->heads);
    EXPECT_EQ(flat->kv_heads, w->kv_heads);
    EXPECT_EQ(flat->ffn, w->ffn);
    EXPECT_EQ(flat->gated_ffn, w->gated_ffn);
    EXPECT_EQ(flat->seq_len, w->seq_len);
    EXPECT_EQ(flat->micro_batch, w->micro_batch);
    EXPECT_EQ(flat->vocab, w->vocab);
  }
  const auto bad = parse_flat_workload("hidden: 4096\nheads: 32\nffn: \"14K\"\nseq_len: 8192\n", "w.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("w.yaml:3: ffn: '\"14K\"' is not a plain positive integer"), std::string::npos);
  EXPECT_NE(parse_flat_workload("hidden: 4096\n", "w.yaml").error().message.find("w.yaml: no 'heads:' line"),
            std::string::npos);
}

TEST(Shapes, GeometricLadder) {
  EXPECT_EQ(geometric(1024, 1 << 20, 4.0), (std::vector<int64_t>{1024, 4096, 16384, 65536, 262144, 1048576}));
  EXPECT_EQ(geometric(3, 3, 2.0), (std::vector<int64_t>{3}));
  EXPECT_EQ(grid_shapes({1, 2}, {3}, {4, 5}, GemmDType::kFP8).size(), 4u);
}

}  // namespace
}  // namespace ntpsim::calibrate
