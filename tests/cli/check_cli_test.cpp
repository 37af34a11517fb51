// `ntpsim check` as a user runs it: the built binary (NTPSIM_BIN), its exit codes, its streams,
// and that it writes nothing, whatever the scenario's `outputs:` say.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_harness.h"

namespace {

namespace fs = std::filesystem;

using ntpsim::cli_test::CliTest;
using ntpsim::cli_test::RunResult;

// A scratch folder per test; runs happen in <dir>/work.
class CheckCliTest : public CliTest {
 protected:
  CheckCliTest() : CliTest("cli") {}

  std::string write(const std::string& name, const std::string& text) const {
    const auto p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
};

std::string src(const std::string& rel) {
  return std::string(NTPSIM_SOURCE_DIR) + "/" + rel;
}

TEST_F(CheckCliTest, ValidScenarioExitsZeroAndPrintsResolvedYaml) {
  const RunResult r = run("check '" + src("scenarios/quickstart.yaml") + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("# ntpsim check: scenario \"quickstart\" is valid\n# hash: fnv1a64:", 0),
            0u);
  EXPECT_NE(r.out.find("\nhorizon: 30d\n"), std::string::npos);
  EXPECT_NE(r.out.find("  rate: 1.97e-05/h\n"), std::string::npos);
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_TRUE(work_is_empty());
}

TEST_F(CheckCliTest, JsonIsValidJsonWithSiValues) {
  const RunResult r = run("check --json '" + src("scenarios/quickstart.yaml") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["cluster"]["total_gpus"], 32256);
  EXPECT_DOUBLE_EQ(j["horizon_s"].get<double>(), 30 * 86400.0);
  EXPECT_EQ(j["strategies"].size(), 8u);  // five strategies, ntp in place and two policy chains
}

TEST_F(CheckCliTest, BadScenarioExitsTwoWithOneLocatedMessage) {
  const std::string bad = src("tests/scenario/bad/unknown_top_key.yaml");
  const RunResult r = run("check '" + bad + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err,
            "ntpsim: error: " + bad + ":2:1: clustr: unknown key (did you mean \"cluster\"?)\n");
  EXPECT_TRUE(work_is_empty());
}

TEST_F(CheckCliTest, SetOverridesAreAppliedAndValidated) {
  const std::string q = src("scenarios/quickstart.yaml");
  const RunResult ok = run("check '" + q + "' --set layout.dp=20 --set seed=9");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("  dp: 20\n"), std::string::npos);
  EXPECT_NE(ok.out.find("\nseed: 9\n"), std::string::npos);
  const RunResult bad = run("check '" + q + "' --set layout.tp=80");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "ntpsim: error: --set layout.tp=80:1:1: layout.tp: TP 80 does not fit in a "
            "domain of 72 GPUs\n");
}

TEST_F(CheckCliTest, MissingFileAndUsageErrorsExitTwo) {
  const RunResult missing = run("check no-such-scenario.yaml");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "ntpsim: error: no-such-scenario.yaml: no such file\n");
  EXPECT_EQ(run("check").exit_code, 2);
  EXPECT_EQ(run("check a.yaml --no-such-flag").exit_code, 2);
  EXPECT_TRUE(work_is_empty());
}

// A scenario that asks for every output: check must still write nothing.
TEST_F(CheckCliTest, WritesNothingEvenWhenOutputsAreConfigured) {
  const std::string f =
      write("with_outputs.yaml",
            "include: " + src("tests/scenario/good/minimal.yaml") +
                "\noutputs: {results: r.json, csv: r.csv, report: r.html, timeline: t.json}\n");
  const RunResult r = run("check '" + f + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  results: r.json\n"), std::string::npos);
  EXPECT_TRUE(work_is_empty());
  const RunResult j = run("check --json '" + f + "' --set seed=-1");
  EXPECT_EQ(j.exit_code, 2);
  EXPECT_TRUE(work_is_empty());
}

}  // namespace
