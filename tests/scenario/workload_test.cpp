// Workloads: the shipped files load, parameter counts match the published sizes, and bad
// workloads are refused with the field named.
#include "models/workload.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ntpsim::models {
namespace {

const std::vector<std::string> kDirs = {std::string(NTPSIM_SOURCE_DIR) + "/models/workloads"};

Result<Workload> load_named(const std::string& name) {
  const YAML::Node n(name);
  const YamlContext ctx("scenario.yaml");
  return read_workload(n, "workload", ctx, kDirs);
}

Result<Workload> load_inline(const std::string& text) {
  auto n = load_yaml_string(text, "inline.yaml");
  if (!n.ok()) return n.error();
  const YamlContext ctx("inline.yaml");
  return read_workload(*n, "workload", ctx, kDirs);
}

// Parameter counts of the shipped workloads against the published model sizes (relative
// tolerance 3%: embeddings and norms are counted, biases are not).
TEST(WorkloadTest, ShippedWorkloadsHaveTheirPublishedSize) {
  const std::vector<std::pair<std::string, double>> cases = {
      {"gpt3-175b", 175e9},     {"llama3-8b", 8.0e9}, {"llama3-70b", 70.6e9},
      {"llama3-405b", 405.9e9}, {"ntp-480b", 503e9},  {"megatron-1t", 1008e9}};
  for (const auto& [name, params] : cases) {
    auto w = load_named(name);
    ASSERT_TRUE(w.ok()) << name << ": " << w.error().message;
    EXPECT_EQ(w->name, name);
    EXPECT_NEAR(w->parameters() / params, 1.0, 0.03) << name << " has " << w->parameters();
  }
}

TEST(WorkloadTest, Llama405bExactFields) {
  auto w = load_named("llama3-405b");
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->layers, 126);
  EXPECT_EQ(w->hidden, 16384);
  EXPECT_EQ(w->kv_heads, 8);
  EXPECT_EQ(w->ffn, 53248);
  EXPECT_DOUBLE_EQ(w->tokens_per_iteration(), 2048.0 * 8192.0);
  EXPECT_EQ(w->dtype, DType::kBF16);
  EXPECT_EQ(w->recompute, Recompute::kSelective);
}

TEST(WorkloadTest, BaseWithOverrides) {
  auto w = load_inline("base: llama3-70b\nglobal_batch: 512\ndtype: fp8\n");
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->layers, 80);
  EXPECT_EQ(w->global_batch, 512);
  EXPECT_EQ(w->dtype, DType::kFP8);
}

TEST(WorkloadTest, InlineKvHeadsDefaultToHeads) {
  auto w = load_inline(
      "layers: 2\nhidden: 64\nheads: 4\nffn: 256\nvocab: 100\nseq_len: 16\nglobal_batch: 8\n");
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->kv_heads, 4);
  EXPECT_EQ(w->name, "inline");
  // 2 x (4·64² attention + 3·64·256 MLP + 2·64 norms) + 2·100·64 embeddings + 64 final norm.
  EXPECT_DOUBLE_EQ(w->parameters(), 2.0 * (4 * 4096 + 3 * 64 * 256 + 128) + 12800 + 64);
}

TEST(WorkloadTest, UnknownNameSuggestsNearest) {
  auto w = load_named("llama3-406b");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message.find("workload: unknown workload \"llama3-406b\" (did you mean "
                                   "\"llama3-405b\"?)"),
            std::string::npos)
      << w.error().message;
}

TEST(WorkloadTest, HeadsMustDivideHidden) {
  auto w = load_inline(
      "layers: 2\nhidden: 100\nheads: 3\nffn: 256\nvocab: 100\nseq_len: 16\nglobal_batch: 8\n");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message,
            "inline.yaml:3:8: workload.heads: hidden size 100 is not a multiple of 3 heads");
}

TEST(WorkloadTest, KvHeadsMustDivideHeads) {
  auto w = load_inline("base: llama3-8b\nkv_heads: 5\n");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message,
            "inline.yaml:2:11: workload.kv_heads: 32 attention heads are not a multiple of 5 KV "
            "heads");
}

TEST(WorkloadTest, MissingRequiredField) {
  auto w = load_inline("layers: 2\nhidden: 64\n");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message, "inline.yaml:1:1: workload: missing required field \"heads\"");
}

TEST(WorkloadTest, LayoutRefusesAbsurdSizes) {
  auto n = load_yaml_string("tp: 64\npp: 4096\ndp: 16000000\n", "l.yaml");
  ASSERT_TRUE(n.ok());
  const YamlContext ctx("l.yaml");
  auto l = read_layout(*n, "layout", ctx);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("l.yaml:1:1: layout: TP 64 x PP 4096 x DP 16000000"),
            std::string::npos)
      << l.error().message;
}

TEST(WorkloadTest, ToYamlRoundTrips) {
  auto w = load_named("gpt3-175b");
  ASSERT_TRUE(w.ok());
  const YAML::Node y = to_yaml(*w);
  const YamlContext ctx("round.yaml");
  auto back = read_workload(y, "workload", ctx, kDirs);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->parameters(), w->parameters());
  EXPECT_EQ(back->gated_ffn, false);
  EXPECT_EQ(back->name, "gpt3-175b");
}

}  // namespace
}  // namespace ntpsim::models
