// The NTP paper's evaluation setup through the analytic model (what `ntpsim step
// scenarios/ntp-paper-b200-nvl32.yaml` prints), against the paper's statements.
//
// Source: Arfeen et al., "Nonuniform-Tensor-Parallelism: Mitigating GPU failure impact for
// Scaled-up LLM Training", arXiv 2504.06095v1 (as tabulated in docs REFERENCES.md): 480B model
// (models/workloads/ntp-480b.yaml) on 32K B200 in NVL32 domains, TP32 x PP8 x DP125; damaged
// domains run TP30 or TP28; power boost up to +30% of TDP; "perf/W falls 2.8% at 1.1x power and
// 6.5% at 1.2x (TP30 case)"; NTP-PW keeps throughput loss under 1%.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "models/analytic_step_model.h"
#include "tests/models/test_workloads.h"

namespace ntpsim::models {
namespace {

Workload ntp_480b() {
  YamlContext ctx("test");
  auto w = read_workload(YAML::Node("ntp-480b"), "workload", ctx,
                         {std::string(NTPSIM_SOURCE_DIR) + "/models/workloads"});
  EXPECT_TRUE(w.ok()) << (w.ok() ? "" : w.error().message);
  return w.ok() ? *w : Workload{};
}

TEST(NtpPaper, Tp30AndTp28SharesAndPower) {
  const Workload w = ntp_480b();
  ASSERT_EQ(w.hidden, 20480);
  const HardwareProfile h = testing::profile("ntp-b200-nvl32");
  const AnalyticStepModel m(w, Layout{32, 8, 125, 1}, h);
  ASSERT_LE(m.min_tp(), 28);  // TP28 fits in 189 GB
  const double target = m.healthy_iteration_s();
  const double max_r = m.max_power_ratio();
  ASSERT_NEAR(max_r, 1.3, 1e-12);
  double share_tdp[2], share_max[2], power[2];
  const int tps[2] = {30, 28};
  for (int i = 0; i < 2; ++i) {
    share_tdp[i] = max_batch_share(m, tps[i], 1.0, target);
    share_max[i] = max_batch_share(m, tps[i], max_r, target);
    power[i] = power_ratio_for(m, tps[i], 1.0, target);
    std::printf("TP%d: share at TDP %.4f, at 1.3x TDP %.4f, power for full share %s%.3f\n", tps[i],
                share_tdp[i], share_max[i], power[i] > max_r ? ">" : "",
                power[i] > max_r ? max_r : power[i]);
  }
  // Fewer GPUs carry less, but not less than the GPU ratio (communication does not grow).
  EXPECT_LT(share_tdp[1], share_tdp[0]);
  EXPECT_LE(share_tdp[0], 30.0 / 32 + 0.01);
  EXPECT_GE(share_tdp[0], 0.90);
  EXPECT_GE(share_tdp[1], 28.0 / 32 - 0.01);
  // With the +30% boost a damaged replica loses under 2% of its share (paper: NTP-PW under 1%
  // loss for the whole job, where only a few replicas are damaged).
  EXPECT_GE(share_max[0], 0.98);
  EXPECT_GE(share_max[1], 0.98);
  EXPECT_GT(share_max[0], share_tdp[0]);
  // Full share needs more than the paper's 1.1x: ceil(128/30) = 5 heads on the busiest GPU and
  // the unboosted communication make TP30 costlier than 32/30 (see models/README.md).
  EXPECT_GT(power[0], 1.1);
}

TEST(NtpPaper, PerfPerWattAgainstThePaper) {
  const PowerModel p(testing::profile("ntp-b200-nvl32"));
  const double drop_11 = 1.0 - p.perf_per_watt(1.1);
  const double drop_12 = 1.0 - p.perf_per_watt(1.2);
  std::printf("perf/W drop: %.1f%% at 1.1x (paper 2.8%%), %.1f%% at 1.2x (paper 6.5%%)\n",
              100 * drop_11, 100 * drop_12);
  // Elasticity 0.58 from the Blackwell spec ladder; the paper's points imply 0.63-0.70.
  EXPECT_NEAR(drop_11, 0.028, 0.015);
  EXPECT_NEAR(drop_12, 0.065, 0.015);
}

// Which assumption separates the paper's power numbers from ntpsim's, made explicit:
//  1. the full share at TP30 needs 1.1-1.2x TDP only if every phase speeds up with power: the
//     even split gives 1.118x, the uneven one (ceil(128/30) = 5 heads on the busiest GPU) only
//     1.138x, while memory-bound kernels and communication that do not speed up take it to
//     1.29x, so unboosted communication is the assumption that differs;
//  2. the paper's perf/W drops are GPU-level (compute-bound) perf/W, speedup(r)/r: over a whole
//     iteration, where unboosted communication draws less power, the drop would be smaller than
//     the paper's; as GPU-level figures they imply an elasticity of 0.63-0.70, above the 0.58 the
//     Blackwell spec ladder gives.
TEST(NtpPaper, PowerAssumptionsThatDiffer) {
  const Workload w = ntp_480b();
  const HardwareProfile h = testing::profile("ntp-b200-nvl32");
  const Layout l{32, 8, 125, 1};
  // 1a. The paper's assumption: even split, everything sped up (the proportional model).
  auto prop = make_step_model("proportional", w, l, h);
  ASSERT_TRUE(prop.ok());
  const double r_paper = power_ratio_for(**prop, 30, 1.0, (*prop)->healthy_iteration_s());
  EXPECT_GE(r_paper, 1.1);
  EXPECT_LE(r_paper, 1.2);
  // 1b. Uneven shards with every phase sped up: a little more than the even split.
  StepOptions all;
  all.power_speeds_all_phases = true;
  const AnalyticStepModel uneven_all(w, l, h, all);
  const double r_uneven = power_ratio_for(uneven_all, 30, 1.0, uneven_all.healthy_iteration_s());
  EXPECT_GT(r_uneven, r_paper);
  // 1c. The physical model: communication and memory-bound work are not sped up either.
  const AnalyticStepModel physical(w, l, h);
  const double r_physical = power_ratio_for(physical, 30, 1.0, physical.healthy_iteration_s());
  EXPECT_GT(r_physical, r_uneven);
  std::printf(
      "TP30 full-share power: proportional %.3f, uneven heads %.3f, + unboosted comm %.3f\n",
      r_paper, r_uneven, r_physical);

  // 2. perf/W: the elasticity each published point implies, a = 1 + ln(1 - drop) / ln(r).
  const double a_11 = 1.0 + std::log(1.0 - 0.028) / std::log(1.1);
  const double a_12 = 1.0 + std::log(1.0 - 0.065) / std::log(1.2);
  EXPECT_NEAR(a_11, 0.70, 0.01);
  EXPECT_NEAR(a_12, 0.63, 0.01);
  EXPECT_LT(h.power_elasticity, std::min(a_11, a_12));
  // Iteration-level perf/W at TP30 (compute at r x TDP, the rest at the communication power):
  // smaller drops than the paper's, so the paper's figures are GPU-level ones.
  const PowerModel p(h);
  for (const double r : {1.1, 1.2}) {
    const StepBreakdown b1 = physical.breakdown(30, 1.0, 1.0);
    const StepBreakdown br = physical.breakdown(30, 1.0, r);
    auto energy = [&](const StepBreakdown& b, double ratio) {
      return b.compute_s * p.compute_power_w(ratio) +
             (b.iteration_s - b.compute_s) * p.comm_power_w(ratio);
    };
    const double iteration_drop = 1.0 - energy(b1, 1.0) / energy(br, r);
    const double gpu_drop = 1.0 - p.perf_per_watt(r);
    const double paper = r < 1.15 ? 0.028 : 0.065;
    std::printf("perf/W drop at %.1fx: GPU-level %.2f%%, iteration-level %.2f%%, paper %.1f%%\n", r,
                100 * gpu_drop, 100 * iteration_drop, 100 * paper);
    EXPECT_LT(iteration_drop, paper);
    EXPECT_GT(gpu_drop, paper);
  }
}

}  // namespace
}  // namespace ntpsim::models
