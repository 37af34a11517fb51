// `ntpsim sensitivity` as a user meets it (the built binary NTPSIM_BIN): outputs written together
// and the summary verdict first; Ctrl-C stops it cleanly with no output file.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "cli_harness.h"

namespace {

using ntpsim::cli_test::CliTest;
using ntpsim::cli_test::read_text;
using ntpsim::cli_test::RunResult;

const std::string kQuick = NTPSIM_SOURCE_DIR "/scenarios/quickstart.yaml";

class SensitivityCli : public CliTest {
 protected:
  SensitivityCli() : CliTest("sensitivity") {}
};

TEST_F(SensitivityCli, WritesJsonAndCsvAndPrintsTheVerdictFirst) {
  const RunResult r = run("sensitivity '" + kQuick +
                          "' --replications 2 --samples 8 --bisection-steps 2 --threads 2 "
                          "--out s.json --csv s.csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Verdict first: "<strategy> wins in P% (lo-hi%) of 16 sampled worlds; decisive input: <path>"
  // (the 8 rows of each of the two Latin hypercubes).
  const std::string first = r.out.substr(0, r.out.find('\n'));
  EXPECT_NE(first.find(" wins in "), std::string::npos) << r.out;
  EXPECT_NE(first.find("of 16 sampled worlds; decisive input: "), std::string::npos) << r.out;
  const std::string json = read_text(work() / "s.json");
  EXPECT_NE(json.find("\"kind\": \"sensitivity\""), std::string::npos);
  const std::string csv = read_text(work() / "s.csv");
  EXPECT_EQ(csv.rfind("input,strategy,low,high,goodput_low,goodput_high,", 0), 0u) << csv;
  // 16 default inputs (9 recovery costs over their sourced ranges, 7 more +-50%) x the quick
  // start's 8 strategies, plus the header.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 16 * 8) << csv;
  // The summary names where each default range comes from.
  EXPECT_NE(r.out.find("source: sourced range 20s-10min: in-job restart onto a spare"),
            std::string::npos)
      << r.out;
  EXPECT_NE(json.find("\"total\": {"), std::string::npos);
}

TEST_F(SensitivityCli, WritesTheReportPageAndReportRendersTheDocument) {
  // Two strategies that differ only in the pause per failure; spare_swap lognormal.
  std::ofstream((work() / "p.yaml").string())
      << "name: p\n"
         "cluster: {domains: 5, gpus_per_domain: 8, spare_domains: 1}\n"
         "workload: llama3-8b\n"
         "layout: {tp: 8, pp: 1, dp: 4}\n"
         "hardware: h100-sxm\n"
         "model: proportional\n"
         "failures:\n"
         "  processes:\n"
         "    - component: gpu\n"
         "      rate: \"2e-3/h\"\n"
         "      distribution: exponential\n"
         "      kinds:\n"
         "        - {name: hardware, share: 1, repair: {distribution: fixed, mean: \"1s\"}}\n"
         "checkpoint: {interval: \"1h\", write: \"30s\", restore: \"2min\"}\n"
         "recovery: {detection: \"30s\", restart: \"10min\", reconfigure: \"2min\", "
         "spare_swap: \"5min\"}\n"
         "strategies: [spare_substitution, {name: ntp, resume: in_place}]\n"
         "horizon: \"10d\"\nreplications: 2\nseed: 7\n"
         "uncertain:\n"
         "  recovery.spare_swap: {lognormal: {median: 2min, sigma: 0.5, high: 10min}}\n";
  const RunResult r =
      run("sensitivity p.yaml --samples 8 --bisection-steps 2 --threads 2 --out s.json "
          "--report s.html");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read_text(work() / "s.html");
  for (const char* id : {"sensitivity-tornado", "sensitivity-win", "sensitivity-break-even",
                         "sensitivity-importance"}) {
    EXPECT_NE(html.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  EXPECT_NE(html.find("5%/95% quantiles"), std::string::npos);
  // `ntpsim report` renders the same document as Markdown with its charts beside it.
  const RunResult md = run("report s.json -o r.md");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_TRUE(std::ifstream((work() / "r-sensitivity-tornado.svg").string()).good());
}

TEST_F(SensitivityCli, InterruptedAnalysisResumesToIdenticalResults) {
  // The quick start, 8 replications per evaluation, one thread: several seconds in all, so the
  // signal, sent once two evaluations are recorded, lands mid-analysis.
  const std::vector<std::string> args = {
      "sensitivity",       kQuick, "--replications", "8", "--samples", "8",
      "--bisection-steps", "2",    "--threads",      "1", "-q"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = args;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  auto lines = [this] {
    const std::string text = read_text(work() / "s.progress");
    return std::count(text.begin(), text.end(), '\n');
  };
  const RunResult stopped =
      interrupt_when(with({"--out", "resumed.json", "--resume", "s.progress"}), SIGINT,
                     [&] { return lines() >= 3; });
  EXPECT_EQ(stopped.exit_code, 1) << stopped.err;
  EXPECT_NE(stopped.err.find("no output file written; the finished evaluations are kept in "
                             "s.progress: run the same command again to continue"),
            std::string::npos)
      << stopped.err;
  EXPECT_FALSE(std::ifstream((work() / "resumed.json").string()).good());
  const auto recorded = lines();
  EXPECT_GE(recorded, 3);
  std::string words;
  for (const auto& a : with({"--out", "resumed.json", "--resume", "s.progress"})) {
    words += "'" + a + "' ";
  }
  const RunResult resumed = run(words);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_FALSE(std::ifstream((work() / "s.progress").string()).good());  // removed when done
  std::string clean_words;
  for (const auto& a : with({"--out", "clean.json"})) clean_words += "'" + a + "' ";
  const RunResult clean = run(clean_words);
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(read_text(work() / "resumed.json"), read_text(work() / "clean.json"));
}

TEST_F(SensitivityCli, InterruptedBySigintWritesNothing) {
  const RunResult r = interrupt({"sensitivity", kQuick, "--replications", "100000", "--threads",
                                 "2", "-q", "--out", "s.json", "--csv", "s.csv"},
                                SIGINT);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("interrupted after 0 of at most"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; no output file written"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream((work() / "s.json").string()).good());
  EXPECT_FALSE(std::ifstream((work() / "s.csv").string()).good());
}

}  // namespace
