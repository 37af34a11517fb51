// The results document of `ntpsim run` and `ntpsim sweep` (docs/results-schema.md, the contract
// with reports/), and the CSV of one row per strategy x replication.
//
// Everything written is a function of the scenario, the seed and the replications only: no
// wall-clock time, host or thread count, so the bytes are identical for any thread count.
// Numbers are SI (seconds, joules) unless the key says otherwise; NaN is written as null (JSON)
// or an empty cell (CSV).
// Thread safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "models/base/status.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/montecarlo/sweep.h"
#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

// The context block: tool, version, git SHA, build type, scenario name/file/hash, seed, ...
nlohmann::ordered_json results_context(const Scenario& s, const RunResult& r);
// The "strategies" array: per strategy its summary (one Stat per metric) and, when asked, the
// per-replication values.
nlohmann::ordered_json strategies_json(const Scenario& s, const RunResult& r,
                                       bool with_replications);
// The full document of one run (kind "run"), with the timeline of replication 0.
nlohmann::ordered_json run_document(const Scenario& s, const RunResult& r);

// The sweep document (kind "sweep"): context of the first point, the base scenario, the first
// point's strategies at top level (without replications), and every point's strategies under
// "sweep".
nlohmann::ordered_json sweep_document(const SweepRun& sweep);

// CSV: "# key: value" context lines, a header (strategy, replication, metric keys), one row per
// strategy x replication, then aggregate rows with replication = mean, ci95_lo, ci95_hi.
std::string results_csv(const Scenario& s, const RunResult& r);

// Writes `text` to `path` atomically: a temporary file beside it, then rename. On error nothing
// is left at `path` (runtime error naming the path).
Status write_file_atomic(const std::string& path, const std::string& text);

}  // namespace ntpsim::sim
