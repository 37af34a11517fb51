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

bool same(const Layout& a, const Layout& b) {
  return a.tp == b.tp && a.cp == b.cp && a.pp == b.pp && a.dp == b.dp &&
         a.virtual_stages == b.virtual_stages;
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

// Llama 3 70B at 128K tokens per sequence, 64 sequences per iteration: one sequence's activations
// are far larger than an H100 at any TP x PP (the first stage holds every layer's worth under
// 1F1B), so only a layout that splits each sequence over context-parallel ranks fits.
Workload long_context() {
  Workload w = shipped("llama3-70b");
  w.seq_len = 131072;
  w.global_batch = 64;
  return w;
}

TEST(LayoutSearch, ChoosesTheCpDegreeALongSequenceNeeds) {
  const Workload w = long_context();
  const HardwareProfile h = profile("h100-sxm");
  const LayoutSearch fixed{512, 8, 64, 1};  // CP 1, as every caller that keeps CP fixed
  EXPECT_FALSE(fastest_layout(w, h, fixed).has_value());
  LayoutSearch choose = fixed;
  choose.cp = 0;
  const auto best = fastest_layout(w, h, choose);
  ASSERT_TRUE(best.has_value());
  const Layout& l = best->layout;
  EXPECT_GT(l.cp, 1);
  EXPECT_EQ(l.gpus(), 512);
  EXPECT_EQ(w.seq_len % (2 * l.cp), 0);
  EXPECT_TRUE(memory_at(w, l, h, l.tp).fits());
  EXPECT_DOUBLE_EQ(best->healthy.tokens_per_s_per_gpu, tokens_per_gpu(w, l, h));
  // No CP degree does better, and every smaller one does strictly worse (a tie keeps the smaller
  // CP). At each CP the fixed-CP search is the reference.
  int fitting = 0;
  for (int cp = 2; cp <= 512; cp *= 2) {
    LayoutSearch at = fixed;
    at.cp = cp;
    const auto b = fastest_layout(w, h, at);
    if (!b) continue;
    ++fitting;
    EXPECT_EQ(b->layout.cp, cp);
    EXPECT_GE(best->healthy.tokens_per_s_per_gpu, b->healthy.tokens_per_s_per_gpu) << cp;
    if (cp < l.cp) {
      EXPECT_LT(b->healthy.tokens_per_s_per_gpu, best->healthy.tokens_per_s_per_gpu) << cp;
    }
    if (cp == l.cp) {
      EXPECT_TRUE(same(b->layout, l));
    }
  }
  EXPECT_GE(fitting, 2);
  // A bound on CP is kept: the fastest layout of CP at most 8 is a CP 8 one (CP 2 and 4 do not
  // fit: 189 and 99 GB per GPU at TP 8 x PP 8, and under 1F1B the first stage holds about every
  // layer's activations at any PP).
  choose.max_cp = 8;
  const auto capped = fastest_layout(w, h, choose);
  ASSERT_TRUE(capped.has_value());
  EXPECT_EQ(capped->layout.cp, 8);
  LayoutSearch at_capped = fixed;
  at_capped.cp = capped->layout.cp;
  EXPECT_TRUE(same(fastest_layout(w, h, at_capped)->layout, capped->layout));
}

TEST(LayoutSearch, ChoosingCpFillsTheDomainsToo) {
  // The planner's `layout: auto`: 64 HGX nodes, the job's tokens/s ranks; nothing fits at CP 1.
  const Workload w = long_context();
  const HardwareProfile h = profile("h100-sxm");
  LayoutSearch fill{0, 8, 64, 1};
  fill.exact_gpus = false;
  EXPECT_FALSE(fastest_layout(w, h, fill).has_value());
  fill.cp = 0;
  const auto best = fastest_layout(w, h, fill);
  ASSERT_TRUE(best.has_value());
  EXPECT_GT(best->layout.cp, 1);
  EXPECT_LE(best->layout.gpus(), 512);
  EXPECT_TRUE(memory_at(w, best->layout, h, best->layout.tp).fits());
  auto job_rate = [](const LayoutChoice& c) {
    return c.healthy.tokens_per_s_per_gpu * static_cast<double>(c.layout.gpus());
  };
  for (int cp = 2; cp <= 512; cp *= 2) {
    LayoutSearch at = fill;
    at.cp = cp;
    const auto b = fastest_layout(w, h, at);
    if (b) {
      EXPECT_GE(job_rate(*best), job_rate(*b)) << cp;
    }
  }
}

TEST(LayoutSearch, AFixedCpIsTheSearchOfThatCpAlone) {
  // CP 1 given, and CP chosen at most 1, and CP chosen on unfused attention (which has no
  // context parallelism): the same layout, bit for bit the same rate.
  const Workload w = gpt(48, 8192, 64, 4096, 51200, 512);
  const HardwareProfile h = profile("h100-sxm");
  const LayoutSearch fixed{256, 8, 32, 1};
  const auto one = fastest_layout(w, h, fixed);
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->layout.cp, 1);
  LayoutSearch at_most_one = fixed;
  at_most_one.cp = 0;
  at_most_one.max_cp = 1;
  const auto at_most = fastest_layout(w, h, at_most_one);
  ASSERT_TRUE(at_most.has_value());
  EXPECT_TRUE(same(at_most->layout, one->layout));
  EXPECT_EQ(at_most->healthy.tokens_per_s_per_gpu, one->healthy.tokens_per_s_per_gpu);
  StepOptions unfused;
  unfused.flash_attention = false;
  LayoutSearch any = fixed;
  any.cp = 0;
  const auto u = fastest_layout(w, h, any, unfused);
  ASSERT_TRUE(u.has_value());
  EXPECT_TRUE(same(u->layout, fastest_layout(w, h, fixed, unfused)->layout));
  // A sequence that 2 x CP does not divide is never split so: 4098 = 2 x 3 x 683 tokens allow
  // CP 1, 3, 683 and 2049, not the powers of two above 1.
  Workload odd = w;
  odd.seq_len = 4098;
  const auto o = fastest_layout(odd, h, any);
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(odd.seq_len % (2 * o->layout.cp), 0) << o->layout.cp;
}

TEST(LayoutSearch, ChosenCpGroupsDoNotStraddleDomains) {
  // A GB200 NVL72 rack holds floor(72 / TP) TP groups (18 of TP 4): a CP group of 16 TP-4 groups
  // fits in a rack but most such groups straddle two, running part of their K/V ring on the
  // scale-out network that the step model costs as NVLink. A chosen CP either divides the rack's
  // TP groups or spans racks outright.
  const Workload w = long_context();
  const HardwareProfile h = profile("gb200-nvl72");
  LayoutSearch choose{0, 72, 8, 1};
  choose.exact_gpus = false;
  choose.cp = 0;
  const auto best = fastest_layout(w, h, choose);
  ASSERT_TRUE(best.has_value());
  const Layout& l = best->layout;
  const int groups = 72 / l.tp;
  EXPECT_TRUE(l.cp > groups || groups % l.cp == 0) << l.tp << " " << l.cp;
  // A fixed CP is searched as before (its callers' results unchanged): at CP 16 the straddling
  // TP 4 layout is the fastest.
  LayoutSearch at16 = choose;
  at16.cp = 16;
  const auto sixteen = fastest_layout(w, h, at16);
  ASSERT_TRUE(sixteen.has_value());
  EXPECT_EQ(sixteen->layout.cp, 16);
  EXPECT_EQ(sixteen->layout.tp, 4);
}

TEST(LayoutSearch, FitNoteSuggestsALayoutThatFits) {
  const Workload w = long_context();
  const HardwareProfile h = profile("h100-sxm");
  const Layout chosen{8, 8, 8, 1};  // CP 1: 369 GB per GPU
  ASSERT_FALSE(memory_at(w, chosen, h, 8).fits());
  const LayoutSearch search{chosen.gpus(), 8, 0, 1};
  // The gap note is for layouts that fit; the fit note for those that do not.
  EXPECT_EQ(layout_gap_note(w, h, chosen, search), "");
  const std::string note = layout_fit_note(w, h, chosen, search);
  LayoutSearch any = search;
  any.cp = 0;
  const auto best = fastest_layout(w, h, any);
  ASSERT_TRUE(best.has_value());
  const Layout& b = best->layout;
  EXPECT_NE(note.find("layout TP 8 x PP 8 x DP 8 needs "), std::string::npos) << note;
  EXPECT_NE(note.find(fmt::format("TP {} x CP {} x PP {}", b.tp, b.cp, b.pp)), std::string::npos)
      << note;
  EXPECT_NE(note.find("MFU"), std::string::npos) << note;
  // A layout that fits gets none.
  EXPECT_EQ(layout_fit_note(w, h, b, search), "");
  // Nothing fits at any CP: said so. 405B on 8 GPUs.
  const Workload big = shipped("llama3-405b");
  const std::string none = layout_fit_note(big, h, Layout{8, 1, 1, 1}, LayoutSearch{8, 8, 0, 1});
  EXPECT_NE(none.find("no layout of the same 8 GPUs fits (TP inside a domain of 8, any PP, CP "
                      "and DP)"),
            std::string::npos)
      << none;
  // Unfused attention has no context parallelism, and the note says CP 1 was the only one tried.
  StepOptions unfused;
  unfused.flash_attention = false;
  const std::string one = layout_fit_note(w, h, chosen, search, unfused);
  EXPECT_NE(one.find("CP 1: context parallelism needs fused attention"), std::string::npos) << one;
}

}  // namespace
}  // namespace ntpsim::models
