// Monte Carlo over replications (DESIGN.md §3.6): every strategy of a scenario on the same
// failure realizations, replications spread over threads, results independent of thread count.
// run_monte_carlo prepares a Simulation (sim/simulation/simulation.h), runs it through the one
// replication runner (sim/simulation/runner.h) and adds the warnings about its results.
//
// Replication i draws its failures from FailureSource(seed, i) (streams named per model, see
// sim/failures/failure_source.h), generated once into a vector and run under each strategy, so
// strategies are compared on common random numbers. Results are stored by replication index, so
// the output is byte-identical for any thread count. Adaptive replication (target CI half-width
// of goodput for every strategy) runs in batches whose sizes depend only on results so far
// (min, then doubling, capped at max): the stopping point does not depend on threads either.
// Ownership: run_monte_carlo returns a value owning everything it reports.
// Thread safety: run_monte_carlo is reentrant; `progress` is called from worker threads (the
// callee must be thread-safe).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "sim/cluster/layout.h"
#include "sim/engine/timeline.h"
#include "sim/metrics/metrics.h"
#include "sim/scenario/scenario.h"
#include "sim/simulation/runner.h"
#include "sim/simulation/simulation.h"

namespace ntpsim::sim {

struct StrategyRun;

// Replications spread over processes (MPI ranks, tools/ntpsim/mpi_world.h). Rank r of `ranks`
// runs the contiguous block [b + (n r) / ranks, b + (n (r + 1)) / ranks) of each batch [b, b + n)
// (rank 0 holds replication 0 and so the timeline); `exchange` then fills every rank's runs with
// the other ranks' blocks and sums the events. Every rank calls it once per batch, also when its
// own block failed (`ok` false); it returns false when any rank failed. Results stay indexed by
// replication, so the output is identical for any rank count.
struct Distribution {
  int rank = 0;
  int ranks = 1;
  std::function<bool(int begin, int end, bool ok, std::vector<StrategyRun>& runs,
                     uint64_t& events)>
      exchange;
};

struct RunOptions {
  int replications = 0;   // > 0: this many, overriding the scenario's replications
  int threads = 0;        // 0 = std::thread::hardware_concurrency()
  bool timeline = true;   // record replication 0's timeline
  std::function<void(int done, int total)> progress;  // optional, after each replication
  Distribution distribution;  // default: this process runs every replication
  // Optional cancellation (e.g. set by a SIGINT handler; tools/ntpsim/interrupt.h). Checked by
  // every worker before it starts a replication; once set, running replications finish, no new
  // one starts, and run_monte_carlo returns a runtime error "interrupted: K of N replications
  // finished" (a run whose every replication had started when the flag came completes as
  // usual). Not owned; must outlive the call.
  const std::atomic<bool>* cancel = nullptr;
  // Memory budget in bytes for the whole run (0 = default_memory_budget_bytes()). The worker
  // threads are capped so that the estimate (estimate_run_memory) stays within it, with a
  // warning; a run whose single replication does not fit is refused up front (bad input).
  int64_t memory_budget_bytes = 0;
  // Whether the caller builds the results JSON document (sim/io/results_json.h, one object per
  // strategy x replication) from the result: its size then counts in the budget.
  bool results_document = true;
};

// One failure of replication 0, for the timeline.
struct FailureRecord {
  double t_s = 0, end_s = 0;
  int domain = 0;
  int gpus = 0;
  std::string kind;
  std::string component;
  bool interrupts = true;
};

struct StrategyRun {
  std::string name;
  std::string label;
  double checkpoint_interval_s = 0;              // the interval this strategy ran at
  std::string resume;                            // its resume mechanism (strategy.h, Resume)
  std::vector<ReplicationMetrics> replications;  // index = replication
  StrategyTimeline timeline;                     // replication 0 (empty unless requested)
};

struct RunResult {
  JobLayout layout;
  std::vector<StrategyRun> strategies;
  std::vector<FailureRecord> failures;  // replication 0
  int replications = 0;
  std::string step_model;               // the step model's name
  double checkpoint_interval_s = 0;     // shared or fixed as chosen (each strategy's: StrategyRun)
  double ideal_tokens_per_s = 0;
  double horizon_s = 0;                 // simulated time per replication (the cap with a budget)
  uint64_t events = 0;                  // events processed, all strategies and replications
  std::vector<std::string> warnings;    // about the results: written with them
  // About how this process ran (threads reduced to fit the memory budget): for the user's
  // terminal, never written with the results, which do not depend on it.
  std::vector<std::string> notices;
};

Result<RunResult> run_monte_carlo(const Scenario& s, const RunOptions& options);
// The same on an already prepared simulation (prepared from the scenario it is run for).
Result<RunResult> run_monte_carlo(const Simulation& sim, const RunOptions& options);

}  // namespace ntpsim::sim
