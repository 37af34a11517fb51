// Sensitivity analysis (sim/sensitivity/sensitivity.h) on a scenario whose answers are known in
// closed form: spare_substitution and ntp differ only in the pause each failure costs (spare_swap
// against reconfigure) when repairs finish inside the pause (1 s repairs; a repair during a
// recovery joins it at no cost, sim/engine/engine.cpp), so on common random numbers they tie
// exactly where spare_swap = reconfigure (2 min), and restart (used by neither while spares
// last) cannot matter.
#include "sim/sensitivity/sensitivity.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"

namespace ntpsim::sim {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPauseOnly = R"(name: pause_only
cluster: {domains: 5, gpus_per_domain: 8, spare_domains: 1}
workload: llama3-8b
layout: {tp: 8, pp: 1, dp: 4}
hardware: h100-sxm
model: proportional
failures:
  processes:
    - component: gpu
      rate: "2e-3/h"
      distribution: exponential
      kinds:
        - {name: hardware, share: 1, repair: {distribution: fixed, mean: "1s"}}
checkpoint: {interval: "1h", write: "30s", restore: "2min"}
recovery: {detection: "30s", restart: "10min", reconfigure: "2min", spare_swap: "5min"}
strategies: [spare_substitution, {name: ntp, resume: in_place}]
horizon: "20d"
replications: 8
seed: 7
uncertain:
  recovery.spare_swap: [30s, 10min]
  recovery.restart: [5min, 20min]
)";

class Sensitivity : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ntpsim_sensitivity_test_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  fs::path dir_;
};

SensitivityOptions options(int threads, int samples) {
  SensitivityOptions o;
  o.threads = threads;
  o.samples = samples;
  o.bisection_steps = 10;
  return o;
}

int input_index(const SensitivityResult& r, const std::string& path) {
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    if (r.inputs[i].path == path) return static_cast<int>(i);
  }
  return -1;
}

TEST_F(Sensitivity, BreakEvenOfTwoPauseCostsIsWhereTheyAreEqual) {
  auto r = run_sensitivity(write("s.yaml", kPauseOnly), {}, options(2, 0));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->strategies, (std::vector<std::string>{"spare_substitution", "ntp"}));
  EXPECT_EQ(r->leader, 1);  // ntp: 2 min per failure against 5 min
  const int swap = input_index(*r, "recovery.spare_swap");
  ASSERT_GE(swap, 0);
  ASSERT_EQ(r->break_even.size(), 1u);
  const BreakEven& be = r->break_even[0];
  EXPECT_EQ(be.input, swap);
  EXPECT_TRUE(be.runner_up_below);
  // Bracket of [30 s, 300 s] halved 11 times: resolution 270 s / 2^11 = 0.13 s.
  EXPECT_NEAR(be.resolution, 270.0 / 2048.0, 1e-9);
  EXPECT_NEAR(be.value, 120.0, be.resolution + 1e-9);
  // At the tie the paired difference is zero within its CI.
  EXPECT_LE(be.diff_ci95_lo, 1e-6);
  EXPECT_GE(be.diff_ci95_hi, -1e-6);
  // The tornado: spare_swap first and flags the winner change; restart has no swing.
  ASSERT_EQ(r->tornado.size(), 2u);
  EXPECT_EQ(r->tornado[0].input, swap);
  EXPECT_TRUE(r->tornado[0].changes_winner);
  EXPECT_EQ(r->tornado[0].low.winner, 0);
  EXPECT_FALSE(r->tornado[1].changes_winner);
  EXPECT_EQ(r->tornado[1].swing, 0.0);
}

TEST_F(Sensitivity, RankingAndWinProbabilityMatchTheClosedForm) {
  auto r = run_sensitivity(write("s.yaml", kPauseOnly), {}, options(2, 64));
  ASSERT_TRUE(r.ok()) << r.error().message;
  // Goodput gap at the resolved values: every failure of the 32 job GPUs costs spare_substitution
  // 3 min more than ntp: 2e-3/h x 32 x 180 s = 0.0032 of the run. Tolerance 20% (Poisson noise of
  // about 250 failures over 8 replications is 6%).
  const double gap = r->base.strategies[1].goodput - r->base.strategies[0].goodput;
  const double expected = 2e-3 / 3600.0 * 32 * 180.0;
  EXPECT_NEAR(gap, expected, 0.2 * expected);
  // spare_substitution wins iff spare_swap < 2 min: P = (120 - 30) / (600 - 30) = 0.158 under the
  // uniform range; the Wilson interval of the 64 samples covers it.
  const double p = 90.0 / 570.0;
  EXPECT_LE(r->global.win_ci95_lo[0], p);
  EXPECT_GE(r->global.win_ci95_hi[0], p);
  EXPECT_NEAR(r->global.win_probability[0] + r->global.win_probability[1], 1.0, 1e-12);
  // Latin hypercube: each of the 64 equal strata of every input holds exactly one sample.
  for (size_t j = 0; j < r->inputs.size(); ++j) {
    std::vector<int> count(64, 0);
    for (const auto& x : r->global.x) {
      const double u = (x[j] - r->inputs[j].lo) / (r->inputs[j].hi - r->inputs[j].lo);
      ++count[static_cast<size_t>(std::floor(u * 64))];
    }
    for (int c : count) EXPECT_EQ(c, 1);
  }
}

TEST_F(Sensitivity, IndexOfAnInputThatCannotMatterIsNearZero) {
  auto r = run_sensitivity(write("s.yaml", kPauseOnly), {}, options(2, 64));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto swap = static_cast<size_t>(input_index(*r, "recovery.spare_swap"));
  const auto restart = static_cast<size_t>(input_index(*r, "recovery.restart"));
  const IndexEstimate& s = r->global.index[swap];
  const IndexEstimate& n = r->global.index[restart];
  // The gap is linear in spare_swap: binned into 8 bins its first-order index is 1 - 1/64 of the
  // variance it explains within bins, and the replications' noise is common to both strategies.
  EXPECT_GT(s.first_order, 0.9);
  // restart changes no evaluation: its index is the estimator's null, ~0 within 3 standard errors
  // and below 0.1.
  EXPECT_LT(std::abs(n.first_order), 0.1);
  EXPECT_LT(std::abs(n.first_order), 3 * n.stderr_ + 1e-12);
  EXPECT_GT(n.stderr_, 0.0);
  EXPECT_TRUE(std::isfinite(s.first_order_half));
}

TEST_F(Sensitivity, ResultsAreIdenticalForAnyThreadCount) {
  const std::string file = write("s.yaml", kPauseOnly);
  auto one = run_sensitivity(file, {}, options(1, 16));
  auto three = run_sensitivity(file, {}, options(3, 16));
  ASSERT_TRUE(one.ok() && three.ok());
  EXPECT_EQ(sensitivity_json(*one).dump(), sensitivity_json(*three).dump());
  EXPECT_EQ(sensitivity_csv(*one), sensitivity_csv(*three));
}

TEST_F(Sensitivity, DefaultInputsCoverTheScenarioCostsAndRates) {
  std::string text = kPauseOnly;
  text = text.substr(0, text.find("uncertain:"));
  auto in = read_uncertain_inputs(write("s.yaml", text), {});
  ASSERT_TRUE(in.ok()) << in.error().message;
  std::vector<std::string> paths;
  for (const auto& i : in->inputs) {
    paths.push_back(i.path);
    EXPECT_FALSE(i.declared);
    EXPECT_NEAR(i.hi, 1.5 * i.base, 1e-12 * i.base) << i.path;
    // The power cap stays at or above TDP (700 W on h100-sxm), the others go down to half.
    EXPECT_NEAR(i.lo, i.path == "hardware.max_power" ? 700.0 : 0.5 * i.base, 1e-12 * i.base)
        << i.path;
  }
  // The proportional step model has no efficiencies to vary; h100-sxm's power cap is its TDP.
  EXPECT_EQ(paths, (std::vector<std::string>{"recovery.detection", "recovery.restart",
                                             "recovery.reconfigure", "recovery.spare_swap",
                                             "checkpoint.write", "checkpoint.restore",
                                             "failures.processes[0].rate"}));
  // The 1 s repair cannot halve (repairs take at least 1 s): left out, with a note saying why.
  ASSERT_EQ(in->notes.size(), 2u);
  EXPECT_NE(in->notes[0].find("failures.processes[0].kinds[0].repair.mean: default bound 500ms "
                              "left it out"),
            std::string::npos)
      << in->notes[0];
  EXPECT_NE(in->notes[1].find("hardware.max_power: equals TDP"), std::string::npos) << in->notes[1];
  // The profile inlined for hardware overrides resolves to the same scenario.
  auto plain = load_scenario((dir_ / "s.yaml").string());
  auto inlined = load_scenario((dir_ / "s.yaml").string(), in->base_overrides);
  ASSERT_TRUE(plain.ok() && inlined.ok());
  EXPECT_EQ(scenario_hash(*plain), scenario_hash(*inlined));
}

TEST_F(Sensitivity, HardwareFieldsOfANamedProfileCanBeUncertain) {
  std::string text = kPauseOnly;
  text = text.substr(0, text.find("uncertain:")) +
         "uncertain:\n  hardware.gemm_efficiency: [0.5, 0.8]\n";
  auto in = read_uncertain_inputs(write("s.yaml", text), {});
  ASSERT_TRUE(in.ok()) << in.error().message;
  ASSERT_EQ(in->inputs.size(), 1u);
  EXPECT_TRUE(in->inputs[0].declared);
  EXPECT_EQ(in->inputs[0].kind, QuantityKind::kNumber);
  EXPECT_DOUBLE_EQ(in->inputs[0].lo, 0.5);
  // The profile, named by a string, is inlined so that its fields can be overridden.
  ASSERT_EQ(in->base_overrides.size(), 1u);
  EXPECT_EQ(in->base_overrides[0].rfind("hardware={", 0), 0u);
  std::vector<std::string> overrides = in->base_overrides;
  overrides.push_back(uncertain_override(in->inputs[0], 0.6));
  auto s = load_scenario((dir_ / "s.yaml").string(), overrides);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_DOUBLE_EQ(s->hardware.gemm_efficiency, 0.6);
  EXPECT_EQ(s->hardware.name, "h100-sxm");
}

TEST_F(Sensitivity, WholeNumberFieldsTakeTheNearestInteger) {
  const std::string head =
      std::string(kPauseOnly).substr(0, std::string(kPauseOnly).find("uncertain:"));
  auto in = read_uncertain_inputs(
      write("s.yaml", head + "uncertain:\n  cluster.spare_domains: [0, 2]\n"), {});
  ASSERT_TRUE(in.ok()) << in.error().message;
  ASSERT_EQ(in->inputs.size(), 1u);
  EXPECT_TRUE(in->inputs[0].integer);
  EXPECT_EQ(uncertain_override(in->inputs[0], 1.4), "cluster.spare_domains=1");
  EXPECT_EQ(uncertain_override(in->inputs[0], 1.6), "cluster.spare_domains=2");
  auto bad = read_uncertain_inputs(
      write("b.yaml", head + "uncertain:\n  cluster.spare_domains: [0, 1.5]\n"), {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find(
                ":21:30: uncertain.cluster.spare_domains: \"1.5\" is not a whole number"),
            std::string::npos)
      << bad.error().message;
}

TEST_F(Sensitivity, BadUncertainEntriesNameFileLineAndField) {
  const std::string head =
      std::string(kPauseOnly).substr(0, std::string(kPauseOnly).find("uncertain:"));
  struct Case {
    const char* entry;
    const char* expect;
  };
  for (const Case& c : {
           Case{"  recovery.restrat: [5min, 20min]\n",
                "uncertain.recovery.restrat: no such scalar field"},
           Case{"  recovery.restart: [5min, 20W]\n",
                "uncertain.recovery.restart: unknown duration unit \"W\" in \"20W\""},
           Case{"  recovery.restart: 5min\n", "uncertain.recovery.restart: expected a range"},
           Case{"  recovery.restart: [20min, 5min]\n",
                "uncertain.recovery.restart: low must be below high"},
           Case{"  checkpoint.write: [30s, 400d]\n",
                "uncertain.checkpoint.write: bound 400d is not valid for the field"},
       }) {
    const std::string file = write("bad.yaml", head + "uncertain:\n" + c.entry);
    auto r = read_uncertain_inputs(file, {});
    ASSERT_FALSE(r.ok()) << c.entry;
    EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);
    EXPECT_NE(r.error().message.find(file + ":21:"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(c.expect), std::string::npos) << r.error().message;
  }
}

TEST_F(Sensitivity, ScenarioLoaderAcceptsUncertainAndStillRejectsTypos) {
  EXPECT_TRUE(load_scenario(write("s.yaml", kPauseOnly)).ok());
  std::string typo = kPauseOnly;
  typo.replace(typo.find("uncertain:"), 10, "uncertian:");
  auto r = load_scenario(write("t.yaml", typo));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("uncertian"), std::string::npos) << r.error().message;
}

TEST_F(Sensitivity, TooManyEvaluationsAreRefusedUpFront) {
  SensitivityOptions o = options(1, 64);
  o.max_evaluations = 50;
  auto r = run_sensitivity(write("s.yaml", kPauseOnly), {}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(r.error().message.find("plan up to 113 evaluations, over the limit of 50"),
            std::string::npos)
      << r.error().message;
}

TEST_F(Sensitivity, CancelledBeforeStartingStopsWithARuntimeError) {
  std::atomic<bool> cancel{true};
  SensitivityOptions o = options(1, 8);
  o.cancel = &cancel;
  auto r = run_sensitivity(write("s.yaml", kPauseOnly), {}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, ExitCode::kRuntime);
  EXPECT_NE(r.error().message.find("interrupted after 0 of at most"), std::string::npos);
}

}  // namespace
}  // namespace ntpsim::sim
