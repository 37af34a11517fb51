// `ntpsim step` as a user runs it: the built binary (NTPSIM_BIN), its exit codes
// and its table, JSON and CSV output for the NTP paper's scenario.
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

class StepCliTest : public CliTest {
 protected:
  StepCliTest() : CliTest("step") {}

  static std::string paper_scenario() {
    return std::string("'") + NTPSIM_SOURCE_DIR + "/scenarios/ntp-paper-b200-nvl32.yaml'";
  }
};

TEST_F(StepCliTest, PaperScenarioJson) {
  const RunResult r = run("step " + paper_scenario() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["layout"]["tp"], 32);
  EXPECT_EQ(j["model"], "analytic");
  const auto& rows = j["rows"];
  ASSERT_GE(rows.size(), 5u);
  EXPECT_EQ(rows[0]["tp"], 32);
  EXPECT_DOUBLE_EQ(rows[0]["share_at_tdp"].get<double>(), 1.0);
  for (const auto& row : rows) {
    const int tp = row["tp"];
    EXPECT_LE(row["runs_as_tp"].get<int>(), tp);
    if (tp == 30 || tp == 28) {
      const double share = row["share_at_tdp"];
      EXPECT_GT(share, 0.85) << tp;
      EXPECT_LT(share, 1.0) << tp;
      EXPECT_GE(row["share_at_max_power"].get<double>(), share);
      EXPECT_GT(row["breakdown"]["compute_s"].get<double>(), 0.0);
    }
  }
}

TEST_F(StepCliTest, FlagsTableAndCsv) {
  const std::string args =
      "step --workload ntp-480b --profile ntp-b200-nvl32 --tp 32 --pp 8 --dp 125";
  const RunResult table = run(args);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("TP32 x PP8 x DP125"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("share@max"), std::string::npos);
  const RunResult csv = run(args + " --csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("tp,runs_as_tp,iteration_s,", 0), 0u) << csv.out;
  EXPECT_NE(csv.out.find("\n30,30,"), std::string::npos) << csv.out;
}

TEST_F(StepCliTest, ProportionalModelSplitsWorkExactly) {
  const RunResult r = run("step " + paper_scenario() + " --model proportional --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Keep the parsed document alive: a range-for over a member of a temporary reads freed memory.
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  bool found = false;
  for (const auto& row : doc.at("rows")) {
    if (row.at("tp") == 30) {
      found = true;
      EXPECT_NEAR(row.at("share_at_tdp").get<double>(), 30.0 / 32, 1e-5);
    }
  }
  EXPECT_TRUE(found) << r.out;
}

TEST_F(StepCliTest, BadInputExitsTwo) {
  RunResult r = run("step --workload ntp-480b --profile gb200-nvl27 --tp 32 --pp 8 --dp 125");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean \"gb200-nvl72\""), std::string::npos) << r.err;
  r = run("step --workload ntp-480b --profile gb200-nvl72");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--tp"), std::string::npos) << r.err;
  r = run("step " + paper_scenario() + " --json --csv");
  EXPECT_EQ(r.exit_code, 2);
  r = run("step " + paper_scenario() + " --tp 8");
  EXPECT_EQ(r.exit_code, 2);
}

// Megatron-LM's argument names give the same answer as ntpsim's own flags.
// Llama 3's schedule (the embedding and loss counted as pipeline layers) shows in the table's
// header and the JSON layout block, as in a run's resolved scenario; a layout without the options
// prints none of them.
TEST_F(StepCliTest, PipelineSplitOptionsAreShown) {
  const std::string llama3 =
      std::string("'") + NTPSIM_SOURCE_DIR + "/scenarios/hgx-h100-16k.yaml'";
  const RunResult table = run("step " + llama3);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("TP8 x PP16 x DP128 (v=8, embedding and loss counted as layers)"),
            std::string::npos)
      << table.out;
  const RunResult json = run("step " + llama3 + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out)["layout"];
  EXPECT_EQ(j["virtual_stages"], 8);
  EXPECT_EQ(j["account_for_embedding_in_pipeline_split"], true);
  EXPECT_EQ(j["account_for_loss_in_pipeline_split"], true);
  EXPECT_EQ(j["gpus"], 16384);
  const RunResult plain = run("step " + paper_scenario() + " --json");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(nlohmann::json::parse(plain.out)["layout"].contains(
      "account_for_embedding_in_pipeline_split"));
}

TEST_F(StepCliTest, MegatronAliases) {
  const RunResult own =
      run("step --workload gpt3-175b --profile a100-sxm-80gb --tp 8 --pp 8 --dp 1 --vp 3 "
          "--micro-batch 1 --global-batch 64 --seq-len 2048 --recompute selective "
          "--sequence-parallel --csv");
  const RunResult megatron =
      run("step --workload gpt3-175b --profile a100-sxm-80gb --tensor-model-parallel-size 8 "
          "--pipeline-model-parallel-size 8 --dp 1 --num-layers-per-virtual-pipeline-stage 4 "
          "--micro-batch-size 1 --global-batch-size 64 --seq-length 2048 "
          "--recompute-granularity selective --sequence-parallel --csv");
  ASSERT_EQ(own.exit_code, 0) << own.err;
  ASSERT_EQ(megatron.exit_code, 0) << megatron.err;
  EXPECT_EQ(own.out, megatron.out);
  // A different batch changes the answer (the flags are honoured, not ignored).
  const RunResult bigger =
      run("step --workload gpt3-175b --profile a100-sxm-80gb --tp 8 --pp 8 --dp 1 --vp 3 "
          "--micro-batch 1 --global-batch 128 --seq-len 2048 --recompute selective "
          "--sequence-parallel --csv");
  ASSERT_EQ(bigger.exit_code, 0) << bigger.err;
  EXPECT_NE(bigger.out, own.out);
}

// Megatron's dropout options reach the workload: 0 removes the masks' memory and traffic, the
// same as the workload's own `dropout: false`; one at 0 and the other not is refused.
TEST_F(StepCliTest, DropoutOptions) {
  const std::string base =
      "step --workload gpt3-175b --profile a100-sxm-80gb --tp 8 --pp 8 --dp 1 --vp 3 "
      "--micro-batch 1 --global-batch 64 --csv";
  const RunResult with = run(base);
  const RunResult off = run(base + " --hidden-dropout 0 --attention-dropout 0");
  const RunResult on = run(base + " --hidden-dropout 0.1 --attention-dropout 0.1");
  ASSERT_EQ(with.exit_code, 0) << with.err;
  ASSERT_EQ(off.exit_code, 0) << off.err;
  ASSERT_EQ(on.exit_code, 0) << on.err;
  EXPECT_EQ(on.out, with.out);  // the workload's default is Megatron's: dropout on
  EXPECT_NE(off.out, with.out);
  const RunResult mixed = run(base + " --hidden-dropout 0 --attention-dropout 0.1");
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("both as 0 or both above 0"), std::string::npos) << mixed.err;
}

TEST_F(StepCliTest, TableShowsTokensPerGpu) {
  const RunResult r =
      run("step --workload gpt3-175b --profile a100-sxm-80gb --tp 8 --pp 8 --dp 1 --vp 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("tokens/s/GPU"), std::string::npos) << r.out;
}

// `ntpsim run` says when the scenario's layout is far from the fastest one of the same GPUs (the
// quick start's TP 64 on GB200 NVL72) in its table and results, and keeps the layout; a
// scenario whose layout is within 10% of the fastest gets no such line.
TEST_F(StepCliTest, RunNotesALayoutFarFromTheFastest) {
  const std::string quick = std::string("'") + NTPSIM_SOURCE_DIR + "/scenarios/quickstart.yaml'";
  const RunResult r = run("run " + quick + " --replications 2 --threads 1 --out r.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("warning: layout TP 64 x PP 16 x DP 28 runs at MFU"), std::string::npos)
      << r.out;
  const auto j = nlohmann::json::parse(ntpsim::cli_test::read_text(work() / "r.json"));
  bool found = false;
  for (const auto& w : j["warnings"]) {
    found = found ||
            w.get<std::string>().find("fastest layout of the same 28672 GPUs") != std::string::npos;
  }
  EXPECT_TRUE(found) << j["warnings"].dump();
  EXPECT_EQ(j["scenario"]["layout"]["tp"], 64) << "the scenario's layout is kept";
  // The fastest layout itself: no line.
  const RunResult best = run("run " + quick +
                             " --replications 2 --threads 1 --set layout.tp=16 --set layout.pp=14"
                             " --set layout.dp=128");
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_EQ(best.out.find("warning: layout"), std::string::npos) << best.out;
}

// A layout that does not fit (Llama 3 70B at 128K tokens per sequence, CP 1): the note names the
// fastest layout of the same GPUs that fits, its CP chosen, and `ntpsim step` of that layout
// fits.
TEST_F(StepCliTest, StepSuggestsACpLayoutThatFitsALongSequence) {
  const std::string flags =
      "step --workload llama3-70b --profile h100-sxm --seq-len 131072 --global-batch 64 ";
  const RunResult r = run(flags + "--tp 8 --pp 8 --dp 8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("WARNING: the nominal layout does not fit"), std::string::npos) << r.out;
  const std::string key = "fastest layout of the same 512 GPUs that fits, TP ";
  const size_t at = r.err.find(key);
  ASSERT_NE(at, std::string::npos) << r.err;
  // "TP t x CP c x PP p x DP d," as flags.
  int tp = 0, cp = 0, pp = 0, dp = 0;
  ASSERT_EQ(std::sscanf(r.err.c_str() + at + key.size() - 3, "TP %d x CP %d x PP %d x DP %d", &tp,
                        &cp, &pp, &dp),
            4)
      << r.err;
  EXPECT_GT(cp, 1);
  EXPECT_EQ(tp * cp * pp * dp, 512);
  const RunResult fit = run(flags + "--tp " + std::to_string(tp) + " --cp " + std::to_string(cp) +
                            " --pp " + std::to_string(pp) + " --dp " + std::to_string(dp));
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  EXPECT_EQ(fit.out.find("does not fit"), std::string::npos) << fit.out;
  EXPECT_EQ(fit.err.find("that fits"), std::string::npos) << fit.err;
}

// `ntpsim step` says the same on stderr, leaving its table as it was.
TEST_F(StepCliTest, StepNotesALayoutFarFromTheFastest) {
  const std::string quick = std::string("'") + NTPSIM_SOURCE_DIR + "/scenarios/quickstart.yaml'";
  const RunResult r = run("step " + quick);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: layout TP 64 x PP 16 x DP 28 runs at MFU"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("note: layout"), std::string::npos) << r.out;
  // The fastest layout itself gets no such note.
  const RunResult best =
      run("step " + quick + " --set layout.tp=16 --set layout.pp=14 --set layout.dp=128");
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_EQ(best.err.find("note: layout"), std::string::npos) << best.err;
}

}  // namespace
