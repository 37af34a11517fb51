// ntpcal's subcommand plans (calibrate/ntpcal/plan.h; plain C++, so tested without CUDA): the
// GEMM types and layouts, CUDA-graph timing and their refusal messages.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "calibrate/ntpcal/plan.h"

namespace ntpsim::ntpcal {
namespace {

using calibrate::GemmDType;
using calibrate::GemmLayout;

Result<Plan> plan(const std::string& sub, std::vector<std::string> words) {
  Args a;
  declare(a, sub);
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  if (Status s = a.parse(static_cast<int>(argv.size()), argv.data(), 0); !s.ok()) return s.error();
  return make_plan(a, sub);
}

TEST(NtpcalPlan, GridsAndSquaresTakeTheRequestedLayouts) {
  auto p = plan("gemm", {"--m", "1024", "--n", "2048", "--k", "4096", "--layout", "TN,NN,NT",
                         "--dtype", "bf16"});
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->shapes.size(), 3u);
  EXPECT_EQ(p->shapes[0].layout, GemmLayout::kTN);
  EXPECT_EQ(p->shapes[1].layout, GemmLayout::kNN);
  EXPECT_EQ(p->shapes[2].layout, GemmLayout::kNT);
  auto sq = plan("gemm", {"--square", "512,1024", "--dtype", "bf16,mxfp8"});
  ASSERT_TRUE(sq.ok()) << sq.error().message;
  ASSERT_EQ(sq->shapes.size(), 4u);
  EXPECT_EQ(sq->shapes[2].dtype, GemmDType::kMXFP8);
  for (const auto& r : sq->shapes) EXPECT_EQ(r.layout, GemmLayout::kTN);  // the default
  EXPECT_FALSE(sq->graph);
  EXPECT_EQ(timing_context(*sq).rfind("stream", 0), 0u);
}

TEST(NtpcalPlan, LayerShapesTakeEachPassesLayout) {
  auto p = plan("gemm", {"--hidden", "4096", "--heads", "32", "--ffn", "14336", "--seq", "4096",
                         "--tp", "8", "--dtype", "bf16"});
  ASSERT_TRUE(p.ok()) << p.error().message;
  bool nn = false, nt = false;
  for (const auto& r : p->shapes) {
    nn = nn || r.layout == GemmLayout::kNN;
    nt = nt || r.layout == GemmLayout::kNT;
  }
  EXPECT_TRUE(nn && nt);
  // A layout flag with layer shapes is refused, not silently ignored.
  auto bad = plan("gemm", {"--hidden", "4096", "--heads", "32", "--ffn", "14336", "--seq", "4096",
                           "--tp", "8", "--layout", "NN"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("each pass's layout"), std::string::npos);
}

TEST(NtpcalPlan, GraphTimingReachesEveryRequest) {
  auto g = plan("gemm", {"--square", "256", "--dtype", "bf16", "--graph"});
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_TRUE(g->graph);
  EXPECT_TRUE(g->shapes.at(0).graph);
  EXPECT_EQ(timing_context(*g).rfind("cuda_graph", 0), 0u);
  // nccl-tests' -G, here a flag: capture the --iters launches of each sample in a graph.
  auto c = plan("collectives", {"-b", "1K", "-e", "1M", "-G", "-n", "10"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->collectives.graph);
  EXPECT_TRUE(c->reshard.graph);
  EXPECT_EQ(c->collectives.iters, 10);
  auto r = plan("reshard", {"--graph"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->reshard.graph);
  auto plain = plan("collectives", {});
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->collectives.graph);
}

// nccl-tests' usual MPI line, `-b 8 -e 8G -f 2 -n 20 -w 5 -g 1`, parses as it reads there: one
// GPU per process (whether a single process then has enough GPUs is decided at run time).
TEST(NtpcalPlan, NcclTestsLineWithOneGpuPerProcess) {
  auto c =
      plan("collectives", {"-b", "8", "-e", "8G", "-f", "2", "-n", "20", "-w", "5", "-g", "1"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->gpus, 1);
  EXPECT_EQ(c->collectives.iters, 20);
  EXPECT_EQ(c->collectives.warmup, 5);
  ASSERT_FALSE(c->collectives.bytes.empty());
  EXPECT_EQ(c->collectives.bytes.front(), 8);
  EXPECT_EQ(c->collectives.bytes.back(), int64_t{8} << 30);
  EXPECT_EQ(c->collectives.bytes.size(), 31u);  // 8 B .. 8 GiB, factor 2
  auto r = plan("reshard", {"-g", "1", "--tp", "8"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->gpus, 1);
  auto zero = plan("collectives", {"-g", "0"});
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message.find("--gpus must be in [1, 4096]"), std::string::npos);
}

TEST(NtpcalPlan, BadTypesAndLayoutsAreRefusedByName) {
  const auto message = [](const Result<Plan>& p) { return p.ok() ? "" : p.error().message; };
  EXPECT_NE(message(plan("gemm", {"--square", "256", "--dtype", "fp4"}))
                .find("'fp4' is not bf16, fp8 or mxfp8"),
            std::string::npos);
  EXPECT_NE(
      message(plan("gemm", {"--square", "256", "--layout", "TT"})).find("'TT' is not TN, NN or NT"),
      std::string::npos);
  EXPECT_NE(message(plan("power", {"--dtype", "int8"})).find("bf16, fp8 or mxfp8"),
            std::string::npos);
  auto mx = plan("power", {"--dtype", "mxfp8"});
  ASSERT_TRUE(mx.ok()) << mx.error().message;
  EXPECT_EQ(mx->shapes.at(0).dtype, GemmDType::kMXFP8);
  // --graph is a flag: a value is an error.
  EXPECT_FALSE(plan("gemm", {"--graph=1"}).ok());
}

}  // namespace
}  // namespace ntpsim::ntpcal
