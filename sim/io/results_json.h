// The results document of `ntpsim run` and `ntpsim sweep` (docs/results-schema.md, the contract
// with reports/), and the CSV of one row per strategy x replication.
//
// Everything written is a function of the scenario, the seed and the replications only: no
// wall-clock time, host or thread count, so the bytes are identical for any thread count.
// Numbers are SI (seconds, joules) unless the key says otherwise; NaN is written as null (JSON)
// or an empty cell (CSV).
// Thread safety: pure functions.
#pragma once

#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "sim/metrics/aggregate.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/montecarlo/sweep.h"
#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

// The answer first: the strategy with the highest mean goodput, its margin over the runner-up
// as a paired difference on common random numbers (every strategy of a run sees the same
// failures), and whether that margin is distinguishable from zero. Written as "verdict" in the
// results document and printed first by `run_table`.
struct Verdict {
  std::string metric = "goodput";
  std::string winner, winner_label;
  std::string runner_up, runner_up_label;  // empty with a single strategy
  Stat winner_stat;                        // the winner's goodput over the replications
  PairedDiff margin;                       // winner - runner-up, per replication
  // The 95% CI of the margin contains 0, or fewer than two paired replications (no CI at all).
  bool tied = false;
  std::vector<std::string> tied_with;  // every other strategy whose paired CI vs the winner has 0
  std::vector<std::string> tied_with_labels;  // the same strategies' labels (unique in a run)
  double tokens_per_s_per_gpu = std::numeric_limits<double>::quiet_NaN();  // winner's mean
  double time_to_train_days = std::numeric_limits<double>::quiet_NaN();    // with a token budget
  std::string setting;  // what achieves it: checkpoint interval, spares, the winner's parameters
};

// The verdict of one run; nullopt when no strategy has a finite mean goodput.
std::optional<Verdict> run_verdict(const Scenario& s, const RunResult& r);

// One line for the terminal: "verdict: ntp wins by +1.23 pts [0.98, 1.48] over ...".
std::string verdict_text(const Verdict& v);

// Committed tokens per second per GPU of the cluster's job and spare GPUs, per replication: the
// absolute counterpart of per_gpu_goodput (= per_gpu_goodput x ideal tokens/s / job GPUs); NaN
// when the ideal rate is unknown.
double tokens_per_s_per_gpu(const RunResult& r, double per_gpu_goodput);

// The context block: tool, version, git SHA, build type, scenario name/file/hash, seed, ...
nlohmann::ordered_json results_context(const Scenario& s, const RunResult& r);
// The "strategies" array: per strategy its summary (one Stat per metric) and, when asked, the
// per-replication values.
nlohmann::ordered_json strategies_json(const Scenario& s, const RunResult& r,
                                       bool with_replications);
// The full document of one run (kind "run"), with the timeline of replication 0 unless
// `with_timeline` is false (the CSV reads no timeline).
nlohmann::ordered_json run_document(const Scenario& s, const RunResult& r,
                                    bool with_timeline = true);
// The same document as the text `ntpsim run --out` writes: run_document(s, r).dump(1) and a
// newline, byte for byte, with the timeline streamed instead of built as a tree.
std::string run_document_text(const Scenario& s, const RunResult& r);
// The same document as the tree reports read (nlohmann::json, keys sorted), built directly
// rather than copied from run_document's ordered tree.
nlohmann::json report_document(const Scenario& s, const RunResult& r);

// The sweep document (kind "sweep"): context of the first point, the base scenario, the first
// point's strategies at top level (without replications), and every point's strategies under
// "sweep".
nlohmann::ordered_json sweep_document(const SweepRun& sweep);

}  // namespace ntpsim::sim
