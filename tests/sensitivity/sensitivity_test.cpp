// Sensitivity analysis (sim/sensitivity/sensitivity.h) on a scenario whose answers are known in
// closed form: spare_substitution and ntp differ only in the pause each failure costs (spare_swap
// against reconfigure) when repairs finish inside the pause (1 s repairs; a repair during a
// recovery joins it at no cost, sim/engine/engine.cpp), so on common random numbers they tie
// exactly where spare_swap = reconfigure (2 min), and restart (used by neither while spares
// last) cannot matter.
#include "sim/sensitivity/sensitivity.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "reports/content.h"
#include "reports/report.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"
#include "sim/scenario/recovery_costs.h"

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
  // uniform range; the Wilson interval of the 2 x 64 rows of A and B covers it.
  const double p = 90.0 / 570.0;
  EXPECT_LE(r->global.win_ci95_lo[0], p);
  EXPECT_GE(r->global.win_ci95_hi[0], p);
  EXPECT_NEAR(r->global.win_probability[0] + r->global.win_probability[1], 1.0, 1e-12);
  // Latin hypercubes: each of the 64 equal strata of every input holds exactly one row of A and
  // one of B.
  ASSERT_EQ(r->global.x.size(), 128u);
  for (size_t j = 0; j < r->inputs.size(); ++j) {
    for (size_t half = 0; half < 2; ++half) {
      std::vector<int> count(64, 0);
      for (size_t i = 64 * half; i < 64 * (half + 1); ++i) {
        const double u =
            (r->global.x[i][j] - r->inputs[j].lo) / (r->inputs[j].hi - r->inputs[j].lo);
        ++count[static_cast<size_t>(std::floor(u * 64))];
      }
      for (int c : count) EXPECT_EQ(c, 1);
    }
  }
}

TEST_F(Sensitivity, IndexOfAnInputThatCannotMatterIsNearZero) {
  auto r = run_sensitivity(write("s.yaml", kPauseOnly), {}, options(2, 64));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->global.indices);
  const auto swap = static_cast<size_t>(input_index(*r, "recovery.spare_swap"));
  const auto restart = static_cast<size_t>(input_index(*r, "recovery.restart"));
  const SobolIndex& s = r->global.sobol.index[swap];
  const SobolIndex& n = r->global.sobol.index[restart];
  // d = goodput(ntp) - goodput(spare_substitution) depends on spare_swap alone (linearly, up to
  // the replications' common noise): its first-order and total indices are 1 within their errors.
  EXPECT_NEAR(s.first_order.value, 1.0, std::max(0.1, 4 * s.first_order.stderr_));
  EXPECT_NEAR(s.total.value, 1.0, std::max(0.1, 4 * s.total.stderr_));
  // restart changes no evaluation (f(AB_restart) = f(A) on every row): both indices are exactly
  // 0, as is their bootstrap error.
  EXPECT_EQ(n.first_order.value, 0.0);
  EXPECT_EQ(n.total.value, 0.0);
  EXPECT_EQ(n.total.stderr_, 0.0);
  EXPECT_GT(s.total.stderr_, 0.0);
  // 64 rows of A and B, 2 x 64 of AB_i; convergence at 16, 32 and 64 rows.
  ASSERT_EQ(r->global.sobol.convergence.size(), 3u);
  EXPECT_EQ(r->global.sobol.convergence[0].rows, 16);
  // 1 resolved + 2 x 2 one at a time + 11 for the break-even + 64 x (2 + 2) global.
  EXPECT_EQ(r->evaluations, 1 + 4 + 11 + 256);
  const std::string summary = sensitivity_summary(*r);
  EXPECT_NE(summary.find("decisive input: recovery.spare_swap"), std::string::npos) << summary;
  EXPECT_NE(summary.find("Sobol' indices of goodput(ntp) - goodput(spare_substitution)"),
            std::string::npos)
      << summary;
}

TEST_F(Sensitivity, TotalIndicesOfAnInteractionMatchTheClosedForm) {
  // With the failure rate uncertain too, d = c x rate x (spare_swap - reconfigure): a product of
  // independent uniforms X = rate on [1, 4]e-3/h and Z = spare_swap - 2 min on [-90, 480] s. Its
  // Sobol' variances are V_X = Var X (E Z)^2, V_Z = (E X)^2 Var Z and the interaction
  // V_XZ = Var X Var Z, so S_X = V_X / V < ST_X = (V_X + V_XZ) / V, and likewise for Z.
  std::string text = kPauseOnly;
  text += "  failures.processes[0].rate: [\"1e-3/h\", \"4e-3/h\"]\n";
  auto r = run_sensitivity(write("s.yaml", text), {}, options(2, 128));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const double ex = 2.5, vx = 9.0 / 12, ez = 195, vz = 570.0 * 570 / 12;
  const double v_x = vx * ez * ez, v_z = ex * ex * vz, v_xz = vx * vz;
  const double v = v_x + v_z + v_xz;
  const auto swap = static_cast<size_t>(input_index(*r, "recovery.spare_swap"));
  const auto rate = static_cast<size_t>(input_index(*r, "failures.processes[0].rate"));
  const auto& idx = r->global.sobol.index;
  // Closed form: S_Z 0.776, ST_Z 0.869, S_X 0.131, ST_X 0.224. The simulated d carries the
  // replications' Poisson noise (common to both strategies): within 4 bootstrap errors.
  EXPECT_NEAR(idx[swap].first_order.value, v_z / v, 4 * idx[swap].first_order.stderr_);
  EXPECT_NEAR(idx[swap].total.value, (v_z + v_xz) / v, 4 * idx[swap].total.stderr_);
  EXPECT_NEAR(idx[rate].first_order.value, v_x / v, 4 * idx[rate].first_order.stderr_);
  EXPECT_NEAR(idx[rate].total.value, (v_x + v_xz) / v, 4 * idx[rate].total.stderr_);
  // The interaction shows in the total index of the rate: its interval excludes 0.
  EXPECT_GT(idx[rate].total.ci95_lo, 0.0);
  EXPECT_LT(idx[rate].total.stderr_, 0.1);
}

TEST_F(Sensitivity, WithoutIndicesOnlyTheTwoHypercubesRun) {
  SensitivityOptions o = options(2, 16);
  o.indices = false;
  auto with = run_sensitivity(write("s.yaml", kPauseOnly), {}, options(2, 16));
  auto without = run_sensitivity((dir_ / "s.yaml").string(), {}, o);
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_FALSE(without->global.indices);
  // The AB_i rows cost N per input (2 inputs x 16).
  EXPECT_EQ(with->evaluations - without->evaluations, 32);
  // The same worlds, so the same win probabilities.
  EXPECT_EQ(with->global.win_probability, without->global.win_probability);
}

TEST_F(Sensitivity, BreakEvenIsFoundWhenTheResolvedValueLiesOutsideTheRange) {
  std::string text = kPauseOnly;
  text =
      text.substr(0, text.find("uncertain:")) + "uncertain:\n  recovery.spare_swap: [30s, 3min]\n";
  SensitivityOptions o = options(2, 0);
  auto r = run_sensitivity(write("s.yaml", text), {}, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  // Resolved 5 min lies above the range: d < 0 at 30 s, > 0 at 3 min and 5 min; one tie, at 2 min.
  ASSERT_EQ(r->break_even.size(), 1u);
  EXPECT_TRUE(r->break_even[0].runner_up_below);
  EXPECT_NEAR(r->break_even[0].resolution, 150.0 / 2048.0, 1e-9);
  EXPECT_NEAR(r->break_even[0].value, 120.0, r->break_even[0].resolution + 1e-9);
}

TEST_F(Sensitivity, DistributionsAreSampledThroughTheirQuantiles) {
  std::string text = kPauseOnly;
  text = text.substr(0, text.find("uncertain:")) +
         "uncertain:\n"
         "  recovery.spare_swap: {lognormal: {median: 2min, sigma: 0.5, high: 10min}}\n"
         "  recovery.restart: {triangular: [5min, 10min, 20min]}\n"
         "  recovery.detection: {normal: {mean: 30s, sd: 10s}}\n";
  auto r = run_sensitivity(write("s.yaml", text), {}, options(2, 64));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->inputs.size(), 3u);
  const UncertainInput& swap = r->inputs[0];
  EXPECT_EQ(swap.distribution.kind, DistributionKind::kLognormal);
  // One at a time at the 5% and 95% quantiles: 120 s x exp(-+0.5 z(0.95)) of the lognormal
  // truncated at 10 min (which holds 0.9993 of its mass).
  const double z = 1.6448536269514722;
  EXPECT_NEAR(swap.lo, 120 * std::exp(-0.5 * z), 0.01 * swap.lo);
  EXPECT_NEAR(swap.hi, 120 * std::exp(0.5 * z), 0.01 * swap.hi);
  EXPECT_EQ(oat_rule(swap), "5%/95% quantiles");
  EXPECT_EQ(describe_distribution(swap), "lognormal(median 2min, sigma 0.5) in [0s, 10min]");
  EXPECT_EQ(r->inputs[1].distribution.kind, DistributionKind::kTriangular);
  EXPECT_EQ(r->inputs[2].distribution.low, 0.0);  // normal truncated at 0 by default
  // Every sampled value lies in its distribution's support.
  for (const auto& x : r->global.x) {
    EXPECT_LE(x[0], 600.0);
    EXPECT_GE(x[1], 300.0);
    EXPECT_LE(x[1], 1200.0);
    EXPECT_GE(x[2], 0.0);
  }
  // spare_substitution wins iff spare_swap < 2 min (the median): P = 0.5 / F(10 min) = 0.5003;
  // the Wilson interval of the 128 worlds covers it, and the break-even is at 2 min.
  const double p = swap.distribution.cdf(120.0);
  EXPECT_NEAR(p, 0.5, 1e-3);
  EXPECT_LE(r->global.win_ci95_lo[0], p);
  EXPECT_GE(r->global.win_ci95_hi[0], p);
  ASSERT_EQ(r->break_even.size(), 1u);
  EXPECT_NEAR(r->break_even[0].value, 120.0, r->break_even[0].resolution + 1e-9);
  // The report says which values the one-at-a-time analysis used.
  const std::string summary = sensitivity_summary(*r);
  EXPECT_NE(summary.find("(5%/95% quantiles); lognormal(median 2min, sigma 0.5) in [0s, 10min]\n   "
                         "   source: uncertain: at "),
            std::string::npos)
      << summary;
  const auto j = sensitivity_json(*r);
  EXPECT_EQ(j["inputs"][0]["one_at_a_time"], "5%/95% quantiles");
  EXPECT_EQ(j["inputs"][1]["distribution"], "triangular[5min, 10min, 20min]");
}

TEST_F(Sensitivity, ReportPageShowsTornadoWinProbabilitiesBreakEvenAndIndices) {
  auto r = run_sensitivity(write("s.yaml", kPauseOnly), {}, options(2, 16));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto doc = nlohmann::json::parse(sensitivity_json(*r).dump());
  const reports::Page page = reports::sensitivity_page(doc);
  // Verdict first: the summary's first line.
  const std::string summary = sensitivity_summary(*r);
  EXPECT_EQ(page.verdict.headline, summary.substr(0, summary.find('\n')));
  std::vector<std::string> ids;
  for (const auto& c : page.charts) {
    ids.push_back(c.id);
    EXPECT_FALSE(c.svg.empty()) << c.id;
    EXPECT_FALSE(c.table.rows.empty()) << c.id;
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"sensitivity-tornado", "sensitivity-win",
                                           "sensitivity-break-even", "sensitivity-importance"}));
  // The break-even row carries the value in the field's units; the tornado row its margins.
  EXPECT_EQ(page.charts[2].table.rows[0][0], "recovery.spare_swap");
  EXPECT_EQ(page.charts[2].table.rows[0][1], "below");
  EXPECT_EQ(page.charts[0].table.rows[0][6], "yes");
  // Each input's source is on the page; so are the notes, as warnings.
  ASSERT_EQ(page.sections.size(), 1u);
  EXPECT_NE(page.sections[0].table.rows[0][4].find("uncertain: at "), std::string::npos);
  EXPECT_NE(page.warnings.back().find("only 16 rows per Latin hypercube"), std::string::npos);
  auto html = reports::sensitivity_report_files(doc, "s.json", "r.html", reports::Format::kHtml);
  ASSERT_TRUE(html.ok());
  EXPECT_NE(html->at(0).second.find("id=\"sensitivity-tornado\""), std::string::npos);
  auto md = reports::sensitivity_report_files(doc, "s.json", "r.md", reports::Format::kMarkdown);
  ASSERT_TRUE(md.ok());
  EXPECT_EQ(md->size(), 5u);  // the page and its four charts
  auto csv = reports::sensitivity_report_files(doc, "s.json", "r.csv", reports::Format::kCsv);
  ASSERT_FALSE(csv.ok());
  EXPECT_NE(csv.error().message.find("a sensitivity report is .html or .md"), std::string::npos);
  auto broken = doc;
  broken.erase("tornado");
  auto bad = reports::sensitivity_report_files(broken, "s.json", "r.html", reports::Format::kHtml);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(bad.error().message.find("s.json: sensitivity document does not follow"),
            std::string::npos);
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
    EXPECT_TRUE(i.distribution.range);
    EXPECT_EQ(i.distribution.p0, i.lo);
    EXPECT_EQ(i.distribution.p1, i.hi);
    // The recovery costs span their sourced range (recovery_costs.h), widened to the resolved
    // value; the rest +-50%.
    const auto row = std::find_if(recovery_cost_ranges().begin(), recovery_cost_ranges().end(),
                                  [&](const RecoveryCostRange& c) { return c.field == i.path; });
    if (row != recovery_cost_ranges().end()) {
      EXPECT_EQ(i.lo, std::min(row->low, i.base)) << i.path;
      EXPECT_EQ(i.hi, std::max(row->high, i.base)) << i.path;
      EXPECT_NE(i.source.find(std::string(row->source)), std::string::npos) << i.source;
    } else {
      EXPECT_EQ(i.source, "default +-50%");
      EXPECT_NEAR(i.lo, 0.5 * i.base, 1e-12 * i.base) << i.path;
      EXPECT_NEAR(i.hi, 1.5 * i.base, 1e-12 * i.base) << i.path;
    }
  }
  // The proportional step model has no efficiencies to vary; h100-sxm's power cap is its TDP.
  EXPECT_EQ(paths,
            (std::vector<std::string>{"checkpoint.write", "checkpoint.async_exposed_fraction",
                                      "checkpoint.async_slowdown", "checkpoint.restore",
                                      "recovery.detection", "recovery.restart",
                                      "recovery.restart_scaling.exponent", "recovery.reconfigure",
                                      "recovery.spare_swap", "failures.processes[0].rate"}));
  // The scenario's 30 s write and 2 min restore lie below the sourced ranges (51 s, 129 s).
  EXPECT_DOUBLE_EQ(in->inputs[0].lo, 30.0);
  EXPECT_DOUBLE_EQ(in->inputs[0].hi, 300.0);
  EXPECT_DOUBLE_EQ(in->inputs[8].lo, 20.0);  // spare swap: 20 s - 10 min
  EXPECT_DOUBLE_EQ(in->inputs[8].hi, 600.0);
  // Notes: the two widened ranges, then the 1 s repair that cannot halve (repairs take at least
  // 1 s) and the power cap at TDP, each left out.
  std::string all_notes;
  for (const auto& n : in->notes) all_notes += n + "\n";
  ASSERT_EQ(in->notes.size(), 4u) << all_notes;
  EXPECT_NE(in->notes[0].find("checkpoint.write: the resolved value 30s lies outside the sourced "
                              "range 51s-5min; the range is widened to include it"),
            std::string::npos)
      << in->notes[0];
  EXPECT_NE(in->notes[1].find("checkpoint.restore: the resolved value 2min"), std::string::npos)
      << in->notes[1];
  EXPECT_NE(in->notes[2].find("failures.processes[0].kinds[0].repair.mean: default bound 500ms "
                              "left it out"),
            std::string::npos)
      << in->notes[2];
  EXPECT_NE(in->notes[3].find("hardware.max_power: equals TDP"), std::string::npos) << in->notes[3];
  // A scenario whose restart does not scale has no exponent to vary, and says so.
  std::string flat = kPauseOnly;
  flat = flat.substr(0, flat.find("uncertain:"));
  flat.replace(flat.find("recovery: {"), 11, "recovery: {restart_scaling: none, ");
  auto in_flat = read_uncertain_inputs(write("flat.yaml", flat), {});
  ASSERT_TRUE(in_flat.ok()) << in_flat.error().message;
  bool noted = false;
  for (const auto& n : in_flat->notes) {
    noted = noted || n.find(
                         "recovery.restart_scaling.exponent: the scenario sets no "
                         "recovery.restart_scaling (none), left out") != std::string::npos;
  }
  EXPECT_TRUE(noted);
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
           Case{"  recovery.restart: {lognormal: {median: 10min}}\n",
                "uncertain.recovery.restart.lognormal: needs median and sigma"},
           Case{"  recovery.restart: {gamma: [1, 2]}\n",
                "uncertain.recovery.restart: unknown distribution \"gamma\""},
           Case{"  recovery.restart: {triangular: [5min, 30min, 20min]}\n",
                "uncertain.recovery.restart: the mode must lie in [low, high]"},
           Case{"  recovery.restart: {lognormal: {median: 10min, sigma: 0.5, mode: 3}}\n",
                "uncertain.recovery.restart.lognormal: unknown key \"mode\" (expected median, "
                "sigma, low, high)"},
           Case{"  recovery.restart: {normal: {mean: 10min, sd: 2W}}\n",
                "uncertain.recovery.restart: unknown duration unit \"W\" in \"2W\""},
           Case{"  recovery.restart: {lognormal: {median: 10min, sigma: 1min}}\n",
                "uncertain.recovery.restart.lognormal.sigma: expected a plain number"},
           Case{"  recovery.restart: {uniform: [5min]}\n",
                "uncertain.recovery.restart: expected [low, high]"},
           Case{"  recovery.restart: {uniform: [5min, 6min], normal: {mean: 1, sd: 1}}\n",
                "uncertain.recovery.restart: expected a range [low, high] or one distribution"},
           Case{"  checkpoint.write: {lognormal: {median: 10min, sigma: 1}}\n",
                "uncertain.checkpoint.write: the distribution reaches"},
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
  EXPECT_NE(r.error().message.find("plan up to 305 evaluations, over the limit of 50"),
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
