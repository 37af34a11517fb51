// A lossless record of one Monte Carlo result (RunResult) for progress files (progress.h): what
// `ntpsim sweep --resume` stores per finished point and reads back instead of running it again.
//
// Every double round-trips exactly (exact_number), so results rebuilt from records are
// byte-identical to results computed in one go. The layout is not stored: it is a function of
// the scenario (JobLayout::make) and is rebuilt from it; the record carries the scenario hash,
// so a record is only ever read back for the scenario it was made for. Replication 0's timeline
// and failure list are not recorded (sweeps run without them).
// Thread safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "models/base/status.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

// REQUIRES: `r` was computed for `s` without a timeline.
nlohmann::ordered_json run_record(const Scenario& s, const RunResult& r);

// Rebuilds the RunResult of `record` for `s`. Bad input naming `where` (e.g. "progress.json:
// point 3") when the record is malformed or was made for another scenario.
Result<RunResult> read_run_record(const nlohmann::ordered_json& record, const Scenario& s,
                                  const std::string& where);

}  // namespace ntpsim::sim
