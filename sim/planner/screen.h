// Closed-form screening of one planner candidate (planner.h step 2; the formulas are in
// sim/planner/README.md): the step-time model gives the healthy rate, the failure model the
// interruption rate and the share of GPUs down, and per strategy the expected goodput.
// Thread safety: pure function of its arguments.
#pragma once

#include "models/base/status.h"
#include "sim/scenario/scenario.h"
#include "sim/simulation/simulation.h"

namespace ntpsim::sim {

struct Screen {
  double ideal_tokens_per_s = 0;
  double healthy_iteration_s = 0;
  double interruptions_per_s = 0;  // job-wide, as checkpoint: auto uses it
  double interval_s = 0;           // checkpoint interval as the engine will choose it
  double exposed_s = 0;            // time lost per checkpoint (pause + background slowdown)
  double down_fraction = 0;        // expected share of GPUs down (failures x repair time)
  double short_probability = 0;    // P(the cluster has fewer healthy TP groups than the job needs)
  double short_groups = 0;         // E[groups missing]
  double damaged_domains = 0;      // E[job domains with more failed GPUs than idle ones]
  double goodput_bound = 0;        // checkpoint-only goodput (an upper bound per replication)
  double goodput_expected = 0;     // closed-form expectation for the scenario's one strategy
  double power_w = 0;              // cluster power when healthy and running (for energy)
};

// REQUIRES: s has exactly one strategy. Prepares the Simulation (its topology and step model
// from `cache` when not null: the same result); errors are its errors, as run_monte_carlo would
// give them.
Result<Screen> screen_candidate(const Scenario& s, PrepareCache* cache = nullptr);
// The same on a prepared Simulation of a one-strategy scenario.
Result<Screen> screen_candidate(const Simulation& sim);

}  // namespace ntpsim::sim
