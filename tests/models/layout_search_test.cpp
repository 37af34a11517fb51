// The fastest-layout search and the layout note (models/layout_search.h).
#include "models/layout_search.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "models/memory_model.h"
#include "tests/models/test_workloads.h"

namespace ntpsim::models {
namespace {

using testing::gpt;
using testing::profile;

Workload shipped(const std::string& name) {
  YamlContext ctx("test");
  auto w = read_workload(YAML::Node(name), "workload", ctx,
                         {std::string(NTPSIM_SOURCE_DIR) + "/models/workloads"});
  EXPECT_TRUE(w.ok()) << (w.ok() ? "" : w.error().message);
  return w.ok() ? *w : Workload{};
}

double tokens_per_gpu(const Workload& w, const Layout& l, const HardwareProfile& h) {
  return AnalyticStepModel(w, l, h).breakdown(l.tp, 1.0, 1.0).tokens_per_s_per_gpu;
}

TEST(LayoutSearch, BeatsEveryValidLayoutOfTheSameGpus) {
  // 256 H100s (32 HGX nodes), a 48-layer GPT: every TP x PP x DP of 256 GPUs with TP inside a
  // node that fits is no faster than the one returned.
  const Workload w = gpt(48, 8192, 64, 4096, 51200, 512);
  const HardwareProfile h = profile("h100-sxm");
  const LayoutSearch search{256, 8, 32, 1};
  const auto best = fastest_layout(w, h, search);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->layout.gpus(), 256);
  EXPECT_LE(best->layout.tp, 8);
  EXPECT_TRUE(memory_at(w, best->layout, h, best->layout.tp).fits());
  int checked = 0;
  for (int tp : {1, 2, 4, 8}) {
    for (int pp : {1, 2, 4, 8, 16}) {  // the divisors of 48 that divide 256
      const Layout l{tp, pp, 256 / (tp * pp), 1};
      if (!memory_at(w, l, h, tp).fits()) continue;
      ++checked;
      EXPECT_GE(best->healthy.tokens_per_s_per_gpu, tokens_per_gpu(w, l, h)) << tp << " " << pp;
    }
  }
  EXPECT_GT(checked, 3);
  // Its breakdown is the one of its layout.
  EXPECT_DOUBLE_EQ(best->healthy.tokens_per_s_per_gpu, tokens_per_gpu(w, best->layout, h));
}

TEST(LayoutSearch, HonoursTheLayoutRules) {
  const Workload w = gpt(48, 8192, 64, 4096, 51200, 16);  // 16 sequences: DP <= 16
  const HardwareProfile h = profile("h100-sxm");
  const auto best = fastest_layout(w, h, LayoutSearch{256, 4, 0, 1});
  ASSERT_TRUE(best.has_value());
  EXPECT_LE(best->layout.tp, 4);  // the domain
  EXPECT_LE(best->layout.dp, 16);
  EXPECT_EQ(best->layout.gpus(), 256);
  // 7 GPUs: TP 7 is not possible (7 > the domain of 4), PP 7 x DP 1 or DP 7 only.
  const Workload small = gpt(28, 2048, 16, 2048, 51200, 64);
  const auto seven = fastest_layout(small, h, LayoutSearch{7, 4, 0, 1});
  ASSERT_TRUE(seven.has_value());
  EXPECT_EQ(seven->layout.tp, 1);
  EXPECT_EQ(seven->layout.pp * seven->layout.dp, 7);
  // Virtual stages are kept where PP x v <= layers, else dropped.
  const auto v = fastest_layout(w, h, LayoutSearch{256, 8, 0, 4});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->layout.virtual_stages, v->layout.pp > 1 && 48 % (v->layout.pp * 4) == 0 ? 4 : 1);
  // Megatron's even splits: TP divides the heads, PP the layers.
  EXPECT_EQ(64 % best->layout.tp, 0);
  EXPECT_EQ(48 % best->layout.pp, 0);
  // Nothing fits: a 405B model on 8 GPUs.
  EXPECT_FALSE(fastest_layout(shipped("llama3-405b"), h, LayoutSearch{8, 8, 1, 1}).has_value());
}

TEST(LayoutSearch, QuickStartLayoutIsFarFromTheFastest) {
  // The quick start: Llama 3 405B at TP 64 x PP 16 x DP 28 on 448 GB200 NVL72 racks. TP 64
  // spans 64 GPUs of a rack and pays TP communication on every layer; a smaller TP degree with
  // more replicas is much faster per GPU, and the note says so with both MFUs.
  const Workload w = shipped("llama3-405b");
  const HardwareProfile h = profile("gb200-nvl72");
  const Layout chosen{64, 16, 28, 1};
  const LayoutSearch search{chosen.gpus(), 72, 448, 1};
  const auto best = fastest_layout(w, h, search);
  ASSERT_TRUE(best.has_value());
  const double now = tokens_per_gpu(w, chosen, h);
  EXPECT_GT(best->healthy.tokens_per_s_per_gpu, 1.5 * now);
  EXPECT_LT(best->layout.tp, 64);
  const std::string note = layout_gap_note(w, h, chosen, search);
  EXPECT_NE(note.find("TP 64 x PP 16 x DP 28"), std::string::npos) << note;
  EXPECT_NE(note.find(fmt::format("TP {} x", best->layout.tp)), std::string::npos) << note;
  EXPECT_NE(note.find("MFU"), std::string::npos) << note;
  // The fastest layout itself gets no note.
  EXPECT_EQ(layout_gap_note(w, h, best->layout, search), "");
}

TEST(LayoutSearch, FillingTheDomainsMaximisesTheJobsTokens) {
  // 16 HGX H100 nodes: every TP x PP with the most replicas the nodes hold is no faster for the
  // whole job than the one returned, which uses as many replicas as fit.
  const Workload w = gpt(48, 8192, 64, 4096, 51200, 512);
  const HardwareProfile h = profile("h100-sxm");
  LayoutSearch fill{0, 8, 16, 1};
  fill.exact_gpus = false;
  const auto best = fastest_layout(w, h, fill);
  ASSERT_TRUE(best.has_value());
  auto job_rate = [&](const Layout& l) { return tokens_per_gpu(w, l, h) * l.tp * l.pp * l.dp; };
  EXPECT_EQ(best->layout.dp, 16 * (8 / best->layout.tp) / best->layout.pp);
  const double rate = job_rate(best->layout);
  for (int tp : {1, 2, 4, 8}) {
    for (int pp : {1, 2, 3, 4, 6, 8, 12, 16}) {
      const Layout l{tp, pp, 16 * (8 / tp) / pp, 1};
      if (l.dp < 1 || !memory_at(w, l, h, tp).fits()) continue;
      EXPECT_GE(rate, job_rate(l) * (1 - 1e-12)) << tp << " " << pp;
    }
  }
  // A batch of 8 sequences caps DP at 8.
  Workload small_batch = w;
  small_batch.global_batch = 8;
  const auto capped = fastest_layout(small_batch, h, fill);
  ASSERT_TRUE(capped.has_value());
  EXPECT_LE(capped->layout.dp, 8);
}

}  // namespace
}  // namespace ntpsim::models
