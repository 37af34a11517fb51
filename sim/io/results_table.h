// The terminal tables of `ntpsim run` and `ntpsim sweep` (DESIGN.md §7): per strategy, goodput
// with its 95% CI, the badput breakdown, interruptions, and mean/peak failed GPUs.
// Thread safety: pure functions.
#pragma once

#include <string>

#include "sim/montecarlo/montecarlo.h"
#include "sim/montecarlo/sweep.h"
#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

// A header line (scenario, GPUs, replications, checkpoint interval) and one row per strategy;
// the time to train column appears when the scenario has a token budget.
std::string run_table(const Scenario& s, const RunResult& r);
// One row per point x strategy: the varied values, goodput with CI, badput, interruptions.
std::string sweep_table(const SweepRun& sweep);

}  // namespace ntpsim::sim
