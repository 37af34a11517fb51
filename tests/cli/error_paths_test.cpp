// Every error path of the `ntpsim` CLI, run as a user meets it (the built binary
// NTPSIM_BIN, cli_harness.h). One table row per path: the arguments, the files to create first, the
// expected exit code (2 bad input, 1 runtime failure) and substrings of the message. Every row
// also checks the shape of a failure: nothing on stdout, exactly one stderr line starting
// "ntpsim: error: ", and the scratch folder holding afterwards exactly what it held before (no
// output file, no temporary). Rows that need an unreadable file skip when run as root (a chmod 000
// file stays readable to root).
//
// The meta-test keeps the table complete: it scans tools/ntpsim/cmd_*.cpp for the string literals
// given to Error::bad_input(...) / Error::runtime(...) and fails when a literal's fixed text (its
// parts between "{}" placeholders) appears in no expected message of the table, nor in another
// test under tests/ (the --resume and interruption paths are tested by their owners), nor in the
// commented allow-list of paths that a test cannot reach.
//
// Inputs are tiny (a 32-GPU scenario over 2 days, 2 replications, 1 thread): each row runs the
// binary once in well under a second.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "cli_harness.h"
#include "error_literals.h"
#include "tests/fixtures/tiny_job.h"

namespace {

namespace fs = std::filesystem;

using ntpsim::cli_test::call_literals;
using ntpsim::cli_test::CliTest;
using ntpsim::cli_test::fixed_parts;
using ntpsim::cli_test::read_text;
using ntpsim::cli_test::RunResult;

// ---- inputs -------------------------------------------------------------------------------------

// A 32-GPU job with frequent failures: a run takes milliseconds.
const std::string kScenario =
    std::string("name: tiny\n") + ntpsim::test_fixtures::kTinyJob +
    "horizon: \"2d\"\n" "replications: 2\n" "seed: 7\n";

// Two candidates over kScenario (written as s.yaml), 2 replications each.
constexpr const char* kPlan = R"(base: s.yaml
search:
  domains: [3, 4]
  spare_domains: [0]
  dp: derive
  strategies: [checkpoint_restart]
target: {goodput: "50%", confidence: "80%"}
prices: {gpu_hour: 2.0, energy_per_mwh: 100}
confirm: {min_replications: 2, max_replications: 2, max_finalists: 2}
)";

constexpr const char* kTrace = "start,end,unit,kind\n0,3600,n1,gpu\n7200,,n2,gpu\n";

// "@SRC@" in arguments and expectations stands for the source tree.
std::string expand(std::string text) {
  const std::string key = "@SRC@";
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
    text.replace(at, key.size(), NTPSIM_SOURCE_DIR);
  }
  return text;
}

// One file or folder a row creates in the scratch folder before running ntpsim.
struct Input {
  enum class Kind { kText, kDir, kUnreadable, kNtpsim };
  Kind kind = Kind::kText;
  std::string path;
  std::string text;  // kText, kUnreadable: the content; kNtpsim: ntpsim arguments creating `path`
};

Input text(std::string path, std::string content) {
  return {Input::Kind::kText, std::move(path), std::move(content)};
}
Input dir(std::string path) {
  return {Input::Kind::kDir, std::move(path), ""};
}
// A file with mode 000 (rows with one skip as root).
Input unreadable(std::string path, std::string content) {
  return {Input::Kind::kUnreadable, std::move(path), std::move(content)};
}
// A file made by a successful ntpsim run (earlier inputs exist by then).
Input made_by(std::string path, std::string args) {
  return {Input::Kind::kNtpsim, std::move(path), std::move(args)};
}

Input scenario() {
  return text("s.yaml", kScenario);
}
Input plan() {
  return text("p.yaml", kPlan);
}

// ---- the table ----------------------------------------------------------------------------------

struct Row {
  std::string name;  // the test's name: letters, digits, underscores
  std::string args;  // shell words after `ntpsim`, run in the scratch folder
  std::vector<Input> inputs;
  int exit_code = 2;
  std::vector<std::string> expect;  // substrings of stderr
};

// The rows, one group per command (clang-format off: one row reads as one table line or two).
// clang-format off
void usage_rows(std::vector<Row>& t) {
  // CLI11 parse errors: one located line, exit 2, naming the help to read.
  t.push_back({"unknown_subcommand", "frobnicate", {}, 2,
               {"unknown command 'frobnicate' (see 'ntpsim --help')"}});
  t.push_back({"mistyped_subcommand", "rnu s.yaml", {scenario()}, 2,
               {"unknown command 'rnu'; did you mean 'run'? (see 'ntpsim --help')"}});
  t.push_back({"unknown_option", "--bogus", {}, 2, {"unknown option '--bogus' (see 'ntpsim --help')"}});
  t.push_back({"mistyped_top_level_option", "--verison", {}, 2,
               {"unknown option '--verison'; did you mean '--version'?"}});
  t.push_back({"unknown_subcommand_option", "run s.yaml --bogus", {scenario()}, 2,
               {"run: unknown option '--bogus' (see 'ntpsim run --help')"}});
  t.push_back({"mistyped_option_with_value", "run s.yaml --replication 5", {scenario()}, 2,
               {"run: unknown option '--replication'; did you mean '--replications'? "
                "(see 'ntpsim run --help')"}});
  t.push_back({"mistyped_option_with_equals", "sweep s.yaml --vary=layout.dp=1 --thread=2",
               {scenario()}, 2, {"sweep: unknown option '--thread'; did you mean '--threads'?"}});
  t.push_back({"mistyped_option_single_dash", "plan p.yaml -resume x", {scenario(), plan()}, 2,
               {"plan: unknown option '-resume'; did you mean '--resume'?"}});
  t.push_back({"option_of_another_command", "plan p.yaml --vary layout.dp=1", {scenario(), plan()},
               2, {"plan: unknown option '--vary'; it is an option of 'sweep' "
                   "(see 'ntpsim plan --help')"}});
  t.push_back({"unknown_short_option", "run s.yaml -x", {scenario()}, 2,
               {"run: unknown option '-x' (see 'ntpsim run --help')"}});
  t.push_back({"extra_argument", "run s.yaml other.yaml", {scenario()}, 2,
               {"run: unexpected argument 'other.yaml': run takes 1 argument (scenario)"}});
  t.push_back({"missing_positional", "check", {}, 2,
               {"scenario is required", "(see 'ntpsim check --help')"}});
  t.push_back({"missing_required_option", "fit raw.csv", {}, 2, {"--output is required"}});
  t.push_back({"missing_option_value", "check s.yaml --set", {scenario()}, 2,
               {"--set: 1 required TEXT missing"}});
  t.push_back({"extra_positional", "strategies extra", {}, 2,
               {"strategies: unexpected argument 'extra': strategies takes no arguments",
                "(see 'ntpsim strategies --help')"}});
  t.push_back({"not_a_number", "run s.yaml --replications abc", {scenario()}, 2,
               {"--replications: Value abc not in range 1 to 1000000"}});
  t.push_back({"number_out_of_range", "plan p.yaml --threads 0", {scenario(), plan()}, 2,
               {"--threads: Value 0 not in range 1 to 4096"}});
  t.push_back({"fraction_for_an_integer", "trace t.csv --nodes 1.5", {text("t.csv", kTrace)}, 2,
               {"--nodes: Value 1.5 not in range 1 to"}});
  t.push_back({"negative_node_count", "trace t.csv --nodes -3", {text("t.csv", kTrace)}, 2,
               {"--nodes: Value -3 not in range 1 to"}});
  t.push_back({"negative_seed", "run s.yaml --seed -1", {scenario()}, 2,
               {"--seed: '-1' is not a whole number in [0, 9223372036854775807]"}});
  t.push_back({"seed_overflow", "run s.yaml --seed 9223372036854775808", {scenario()}, 2,
               {"--seed: '9223372036854775808' is not a whole number"}});
  t.push_back({"not_a_choice", "report @SRC@/tests/reports/fixtures/small.json --format pdf", {},
               2, {"--format: pdf not in {html,md,csv}"}});
  t.push_back({"validate_threads_not_a_number", "validate --threads x", {}, 2,
               {"--threads: Value x not in range 1 to 4096"}});
  t.push_back({"fit_sm_count_out_of_range",
               "fit @SRC@/calibrate/recorded/synthetic-gemm.csv -o x.yaml --sm-count 0", {}, 2,
               {"--sm-count: Value 0 not in range 1 to 1048576"}});
  t.push_back({"fit_gemm_layouts_not_a_choice",
               "fit @SRC@/calibrate/recorded/synthetic-gemm.csv -o x.yaml --gemm-layouts apart", {},
               2, {"--gemm-layouts: apart not in {pool,separate}"}});
}

// Scenario loading, as `check` (and every scenario command) meets it.
void check_rows(std::vector<Row>& t) {
  t.push_back({"check_missing_file", "check none.yaml", {}, 2, {"none.yaml: no such file"}});
  t.push_back({"check_directory", "check d", {dir("d")}, 2,
               {"d: is a directory, expected a YAML file"}});
  t.push_back({"check_unreadable", "check u.yaml", {unreadable("u.yaml", kScenario)}, 2,
               {"u.yaml: cannot open for reading"}});
  t.push_back({"check_bad_yaml", "check bad.yaml", {text("bad.yaml", "a: [1, 2\n")}, 2,
               {"bad.yaml:2:1: YAML syntax error"}});
  t.push_back({"check_empty_file", "check e.yaml", {text("e.yaml", "")}, 2,
               {"e.yaml: the file is empty"}});
  t.push_back({"check_not_utf8", "check n.yaml", {text("n.yaml", "name: \xff\n")}, 2,
               {"n.yaml:1:7: not valid UTF-8 (byte 0xFF)"}});
  t.push_back({"check_plan_given", "check p.yaml", {plan()}, 2,
               {"p.yaml:1:1: base: unknown key"}});
  t.push_back({"check_override_typo", "check s.yaml --set layout.tpp=8", {scenario()}, 2,
               {"--set layout.tpp=8:1:1: layout.tpp: unknown key (did you mean \"tp\"?)"}});
  t.push_back({"check_override_without_value", "check s.yaml --set layout.dp", {scenario()}, 2,
               {"--set layout.dp: expected FIELD.PATH=VALUE"}});
  t.push_back({"check_bad_unit", "check s.yaml --set horizon=5x", {scenario()}, 2,
               {"horizon: unknown duration unit \"x\" in \"5x\""}});
}

void run_rows(std::vector<Row>& t) {
  const std::string run = "run s.yaml -q --threads 1 --replications 2 ";
  t.push_back({"run_missing_file", "run none.yaml", {}, 2, {"none.yaml: no such file"}});
  t.push_back({"run_plan_given", "run p.yaml", {plan()}, 2, {"p.yaml:1:1: base: unknown key"}});
  t.push_back({"run_results_given", "run @SRC@/tests/reports/fixtures/small.json", {}, 2,
               {"@SRC@/tests/reports/fixtures/small.json:2:2: schema: unknown key"}});
  t.push_back({"run_impossible_layout", "run s.yaml --set layout.dp=5", {scenario()}, 2,
               {"layout.dp: PP 1 x DP 5 needs 5 TP groups of 8 GPUs"}});
  t.push_back({"run_out_is_directory", run + "--out d", {scenario(), dir("d")}, 2,
               {"--out d: is a directory; outputs are written only as regular files"}});
  t.push_back({"run_out_folder_missing", run + "--out nodir/r.json", {scenario()}, 1,
               {"nodir/r.json: cannot create the output file: No such file or directory"}});
  t.push_back({"run_csv_is_directory", run + "--out r.json --csv d", {scenario(), dir("d")}, 2,
               {"--csv d: is a directory; outputs are written only as regular files"}});
  t.push_back({"run_report_folder_missing", run + "--out r.json --csv r.csv --report nodir/r.html",
               {scenario()}, 1, {"nodir/r.html: cannot create the output file"}});
  t.push_back({"run_scenario_output_folder_missing", "run o.yaml -q --threads 1",
               {text("o.yaml", std::string(kScenario) + "outputs: {results: r.json, "
                                                         "csv: nodir/r.csv}\n")},
               1, {"nodir/r.csv: cannot create the output file"}});
  t.push_back({"run_timeline_is_directory", run + "--timeline d", {scenario(), dir("d")}, 2,
               {"--timeline d: is a directory; outputs are written only as regular files"}});
  t.push_back({"run_timeline_folder_missing",
               run + "--out r.json --report r.html --timeline nodir/t.json", {scenario()}, 1,
               {"nodir/t.json: cannot create the output file"}});
  t.push_back({"run_report_fails_after_timeline", run + "--timeline t.json --report nodir/r.md",
               {scenario()}, 1, {"--report nodir/r.md: cannot create the output file"}});
  // Policy chains (sim/strategies/README.md): each broken rule names the chain item.
  t.push_back({"run_chain_unknown_action",
               run + "--set 'strategies=[{name: mine, chain: [swap_in_domain, reduce_tpp]}]'",
               {scenario()}, 2,
               {"strategies[0].chain[1]: unknown action \"reduce_tpp\" (did you mean "
                "\"reduce_tp\"?)"}});
  t.push_back({"run_chain_after_terminal",
               run + "--set 'strategies=[{name: mine, chain: [restart, swap_in_domain]}]'",
               {scenario()}, 2,
               {"strategies[0].chain[1]: \"swap_in_domain\" after the terminal action "
                "\"restart\" (chain[0]) can never be tried"}});
  t.push_back({"run_chain_without_terminal",
               run + "--set 'strategies=[{name: mine, chain: [swap_in_domain]}]'", {scenario()}, 2,
               {"strategies[0].chain: no terminal action: end the chain with reduce_tp, "
                "drop_replica or restart"}});
  t.push_back({"run_chain_incompatible",
               run + "--set 'strategies=[{name: mine, chain: [reduce_tp, drop_replica]}]'",
               {scenario()}, 2,
               {"strategies[0].chain[1]: \"drop_replica\" and \"reduce_tp\" (chain[0]) are "
                "incompatible"}});
}

void sweep_rows(std::vector<Row>& t) {
  const std::string sweep = "sweep s.yaml -q --threads 1 --replications 2 --vary seed=1,2 ";
  t.push_back({"sweep_three_vary", "sweep s.yaml --vary seed=1 --vary seed=2 --vary seed=3",
               {scenario()}, 2, {"sweep: at most two --vary"}});
  t.push_back({"sweep_malformed_vary", "sweep s.yaml --vary seed", {scenario()}, 2,
               {"--vary 'seed': expected path=v1,v2,... or path=start:stop:step"}});
  t.push_back({"sweep_unknown_field", "sweep s.yaml -q --vary nosuch.x=1,2", {scenario()}, 2,
               {"--vary nosuch.x=1", "nosuch: unknown key"}});
  t.push_back({"sweep_negative_seed", "sweep s.yaml --vary seed=1 --seed -1", {scenario()}, 2,
               {"--seed: '-1' is not a whole number in [0, 9223372036854775807]"}});
  t.push_back({"sweep_plan_given", "sweep p.yaml --vary seed=1,2", {plan()}, 2,
               {"p.yaml:1:1: base: unknown key"}});
  t.push_back({"sweep_out_is_directory", sweep + "--out d", {scenario(), dir("d")}, 2,
               {"--out d: is a directory; outputs are written only as regular files"}});
  t.push_back({"sweep_report_folder_missing", sweep + "--report nodir/r.html", {scenario()}, 1,
               {"nodir/r.html: cannot create the output file"}});
  // The JSON written first is removed when the report then fails: all outputs or none.
  t.push_back({"sweep_report_fails_after_out", sweep + "--out o.json --report nodir/r.html",
               {scenario()}, 1, {"nodir/r.html: cannot create the output file"}});
}

void sensitivity_rows(std::vector<Row>& t) {
  const std::string sens =
      "sensitivity s.yaml -q --threads 1 --set 'strategies=[checkpoint_restart,ntp]' ";
  const std::string u = std::string(kScenario) + "uncertain:\n";  // the entry is line 21
  t.push_back({"sensitivity_one_strategy", "sensitivity s.yaml -q --samples 0 --bisection-steps 1",
               {scenario()}, 2, {"s.yaml: strategies: sensitivity needs at least two"}});
  t.push_back({"sensitivity_unknown_field", "sensitivity u.yaml -q",
               {text("u.yaml", u + "  recovery.restrat: [5min, 20min]\n")}, 2,
               {"u.yaml:21:3: uncertain.recovery.restrat: no such scalar field"}});
  t.push_back({"sensitivity_wrong_unit", "sensitivity u.yaml -q",
               {text("u.yaml", u + "  recovery.restart: [5min, 20W]\n")}, 2,
               {"u.yaml:21:28: uncertain.recovery.restart: unknown duration unit \"W\"",
                "(a duration like the field)"}});
  t.push_back({"sensitivity_not_a_range", "sensitivity u.yaml -q",
               {text("u.yaml", u + "  recovery.restart: 5min\n")}, 2,
               {"u.yaml:21:21: uncertain.recovery.restart: expected a range [low, high]"}});
  t.push_back({"sensitivity_reversed_range", "sensitivity u.yaml -q",
               {text("u.yaml", u + "  recovery.restart: [20min, 5min]\n")}, 2,
               {"u.yaml:21:21: uncertain.recovery.restart: low must be below high"}});
  t.push_back({"sensitivity_bound_out_of_range", "sensitivity u.yaml -q",
               {text("u.yaml", u + "  recovery.restart: [5min, 20y]\n")}, 2,
               {"u.yaml:21:21: uncertain.recovery.restart: bound 20y is not valid for the field",
                "must be between 0s and 1y"}});
  t.push_back({"sensitivity_unknown_distribution", "sensitivity u.yaml -q",
               {text("u.yaml", u + "  recovery.restart: {gamma: [1, 2]}\n")}, 2,
               {"u.yaml:21:22: uncertain.recovery.restart: unknown distribution \"gamma\""}});
  t.push_back({"sensitivity_distribution_tail_invalid", "sensitivity u.yaml -q",
               {text("u.yaml", u + "  recovery.restart: {lognormal: {median: 1d, sigma: 2}}\n")},
               2,
               {"u.yaml:21:21: uncertain.recovery.restart: the distribution reaches",
                "(truncate it with low: or high:), which is not valid for the field"}});
  t.push_back({"sensitivity_report_as_csv", sens + "--samples 8 --bisection-steps 1 --report r.csv",
               {scenario()}, 2,
               {"--report r.csv: a sensitivity report is .html or .md (--csv writes the tornado "
                "CSV)"}});
  t.push_back({"sensitivity_misspelt_section", "sensitivity u.yaml -q",
               {text("u.yaml", std::string(kScenario) + "uncertian:\n  recovery.restart: [5min, 20min]\n")},
               2, {"u.yaml:20:1: uncertian: unknown key (did you mean \"uncertain\"?)"}});
  t.push_back({"sensitivity_too_many_evaluations", sens + "--max-evaluations 10", {scenario()}, 2,
               {"evaluations, over the limit of 10"}});
  t.push_back({"sensitivity_too_few_samples", "sensitivity s.yaml --samples 3", {scenario()}, 2,
               {"sensitivity: --samples must be 0 or at least 8"}});
  t.push_back({"sensitivity_out_is_directory", sens + "--samples 8 --bisection-steps 1 --out d",
               {scenario(), dir("d")}, 2, {"--out d: is a directory"}});
  // The JSON written first is removed when the CSV then fails: all outputs or none.
  t.push_back({"sensitivity_csv_fails_after_out",
               sens + "--samples 8 --bisection-steps 1 --out o.json --csv nodir/t.csv",
               {scenario()}, 1, {"nodir/t.csv: cannot create the output file"}});
}

void step_rows(std::vector<Row>& t) {
  const std::string flags = "step --workload llama3-8b --profile h100-sxm --tp 8 --pp 1";
  t.push_back({"step_json_and_csv", "step s.yaml --json --csv", {scenario()}, 2,
               {"choose one of --json and --csv"}});
  t.push_back({"step_scenario_and_flags", "step s.yaml --tp 8", {scenario()}, 2,
               {"give either a scenario or --workload/--profile/--tp/--pp/--dp"}});
  t.push_back({"step_flags_incomplete", flags, {}, 2,
               {"ntpsim step needs a scenario file, or --workload, --profile, --tp, --pp and "
                "--dp"}});
  t.push_back({"step_too_few_layers",
               "step --workload llama3-8b --profile h100-sxm --tp 8 --pp 64 --dp 1 --vp 2", {}, 2,
               {"pipeline split (pp): PP 64 x 2 virtual stages exceeds the workload's 32 layers"}});
  t.push_back({"step_split_with_embedding_uneven",
               "step --workload llama3-405b --profile h100-sxm --tp 8 --pp 16 --dp 64 --vp 8 "
               "--account-for-embedding-in-pipeline-split",
               {}, 2,
               {"pipeline split (pp): 126 layers with the embedding and/or loss counted (127) do "
                "not split evenly into PP 16 stages"}});
  t.push_back({"step_dropout_half_off", flags + " --dp 1 --hidden-dropout 0.1 --attention-dropout 0",
               {}, 2,
               {"--hidden-dropout 0.1 and --attention-dropout 0: the step model has dropout in "
                "both places or in neither; give both as 0 or both above 0"}});
  t.push_back({"step_unknown_workload",
               "step --workload nosuch --profile h100-sxm --tp 8 --pp 1 --dp 1", {}, 2,
               {"--workload: unknown workload \"nosuch\""}});
  t.push_back({"step_scenario_as_workload",
               "step --workload s.yaml --profile h100-sxm --tp 8 --pp 1 --dp 1", {scenario()}, 2,
               {"s.yaml:2:1: --workload.cluster: unknown key"}});
  t.push_back({"step_unknown_profile", "step --workload llama3-8b --profile d --tp 8 --pp 1 --dp 1",
               {}, 2, {"--profile: unknown hardware profile \"d\""}});
  t.push_back({"step_model_not_a_choice", "step s.yaml --model foo", {scenario()}, 2,
               {"--model: foo not in {analytic,proportional}"}});
  t.push_back({"step_directory", "step d", {dir("d")}, 2, {"d: is a directory"}});
  t.push_back({"step_tp_over_heads",
               "step --workload llama3-8b --profile h100-sxm --tp 33 --pp 1 --dp 1", {}, 2,
               {"--tp 33 exceeds the workload's 32 attention heads"}});
  t.push_back({"step_dp_over_batch", flags + " --dp 4096", {}, 2,
               {"--dp 4096 replicas need at least 4096 sequences per iteration (one micro-batch "
                "of 1 each); the global batch is 2048"}});
  t.push_back({"step_cp_not_dividing_sequence", flags + " --dp 1 --cp 3", {}, 2,
               {"--cp 3: CP 3 splits each sequence into 6 chunks (2 x CP, causal load balance); "
                "the sequence length 8192 does not divide into them"}});
  t.push_back({"step_cp_unfused_attention", flags + " --dp 1 --cp 2 --unfused-attention", {}, 2,
               {"--unfused-attention: context parallelism (CP 2) runs on fused attention only"}});
  t.push_back({"step_context_parallel_size_zero", flags + " --dp 1 --context-parallel-size 0", {},
               2, {"--cp: Value 0 not in range 1 to 65536"}});
  t.push_back({"step_micro_over_global", flags + " --dp 1 --micro-batch-size 4096", {}, 2,
               {"micro-batch 4096 exceeds the global batch 2048"}});
  t.push_back({"step_set_without_scenario", flags + " --dp 1 --set seed=3", {}, 2,
               {"--set seed=3 applies to a scenario file; without one, give the value with a flag "
                "(--micro-batch, --global-batch, --seq-len, --recompute, --sequence-parallel, "
                "...)"}});
  t.push_back({"step_layers_per_chunk",
               "step --workload llama3-8b --profile h100-sxm --tensor-model-parallel-size 8 "
               "--pipeline-model-parallel-size 3 --dp 1 --num-layers-per-virtual-pipeline-stage 5",
               {}, 2,
               {"--num-layers-per-virtual-pipeline-stage 5: 32 layers do not split into PP 3 "
                "stages of chunks of 5 layers"}});
}

void plan_rows(std::vector<Row>& t) {
  const std::string run = "plan p.yaml -q --threads 1 ";
  t.push_back({"plan_report_csv", "plan p.yaml --report r.csv", {scenario(), plan()}, 2,
               {"--report: a plan report is .html or .md; the candidates' CSV is --csv FILE"}});
  t.push_back({"plan_seed_not_a_number", "plan p.yaml --seed abc", {scenario(), plan()}, 2,
               {"--seed", "abc"}});
  t.push_back({"plan_missing_file", "plan none.yaml", {}, 2, {"none.yaml: no such file"}});
  t.push_back({"plan_directory", "plan d", {dir("d")}, 2, {"d: is a directory"}});
  t.push_back({"plan_unreadable", "plan u.yaml", {unreadable("u.yaml", kPlan)}, 2,
               {"u.yaml: cannot open for reading"}});
  t.push_back({"plan_scenario_given", "plan s.yaml", {scenario()}, 2,
               {"s.yaml:1:1: (top level): missing required field \"base\""}});
  t.push_back({"plan_base_missing", "plan q.yaml", {text("q.yaml", "base: nosuch.yaml\n")}, 2,
               {"q.yaml:1:7: base: base scenario 'nosuch.yaml' does not exist"}});
  t.push_back({"plan_out_is_directory", run + "--out d", {scenario(), plan(), dir("d")}, 2,
               {"--out d: is a directory; outputs are written only as regular files"}});
  t.push_back({"plan_csv_folder_missing", run + "--csv nodir/c.csv", {scenario(), plan()}, 1,
               {"nodir/c.csv: cannot create the output file"}});
  t.push_back({"plan_csv_fails_after_out", run + "--out o.json --csv nodir/c.csv",
               {scenario(), plan()}, 1, {"nodir/c.csv: cannot create the output file"}});
  t.push_back({"plan_report_fails_after_out", run + "--out o.json --csv c.csv --report nodir/r.html",
               {scenario(), plan()}, 1, {"nodir/r.html: cannot create the output file"}});
  t.push_back({"plan_negative_seed", "plan p.yaml --seed -1", {scenario(), plan()}, 2,
               {"--seed: '-1' is not a whole number in [0, 9223372036854775807]"}});
  // `search.layout` is `auto` or absent; with `auto`, TP, PP and DP are not given.
  auto plan_layout = [](const std::string& value) {
    std::string p = kPlan;
    return p.replace(p.find("search:\n"), 8, "search:\n  layout: " + value + "\n");
  };
  t.push_back({"plan_layout_not_auto", "plan q.yaml", {scenario(), text("q.yaml", plan_layout("manual"))}, 2,
               {"q.yaml:3:11: search.layout: 'auto' is the only value (omit it to use tp, pp and dp)"}});
  t.push_back({"plan_layout_auto_with_dp", "plan q.yaml", {scenario(), text("q.yaml", plan_layout("auto"))}, 2,
               {"q.yaml:3:11: search.layout: 'auto' chooses TP, PP and DP: remove search.dp"}});
  // `search.cp` is `auto` or absent, and `auto` needs `search.layout: auto`.
  auto plan_cp = [](const std::string& value) {
    std::string p = kPlan;
    return p.replace(p.find("search:\n"), 8, "search:\n  cp: " + value + "\n");
  };
  t.push_back({"plan_cp_not_auto", "plan q.yaml", {scenario(), text("q.yaml", plan_cp("4"))}, 2,
               {"q.yaml:3:7: search.cp: 'auto' is the only value (omit it to keep the base's CP)"}});
  t.push_back({"plan_cp_auto_without_layout", "plan q.yaml",
               {scenario(), text("q.yaml", plan_cp("auto"))}, 2,
               {"q.yaml:3:7: search.cp: 'auto' chooses CP with the layout: add search.layout: "
                "auto"}});
}

void report_rows(std::vector<Row>& t) {
  const std::string small = "@SRC@/tests/reports/fixtures/small.json";
  t.push_back({"report_no_output", "report " + small, {}, 2,
               {"report: give -o REPORT and/or --timeline TRACE.json"}});
  t.push_back({"report_missing_file", "report none.json -o r.html", {}, 2,
               {"none.json: cannot open the results file"}});
  t.push_back({"report_directory", "report d -o r.html", {dir("d")}, 2,
               {"d: is a directory, expected a results JSON file"}});
  t.push_back({"report_unreadable", "report u.json -o r.html", {unreadable("u.json", "{}")}, 2,
               {"u.json: cannot open the results file"}});
  t.push_back({"report_bad_json", "report b.json -o r.html", {text("b.json", "{\"x\": 1\n")}, 2,
               {"b.json:2:1: not valid JSON"}});
  t.push_back({"report_yaml_given", "report s.yaml -o r.html", {scenario()}, 2,
               {"s.yaml:1:", "not valid JSON"}});
  t.push_back({"report_plan_timeline", "report pl.json --timeline t.json",
               {scenario(), plan(), made_by("pl.json", "plan p.yaml -q --threads 1 --out pl.json")},
               2, {"pl.json: a plan has no timeline (a plan runs many scenarios)"}});
  t.push_back({"report_sensitivity_timeline", "report se.json --timeline t.json",
               {text("se.json", "{\"kind\": \"sensitivity\"}\n")}, 2,
               {"se.json: a sensitivity analysis has no timeline"}});
  t.push_back({"report_plan_csv", "report pl.json -o r.csv",
               {scenario(), plan(), made_by("pl.json", "plan p.yaml -q --threads 1 --out pl.json")},
               2, {"r.csv: a plan report is .html or .md"}});
  t.push_back({"report_goodput_out_of_range", "report g.json -o r.html",
               {text("g.json",
                     R"({"schema": "ntpsim-results/1", "kind": "run", "context": {"version": "0",
  "git_sha": "x", "build_type": "Release", "scenario_name": "s", "scenario_hash": "h", "seed": 1,
  "replications": 2, "hardware_profile": "h", "profile_origin": "spec"},
  "metrics": [{"key": "goodput", "unit": "fraction"}],
  "strategies": [{"name": "a", "summary": {"goodput": {"mean": 7.5, "ci95_lo": 7.4,
  "ci95_hi": 7.6, "n": 2}}}]})")},
               2, {"g.json: strategies[0].summary.goodput.mean: 7.5 is outside [0, 1]"}});
  t.push_back({"report_timeline_of_a_sweep",
               "report @SRC@/tests/reports/fixtures/sweep.json --timeline t.json", {}, 2,
               {"t.json: the results document has no \"timeline\""}});
  t.push_back({"report_output_is_directory", "report " + small + " -o d", {dir("d")}, 2,
               {"-o d: is a directory; outputs are written only as regular files"}});
  t.push_back({"report_output_folder_missing", "report " + small + " -o nodir/r.html", {}, 1,
               {"nodir/r.html: cannot create the output file"}});
  t.push_back({"report_markdown_is_directory", "report " + small + " -o r.md", {dir("r.md")}, 2,
               {"-o r.md: is a directory; outputs are written only as regular files"}});
  t.push_back({"report_timeline_folder_missing",
               "report " + small + " -o r.html --timeline nodir/t.json", {}, 1,
               {"nodir/t.json: cannot create the output file"}});
  t.push_back({"report_fails_after_timeline",
               "report " + small + " --timeline t.json -o nodir/r.html", {}, 1,
               {"nodir/r.html: cannot create the output file"}});
  t.push_back({"report_timeline_is_directory", "report " + small + " --timeline d", {dir("d")}, 2,
               {"--timeline d: is a directory; outputs are written only as regular files"}});
}

void validate_fit_trace_rows(std::vector<Row>& t) {
  t.push_back({"validate_source_without_studies", "validate --quick --source d --out v.md",
               {dir("d")}, 2, {"d/scenarios/paper/b200-nvl32.yaml: no such file"}});
  t.push_back({"validate_out_is_directory", "validate --quick --out d", {dir("d")}, 2,
               {"d: --out is a directory; give the path of the Markdown file to write"}});

  const std::string gemm = "@SRC@/calibrate/recorded/synthetic-gemm.csv";
  const std::string fit = "fit " + gemm + " --base h100-sxm -q ";
  t.push_back({"fit_missing_file", "fit none.csv -o x.yaml", {}, 2,
               {"none.csv: cannot open raw measurement file"}});
  t.push_back({"fit_directory", "fit d -o x.yaml", {dir("d")}, 2,
               {"d: is a directory, expected a raw measurement file"}});
  t.push_back({"fit_unreadable", "fit u.csv -o x.yaml", {unreadable("u.csv", "x\n")}, 2,
               {"u.csv: cannot open raw measurement file"}});
  t.push_back({"fit_not_a_raw_file", "fit n.csv -o x.yaml", {text("n.csv", "x\n")}, 2,
               {"n.csv:1:1: missing '# format: ntpcal-raw/1' line before the columns"}});
  t.push_back({"fit_scenario_given", "fit s.yaml -o x.yaml", {scenario()}, 2,
               {"s.yaml:1:1: missing '# format: ntpcal-raw/1' line"}});
  t.push_back({"fit_needs_a_base", "fit " + gemm + " -o x.yaml", {}, 2,
               {"scale-up bandwidth (scale_up collectives) is not in the raw files: pass --base"}});
  t.push_back({"fit_unknown_base", "fit " + gemm + " -o x.yaml --base nosuch", {}, 2,
               {"--base: unknown hardware profile \"nosuch\""}});
  t.push_back({"fit_scenario_as_base", "fit " + gemm + " -o x.yaml --base s.yaml", {scenario()}, 2,
               {"s.yaml:1:1: (top level): missing required field \"peak_bf16_tflops\""}});
  // nccl-tests logs: two ranks of one host, all_reduce (busbw = algbw x 2(n-1)/n = algbw).
  const std::string nccl_log =
      "# Using devices\n"
      "#  Rank  0 Group  0 Pid  1 on h1 device  0 [0x19] NVIDIA H200\n"
      "#  Rank  1 Group  0 Pid  1 on h1 device  1 [0x29] NVIDIA H200\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n"
      "     1048576        262144     float     sum      -1   100.00   10.49   10.49      0    "
      "100.00   10.49   10.49      0\n";
  t.push_back({"fit_nccl_tests_wrong_ranks", "fit all_reduce_perf.log -o x.yaml --base h200-sxm --nccl-ranks 4",
               {text("all_reduce_perf.log", nccl_log)}, 2,
               {"all_reduce_perf.log:5:", "column 'busbw': busbw 10.49 GB/s is not algbw x 1.5"}});
  t.push_back({"fit_nccl_tests_which_collective", "fit run.log -o x.yaml --base h200-sxm",
               {text("run.log", nccl_log)}, 2,
               {"run.log:4:1: cannot tell which collective", "pass --nccl-collective"}});
  t.push_back({"fit_output_is_directory", fit + "-o d", {dir("d")}, 2,
               {"-o d: is a directory; outputs are written only as regular files"}});
  t.push_back({"fit_output_folder_missing", fit + "-o nodir/x.yaml", {}, 1,
               {"nodir/x.yaml: cannot create the output file"}});
  t.push_back({"fit_report_folder_missing", fit + "-o x.yaml --report nodir/r.csv", {}, 1,
               {"nodir/r.csv: cannot create the output file"}});

  const Input trace = text("t.csv", kTrace);
  t.push_back({"trace_unknown_extension", "trace t.txt", {text("t.txt", kTrace)}, 2,
               {"t.txt: cannot tell the format from the extension; pass --format"}});
  t.push_back({"trace_not_a_choice", "trace t.csv --format xml", {trace}, 2,
               {"--format: xml not in {infinitehbd,csv}"}});
  t.push_back({"trace_missing_file", "trace none.csv", {}, 2,
               {"none.csv: cannot read trace: No such file or directory"}});
  t.push_back({"trace_directory", "trace d.csv", {dir("d.csv")}, 2,
               {"d.csv: cannot read trace: Is a directory"}});
  t.push_back({"trace_unreadable", "trace u.csv", {unreadable("u.csv", kTrace)}, 2,
               {"u.csv: cannot open trace"}});
  t.push_back({"trace_bad_json", "trace b.json", {text("b.json", "{\"x\": 1\n")}, 2,
               {"b.json:2:1: not valid JSON"}});
  t.push_back({"trace_bad_header", "trace n.csv", {text("n.csv", "x\n")}, 2,
               {"n.csv:1: expected the column header 'start,end,unit,kind'"}});
  t.push_back({"trace_results_given", "trace @SRC@/tests/reports/fixtures/small.json", {}, 2,
               {"small.json: expected a JSON list of fault events, got object"}});
  t.push_back({"trace_to_csv_is_directory", "trace t.csv --to-csv d", {trace, dir("d")}, 2,
               {"--to-csv d: is a directory; outputs are written only as regular files"}});
  t.push_back({"trace_to_csv_folder_missing", "trace t.csv --to-csv nodir/x.csv", {trace}, 1,
               {"nodir/x.csv: cannot create the output file"}});
  t.push_back({"trace_past_time_limit", "trace h.csv",
               {text("h.csv", "#! time_unit: d\nstart,end,unit,kind\n1,1e300,n0,hard\n")}, 2,
               {"h.csv:3: a fault from 1 d to 1e+300 d reaches past the 1000-year limit on trace times"}});
  t.push_back({"trace_strict_duplicate", "trace d.csv --strict",
               {text("d.csv", "start,end,unit,kind\n0,5,n0,hard\n0,5,n0,hard\n")}, 2,
               {"d.csv:3: 1 fault(s) repeat an earlier row exactly (first: this one repeats d.csv:2)",
                "(--strict refuses repeated faults)"}});
  t.push_back({"trace_fit_overlap", "trace o.csv --fit",
               {text("o.csv", "start,end,unit,kind\n0,10,n0,hard\n8,9,n0,hard\n")}, 2,
               {"o.csv:3: node n0: a hard fault at", "inside the same node's repair of the same cause (line 2"}});
  t.push_back({"trace_fit_too_few_nodes", "trace t.csv --fit --nodes 1", {trace}, 2,
               {"t.csv: --nodes 1 is fewer than the 2 nodes the trace names"}});
  t.push_back({"trace_fit_out_is_directory", "trace t.csv --fit -o d", {trace, dir("d")}, 2,
               {"-o d: is a directory; outputs are written only as regular files"}});
  t.push_back({"trace_gpus_per_node_needs_fit", "trace t.csv --gpus-per-node 8", {trace}, 2,
               {"--gpus-per-node requires --fit"}});
  t.push_back({"trace_fit_gpus_per_node_zero", "trace t.csv --fit --gpus-per-node 0", {trace}, 2,
               {"--gpus-per-node: Value 0 not in range 1 to"}});
}

// Hostile inputs: values that read as null, nesting, NUL bytes, things that are not files where
// files are expected, huge echoed text, byte order marks, and errors found only when a trace or a
// plan's base is read, each at the file and line the user wrote.
void strict_input_rows(std::vector<Row>& t) {
  const std::string null_value = "null is not a value (remove the field from the file to use its default)";
  t.push_back({"check_set_null", "check s.yaml --set horizon=null", {scenario()}, 2,
               {"--set horizon=null:1:1: horizon: " + null_value}});
  t.push_back({"check_set_comment_reads_as_null", "check s.yaml --set 'horizon=#x'", {scenario()}, 2,
               {"--set horizon=#x:1:1: horizon: " + null_value}});
  t.push_back({"check_deep_nesting", "check deep.yaml",
               {text("deep.yaml", "a: " + std::string(100000, '['))}, 2,
               {"deep.yaml:1:1004: YAML nested deeper than 1000 levels"}});
  t.push_back({"check_nul_byte_line", "check nul.yaml",
               {text("nul.yaml", std::string("name: x\ncluster:\n  domains: 1\n  gpus_\0per: 8\n", 45))},
               2, {"nul.yaml:4:8: a NUL byte"}});
  t.push_back({"check_include_directory", "check i.yaml",
               {scenario(), dir("d"), text("i.yaml", "include: [s.yaml, d]\n")}, 2,
               {"i.yaml:1:19: include[1]: included file \"d\" is a directory, not a YAML file"}});
  t.push_back({"check_include_device", "check i.yaml", {text("i.yaml", "include: /dev/null\n")}, 2,
               {"i.yaml:1:10: include: included file \"/dev/null\" is a device, not a YAML file"}});
  t.push_back({"check_hardware_text_file_is_clipped", "check s.yaml --set hardware=./big.txt",
               {scenario(), text("big.txt", std::string(200000, 'x') + "\n")}, 2,
               {"./big.txt:1:1: (top level): expected a map of fields, got \"xxxx",
                "... (200000 bytes in all)\""}});
  t.push_back({"check_hardware_directory", "check s.yaml --set hardware=./d", {scenario(), dir("d")},
               2, {"hardware: hardware profile file \"./d\" is a directory, not a YAML file"}});
  t.push_back({"check_hardware_device", "check s.yaml --set hardware=/dev/zero", {scenario()}, 2,
               {"hardware: hardware profile file \"/dev/zero\" is a device, not a YAML file"}});
  t.push_back({"check_workload_directory", "check s.yaml --set workload=./d", {scenario(), dir("d")},
               2, {"workload: workload file \"./d\" is a directory, not a YAML file"}});
  t.push_back({"check_trace_directory", "check l.yaml",
               {scenario(), dir("d"),
                text("l.yaml", "include: s.yaml\nfailures:\n  trace: {format: csv, file: d}\n")},
               2, {"l.yaml:3:30: failures.trace.file: trace file \"d\" is a directory, not a trace file"}});
  // Found only when the trace is read: located at the scenario's `loop:` and `file:`.
  t.push_back({"run_trace_loop_over_zero_span", "run l.yaml -q --threads 1",
               {scenario(), text("z.csv", "start,end,unit,kind\n0,0,n1,gpu\n"),
                text("l.yaml", "include: s.yaml\nfailures:\n"
                               "  trace: {format: csv, file: z.csv, component: gpu, loop: true}\n")},
               2, {"l.yaml:3:59: failures.trace.loop: z.csv: cannot loop a trace whose span is 0"}});
  t.push_back({"run_trace_unreadable", "run l.yaml -q --threads 1",
               {scenario(), unreadable("u.csv", kTrace),
                text("l.yaml", "include: s.yaml\nfailures:\n"
                               "  trace: {format: csv, file: u.csv, component: gpu}\n")},
               2, {"l.yaml:3:30: failures.trace.file: u.csv: cannot open trace"}});
  // A byte order mark is not part of a CSV header, nor of the header echoed in a message.
  t.push_back({"trace_bom_before_a_bad_header", "trace b.csv",
               {text("b.csv", "\xEF\xBB\xBFstart,end,unit\n0,1,n1\n")}, 2,
               {"b.csv:1: expected the column header 'start,end,unit,kind' or "
                "'start,end,unit,kind,component', got 'start,end,unit'"}});
  t.push_back({"fit_bom_before_a_bad_raw_file", "fit b.csv -o x.yaml",
               {text("b.csv", "\xEF\xBB\xBFx\n")}, 2,
               {"b.csv:1:1: missing '# format: ntpcal-raw/1' line before the columns"}});
  // A plan's overrides are located in the plan, never reported as a command-line --set.
  const std::string plan_with = std::string("overrides:\n  - ");
  t.push_back({"plan_override_unknown_key", "plan q.yaml -q",
               {scenario(), text("q.yaml", plan_with + "nosuch.x=1\n" + kPlan)}, 2,
               {"q.yaml:2:5: nosuch: unknown key"}});
  t.push_back({"plan_override_fails_a_check", "plan q.yaml -q",
               {scenario(), text("q.yaml", plan_with + "layout.tp=80\n" + kPlan)}, 2,
               {"q.yaml:2:15: layout.tp: TP 80 does not fit in a domain of 8 GPUs"}});
  t.push_back({"plan_override_null", "plan q.yaml -q",
               {scenario(), text("q.yaml", plan_with + "horizon=~\n" + kPlan)}, 2,
               {"q.yaml:2:13: horizon: " + null_value}});
  t.push_back({"plan_override_missing_element", "plan q.yaml -q",
               {scenario(), text("q.yaml", plan_with + "failures.processes[3].rate=1/h\n" + kPlan)}, 2,
               {"q.yaml:2:5: failures.processes[3].rate: failures.processes has no element [3]"}});
}

// Output paths: only regular files, never an input or another output, never an empty name, and a
// file that was there before survives a failed run (the snapshot check compares sizes).
void output_rows(std::vector<Row>& t) {
  const std::string run = "run s.yaml -q --threads 1 --replications 2 ";
  const std::string sweep = "sweep s.yaml -q --threads 1 --replications 2 --vary seed=1,2 ";
  const std::string regular = ": is a device; outputs are written only as regular files";
  t.push_back({"run_out_is_the_scenario", run + "--out s.yaml", {scenario()}, 2,
               {"--out s.yaml: is the scenario s.yaml; refusing to overwrite an input"}});
  t.push_back({"run_out_is_the_scenario_by_another_name", run + "--out ./d/../s.yaml",
               {scenario(), dir("d")}, 2, {"--out ./d/../s.yaml: is the scenario s.yaml"}});
  t.push_back({"run_out_and_csv_same_file", run + "--out x --csv x", {scenario()}, 2,
               {"--csv x: is also the output --out x; give each output its own file"}});
  t.push_back({"run_out_and_report_same_file", run + "--out r.json --report r.json", {scenario()},
               2, {"--report r.json: is also the output --out r.json"}});
  t.push_back({"run_out_empty", run + "--out ''", {scenario()}, 2,
               {"--out: an output path must not be empty"}});
  t.push_back({"run_out_dev_null", run + "--out /dev/null", {scenario()}, 2,
               {"--out /dev/null" + regular}});
  t.push_back({"run_out_dev_full", run + "--csv /dev/full", {scenario()}, 2,
               {"--csv /dev/full" + regular}});
  t.push_back({"run_out_trailing_slash", run + "--out r.json/", {scenario()}, 2,
               {"--out r.json/: is a directory, not a file"}});
  t.push_back({"run_keeps_an_earlier_file", run + "--out r.json --csv nodir/c.csv",
               {scenario(), text("r.json", "existing results\n")}, 1,
               {"--csv nodir/c.csv: cannot create the output file"}});
  t.push_back({"run_scenario_output_is_the_scenario", "run o.yaml -q --threads 1",
               {text("o.yaml", std::string(kScenario) + "outputs: {results: o.yaml}\n")}, 2,
               {"o.yaml: is the scenario"}});
  t.push_back({"sweep_out_is_the_progress_file", sweep + "--out p.json --resume p.json",
               {scenario()}, 2,
               {"--out p.json: is the --resume progress file p.json; refusing to overwrite"}});
  t.push_back({"sweep_resume_empty", sweep + "--resume ''", {scenario()}, 2,
               {"--resume: an output path must not be empty"}});
  t.push_back({"plan_out_is_the_plan", "plan p.yaml -q --threads 1 --out p.yaml",
               {scenario(), plan()}, 2, {"--out p.yaml: is the plan p.yaml"}});
  t.push_back({"plan_csv_is_the_base", "plan p.yaml -q --threads 1 --csv s.yaml",
               {scenario(), plan()}, 2, {"--csv s.yaml: is the base scenario"}});
  t.push_back({"report_output_is_the_results", "report r.json -o r.json",
               {scenario(), made_by("r.json", run + "--out r.json")}, 2,
               {"-o r.json: is the results file r.json; refusing to overwrite an input"}});
  t.push_back({"report_timeline_is_the_output", "report r.json -o t.html --timeline t.html",
               {scenario(), made_by("r.json", run + "--out r.json")}, 2,
               {"--timeline t.html: is also the output -o t.html"}});
  t.push_back({"trace_to_csv_is_the_trace", "trace t.csv --to-csv t.csv", {text("t.csv", kTrace)},
               2, {"--to-csv t.csv: is the trace t.csv; refusing to overwrite an input"}});
  t.push_back({"fit_output_is_the_raw_file", "fit n.csv -o n.csv", {text("n.csv", "x\n")}, 2,
               {"-o n.csv: is the raw measurement file n.csv"}});
  t.push_back({"fit_report_is_the_output", "fit n.csv -o x.yaml --report x.yaml",
               {text("n.csv", "x\n")}, 2, {"--report x.yaml: is also the output -o x.yaml"}});
}

// clang-format on

std::vector<Row> rows() {
  std::vector<Row> t;
  usage_rows(t);
  check_rows(t);
  run_rows(t);
  sweep_rows(t);
  sensitivity_rows(t);
  step_rows(t);
  plan_rows(t);
  report_rows(t);
  validate_fit_trace_rows(t);
  strict_input_rows(t);
  output_rows(t);
  return t;
}

// ---- the row test -------------------------------------------------------------------------------

// Every path under `root` (relative) with its size; folders have size 0.
std::map<std::string, uintmax_t> snapshot(const fs::path& root) {
  std::map<std::string, uintmax_t> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string rel = fs::relative(e.path(), root).string();
    std::error_code ec;  // an unreadable file still has a size
    out[rel] = e.is_regular_file() ? e.file_size(ec) : 0;
  }
  return out;
}

std::string listing(const std::map<std::string, uintmax_t>& files) {
  std::string s;
  for (const auto& [path, size] : files) s += "  " + path + " (" + std::to_string(size) + " B)\n";
  return s.empty() ? "  (empty)\n" : s;
}

// How gtest shows a row (in failures and in ctest's list): the command it runs.
void PrintTo(const Row& row, std::ostream* os) {
  *os << "ntpsim " << row.args;
}

class ErrorPath : public CliTest, public ::testing::WithParamInterface<Row> {
 protected:
  ErrorPath() : CliTest("errpath") {}

  // Creates the row's inputs in work(); false (with the reason) when the row must skip.
  bool create(const std::vector<Input>& inputs, std::string& skip) {
    for (const Input& in : inputs) {
      const fs::path p = work() / in.path;
      switch (in.kind) {
        case Input::Kind::kDir:
          fs::create_directories(p);
          break;
        case Input::Kind::kText:
        case Input::Kind::kUnreadable:
          std::ofstream(p, std::ios::binary) << expand(in.text);
          if (in.kind == Input::Kind::kUnreadable) {
            if (geteuid() == 0) {
              skip = "running as root: a chmod 000 file stays readable";
              return false;
            }
            EXPECT_EQ(chmod(p.c_str(), 0), 0);
          }
          break;
        case Input::Kind::kNtpsim: {
          const RunResult r = run(expand(in.text));
          EXPECT_EQ(r.exit_code, 0) << "making " << in.path << ": " << r.err;
          EXPECT_TRUE(fs::exists(p)) << in.path << " not made by `ntpsim " << in.text << "`";
          break;
        }
      }
    }
    return true;
  }
};

TEST_P(ErrorPath, ExitCodeOneLineMessageAndNothingWritten) {
  const Row& row = GetParam();
  std::string skip;
  if (!create(row.inputs, skip)) GTEST_SKIP() << skip;
  ASSERT_FALSE(HasFailure()) << "the row's inputs could not be made";
  const auto before = snapshot(work());

  const RunResult r = run(expand(row.args));

  EXPECT_EQ(r.exit_code, row.exit_code) << "ntpsim " << row.args << "\nstderr: " << r.err;
  for (const std::string& e : row.expect) {
    EXPECT_NE(r.err.find(expand(e)), std::string::npos)
        << "expected \"" << expand(e) << "\" in stderr: " << r.err;
  }
  EXPECT_EQ(r.out, "") << "a failed run prints nothing on stdout";
  EXPECT_EQ(r.err.rfind("ntpsim: error: ", 0), 0u) << "stderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line; stderr: " << r.err;
  EXPECT_TRUE(!r.err.empty() && r.err.back() == '\n') << "stderr: " << r.err;
  const auto after = snapshot(work());
  EXPECT_EQ(after, before) << "the scratch folder changed; before:\n"
                           << listing(before) << "after:\n"
                           << listing(after);
}

INSTANTIATE_TEST_SUITE_P(Cli, ErrorPath, ::testing::ValuesIn(rows()),
                         [](const ::testing::TestParamInfo<Row>& p) { return p.param.name; });

// ---- the meta-test: no error path of tools/ntpsim/cmd_*.cpp without a row ----------------------

TEST(ErrorPathTable, LiteralScannerJoinsLiteralsAndSkipsCharactersAndComments) {
  const std::string src =
      "x; return Error::bad_input(fmt::format(\"a {} \\\"b\\\" \"  // no ( here\n"
      "  \"c(\", ')', f(y)) + \"d\"); z(\"not me\");";
  const size_t open = src.find("bad_input(") + std::string("bad_input").size();
  EXPECT_EQ(call_literals(src, open), (std::vector<std::string>{"a {} \"b\" c(", "d"}));
  EXPECT_EQ(call_literals("f(\"a\"); g(\"b\" \"c\")", 0, true),
            (std::vector<std::string>{"a", "bc"}));
  EXPECT_EQ(fixed_parts("a {} b: {:.2f}c{}"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(fixed_parts("{}: {} layers; {}"), (std::vector<std::string>{"layers"}));
}

TEST(ErrorPathTable, EveryErrorLiteralOfTheCommandsIsExpectedByATest) {
  // Paths no test can reach, by their fixed text, with the reason.
  const std::map<std::string, std::string> unreachable = {
      // `fit` reads back the profile it has just written and loaded without error from the same
      // data; this fails only on a bug in calibrate/profile.cpp's writer, or when another process
      // replaces the file between the write and the read.
      {"the written profile does not parse", "fit's self-check of its own output"},
      {"the written profile does not load", "fit's self-check of its own output"},
  };
  std::vector<std::string> expected;
  for (const Row& row : rows()) {
    for (const std::string& e : row.expect) expected.push_back(expand(e));
  }
  // Other tests (run|sweep interruption, --resume, ...): their sources, this file excluded.
  std::vector<std::pair<std::string, std::string>> other_tests;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(NTPSIM_SOURCE_DIR) / "tests")) {
    const std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || e.path().filename() == "error_paths_test.cpp") continue;
    if (ext == ".cpp" || ext == ".h" || ext == ".sh") {
      std::string joined;  // the file's string literals, as its expectations read
      for (const auto& lit : call_literals(read_text(e.path()), 0, true)) joined += lit + "\n";
      other_tests.emplace_back(e.path().string(), joined);
    }
  }
  std::vector<fs::path> sources;
  for (const auto& e : fs::directory_iterator(fs::path(NTPSIM_SOURCE_DIR) / "tools" / "ntpsim")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("cmd_", 0) == 0 && e.path().extension() == ".cpp") sources.push_back(e.path());
  }
  std::sort(sources.begin(), sources.end());
  ASSERT_GE(sources.size(), 10u) << "tools/ntpsim/cmd_*.cpp not found";

  int literals = 0;
  std::set<std::string> allowed_seen;
  for (const fs::path& file : sources) {
    const std::string src = read_text(file);
    for (const std::string call : {"Error::bad_input(", "Error::runtime("}) {
      for (size_t at = src.find(call); at != std::string::npos; at = src.find(call, at + 1)) {
        for (const std::string& lit : call_literals(src, at + call.size() - 1)) {
          ++literals;
          for (const std::string& part : fixed_parts(lit)) {
            const auto in = [&part](const std::string& text) {
              return text.find(part) != std::string::npos;
            };
            if (std::any_of(expected.begin(), expected.end(), in)) continue;
            if (unreachable.count(part) != 0) {
              allowed_seen.insert(part);
              continue;
            }
            const bool elsewhere = std::any_of(other_tests.begin(), other_tests.end(),
                                               [&in](const auto& t) { return in(t.second); });
            if (elsewhere) continue;
            ADD_FAILURE() << file.filename().string() << ": the error text \"" << part
                          << "\" (of \"" << lit
                          << "\") is expected by no row of tests/cli/error_paths_test.cpp and no "
                             "other test: add a row that triggers it, or, when no test can reach "
                             "it, an allow-list entry saying why";
          }
        }
      }
    }
  }
  // Scanning bad_input/runtime calls of every command finds dozens of literals; a handful means
  // the scanner, not the code, is broken.
  EXPECT_GE(literals, 10);
  for (const auto& [part, reason] : unreachable) {
    EXPECT_EQ(allowed_seen.count(part), 1u)
        << "stale allow-list entry \"" << part << "\" (" << reason << "): no command has it now";
  }
}

// ---- success paths of the frame: --version, --help, no subcommand -------------------------------

class CliFrame : public CliTest {
 protected:
  CliFrame() : CliTest("errpath-frame") {}
};

TEST_F(CliFrame, VersionHelpAndNoSubcommandExitZeroOnStdout) {
  const RunResult version = run("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("ntpsim ", 0), 0u) << version.out;
  EXPECT_NE(version.out.find("(git "), std::string::npos) << version.out;
  EXPECT_EQ(std::count(version.out.begin(), version.out.end(), '\n'), 1) << version.out;
  EXPECT_EQ(version.err, "");

  const RunResult none = run("");
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_NE(none.out.find("Usage:"), std::string::npos) << none.out;
  for (const char* cmd : {"check", "run", "sweep", "sensitivity", "step", "plan", "report",
                          "validate", "fit", "trace", "strategies"}) {
    EXPECT_NE(none.out.find(std::string("  ") + cmd), std::string::npos) << cmd << ": " << none.out;
  }
  EXPECT_EQ(none.err, "");

  const RunResult help = run("run --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--replications"), std::string::npos) << help.out;
  EXPECT_EQ(help.err, "");
  EXPECT_TRUE(work_is_empty());
}

// Printed output that cannot be written is a failure, not a silent exit 0.
TEST_F(CliFrame, AFullStandardOutputIsAnError) {
  std::ofstream(work() / "s.yaml") << kScenario;
  const RunResult r = run_command("( '" NTPSIM_BIN "' check s.yaml > /dev/full )");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("ntpsim: error: cannot write the standard output: No space left on device"),
            std::string::npos)
      << r.err;
}

}  // namespace
