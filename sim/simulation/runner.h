// The one replication runner (DESIGN.md §3.6): replications of a prepared Simulation spread over
// threads and, through an exchange hook, over MPI ranks, in adaptive batches, within a memory
// budget, stoppable by a cancellation flag. The caller says what one replication computes and
// where it stores it (ReplicationWork); the runner owns the threads, the per-thread Engine and
// scratch, the failure draw and the batch loop.
//
// Determinism: replication i draws its failures from Simulation::failure_source(i), and work for
// replication i writes only its own result slot, so results do not depend on the thread or rank
// count. Batches are [0, min), then doubling, capped at max; the stopping point depends only on
// the results so far (ReplicationWork::target_met), never on threads.
// Ownership: run_replications keeps nothing after it returns; the Simulation and the options'
// hooks are borrowed for the call.
// Thread safety: ReplicationWork::run is called from worker threads, one replication at a time
// per thread, with distinct indices; progress likewise. grow, target_met and the exchange run on
// the calling thread between batches.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "sim/engine/engine.h"
#include "sim/engine/schedule.h"
#include "sim/failures/failure_source.h"
#include "sim/simulation/simulation.h"

namespace ntpsim::sim {

// How many replications to run: a fixed count, or adaptive between min and max.
struct ReplicationCount {
  int min = 0;
  int max = 0;
  bool fixed = true;
  // Set when the count was given as a run option rather than by the scenario: the runner then
  // refuses one expecting over kMaxFailuresPerRun failures in all (the loader checked the
  // scenario's own count).
  bool overridden = false;

  // `replications` > 0 overrides the scenario's count (fixed); else the scenario's fixed count or
  // its adaptive range (min at least 2).
  static ReplicationCount of(const Scenario& s, int replications);
  static ReplicationCount exactly(int n) { return {n, n, true, false}; }
};

struct RunnerOptions {
  int threads = 0;  // 0 = std::thread::hardware_concurrency()
  // Optional, checked by every worker before it starts a replication; once set, running
  // replications finish, no new one starts, and the run returns a runtime error "interrupted: K
  // of N replications finished". Not owned.
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(int done, int total)> progress;  // optional, after each replication
  // Replications spread over processes: rank r of `ranks` runs the contiguous block
  // [b + (n r) / ranks, b + (n (r + 1)) / ranks) of each batch [b, b + n); `exchange` (required
  // when ranks > 1) then fills in the other ranks' results, sums `events`, and returns false when
  // any rank failed. Every rank calls it once per batch, also when its own block failed.
  int rank = 0;
  int ranks = 1;
  std::function<bool(int begin, int end, bool ok, uint64_t& events)> exchange;
  // Memory budget in bytes (0 = default_memory_budget_bytes()), the result rows stored per
  // replication and whether a results document is built from them (counted in the budget).
  int64_t memory_budget_bytes = 0;
  int result_rows_per_replication = 1;
  bool results_document = false;
};

// One replication as a worker thread sees it.
struct Replication {
  int index = 0;
  Engine& engine;                             // this thread's, configured by the Simulation
  const std::vector<FailureEvent>& failures;  // time-ordered, before the horizon
  const EventSchedule& schedule;              // built from `failures`
  const FailureSource& source;                // for kind_names()
};

struct ReplicationWork {
  // Before each batch: make room for the results of replications [0, n). Optional.
  std::function<void(int n)> grow;
  // One replication; returns the engine events it processed. Required.
  std::function<uint64_t(const Replication&)> run;
  // After replications [0, n) are in: whether the adaptive target is met. Required unless fixed.
  std::function<bool(int n)> target_met;
};

struct RunnerResult {
  int replications = 0;  // replications run, [0, replications)
  uint64_t events = 0;   // engine events, all replications (all ranks)
  bool target_met = true;  // adaptive: the target was met (always true when fixed)
  // About how this process ran (threads reduced to fit the memory budget): results do not depend
  // on it.
  std::vector<std::string> notices;
};

Result<RunnerResult> run_replications(const Simulation& sim, const ReplicationCount& count,
                                      const RunnerOptions& options, const ReplicationWork& work);

// What a run holds in memory (docs/limits.md), estimated from the cluster size, the failures
// expected per replication and the stored results, with coefficients measured on the release
// build (peak RSS under /usr/bin/time -v; the measurements are in runner.cpp and
// docs/limits.md). Thread safety: pure functions.
struct MemoryEstimate {
  int64_t setup_peak_bytes = 0;  // transient, before any worker starts: the topology's graph
  int64_t shared_bytes = 0;      // held once while workers run: tables, results, the document
  int64_t per_worker_bytes = 0;  // one replication in flight: engine state and its failures
  // Peak with `workers` threads running replications.
  int64_t peak_bytes(int workers) const;
};
MemoryEstimate estimate_run_memory(int64_t cluster_gpus, double failures_per_replication,
                                   int replications, int strategies, bool results_document);

// The most worker threads, at most `requested`, whose peak stays within `budget_bytes`; 0 when
// even one does not fit. REQUIRES: requested >= 1.
int workers_within_budget(const MemoryEstimate& m, int requested, int64_t budget_bytes);

// Half of this machine's physical memory (sysconf); 8 GiB when it cannot be read.
int64_t default_memory_budget_bytes();

}  // namespace ntpsim::sim
