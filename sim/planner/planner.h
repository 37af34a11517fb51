// The capacity planner (`ntpsim plan`, DESIGN.md §6): the cheapest configuration per
// strategy family that meets a plan's target at its confidence, and the Pareto frontier of time
// to train against cost.
//
// Search (README.md has the closed form):
//  1. Enumerate candidates: hardware x domains x spare domains x TP x PP x DP (or derived) x
//     checkpoint interval x strategy family; each is the base scenario loaded with the candidate's
//     overrides, so invalid combinations are rejected by the scenario loader's own checks.
//  2. Screen each with the step-time model and closed-form expectations: a hard bound that no
//     replication can beat (failure-free time to train; checkpoint-only goodput) rejects for
//     sure; the expected value missing the target by `screen_margin` prunes.
//  3. Per family, in order of closed-form expected cost, confirm finalists with Monte Carlo
//     (run_monte_carlo, the candidate's strategy only) in doubling batches until a Wilson 95%
//     interval of P(target met) lies above or below the confidence level (or the batch cap is
//     reached: then the point estimate decides). A finalist whose cost lower bound is not below
//     the cheapest confirmed one is dominated and skipped.
// Determinism: the candidate order, the batches and the Monte Carlo results depend only on the
// plan and the seed, so the result is identical for any thread count.
// Resume (`ntpsim plan --resume FILE`, sim/io/progress.h, plan_progress.h): each finished
// confirmation is handed to PlanResume::record as the record "candidate/<index>"; a later run
// with the same plan_identity() recomputes enumeration and screening (cheap, deterministic) and takes each
// recorded confirmation from PlanResume::find instead of running it, so its result is identical.
// Ownership: PlanResult owns everything. Thread safety: reentrant; `progress` is called from this
// thread only.
#pragma once

#include <atomic>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/planner/plan.h"

namespace ntpsim::sim {

// What happened to a candidate, in order of how far it got.
enum class CandidateStatus {
  kInvalid,     // the scenario loader rejected the combination
  kRejected,    // a hard bound misses the target (no replication can meet it)
  kPruned,      // the closed-form expectation misses the target by the screen margin
  kDominated,   // its cost lower bound is not below a confirmed cheaper candidate's cost
  kUnexplored,  // over the family's finalist cap, never confirmed
  kRefuted,     // Monte Carlo: the target is not met at the confidence level
  kConfirmed,   // Monte Carlo: the target is met at the confidence level
};
const char* to_string(CandidateStatus s);

struct Candidate {
  // Configuration.
  std::string family;  // strategy label, e.g. "ntp_power_boost@30%"
  std::string strategy;
  double power_cap = 0;  // ntp_power_boost max_power, else 0
  std::string hardware;
  int domains = 0, spare_domains = 0, gpus_per_domain = 0;
  int tp = 0, pp = 0, dp = 0;
  int cp = 1;  // context-parallel degree (the base's, or chosen by `layout: auto`)
  double checkpoint_interval_s = 0;  // as chosen (auto resolved)
  bool auto_interval = true;
  std::vector<std::string> overrides;  // the candidate's --set list on top of the plan's
  int64_t cluster_gpus = 0;
  double domain_hour = 0;  // $ per hour of the whole cluster (spares at the spare factor)
  std::string hardware_origin;  // the profile's origin: synthetic | spec | measured | mixed

  // Closed form (screen).
  // Failure-free tokens/s per GPU of the job (tp x cp x pp x dp), from the step model; NaN when
  // the candidate was not screened (invalid).
  double ideal_tokens_per_s_per_gpu = std::numeric_limits<double>::quiet_NaN();
  double ideal_days = 0;        // token budget at the healthy rate
  double interruptions_per_day = 0;
  double goodput_bound = 0;     // checkpoint-only: no replication does better
  double goodput_expected = 0;  // closed-form expectation
  double days_bound = 0;        // failure-free time to train (token target)
  double days_expected = 0;
  double cost_bound = 0;        // $: a lower bound of the Monte Carlo cost
  double cost_expected = 0;     // $: closed form

  // Monte Carlo (confirmed or refuted candidates).
  int replications = 0;
  double p_meet = 0;            // share of replications meeting the target
  double days_p50 = 0, days_q = 0;  // time to train: median and the confidence quantile
  double goodput_mean = 0, goodput_q = 0;  // goodput: mean and the (1 - confidence) quantile
  double energy_mwh = 0;        // mean over replications (per horizon with a goodput target)
  double cost = 0;              // $: GPU-hours at mean time (or horizon) + mean energy
  // The cost's parts and its spread over the replications (each replication's own time and
  // energy priced alike; their mean is `cost`). NaN when not known (an older progress record).
  double compute_cost = std::numeric_limits<double>::quiet_NaN();  // $: GPUs incl. spares
  double energy_cost = std::numeric_limits<double>::quiet_NaN();   // $: mean energy x price
  double cost_ci95_lo = std::numeric_limits<double>::quiet_NaN();  // Student-t 95% CI of the mean
  double cost_ci95_hi = std::numeric_limits<double>::quiet_NaN();
  double cost_sd = std::numeric_limits<double>::quiet_NaN();

  CandidateStatus status = CandidateStatus::kInvalid;
  std::string reason;  // the first binding constraint, or why it was kept
};

struct FamilyResult {
  std::string family;
  int best = -1;           // index into PlanResult::candidates of the cheapest confirmed
  std::string why_not;     // when best < 0: the first binding constraint of its closest candidate
};

struct PlanResult {
  Plan plan;
  uint64_t seed = 0;
  std::vector<Candidate> candidates;  // enumeration order
  std::vector<FamilyResult> families;  // plan order
  int best = -1;                       // cheapest confirmed overall
  std::vector<int> frontier;           // Monte Carlo candidates on the (time, cost) Pareto front
  int monte_carlo_runs = 0;
  int64_t replications = 0;            // Monte Carlo replications, all finalists
};

// The progress-file hooks of PlanOptions (both optional; the planner does not know the file).
struct PlanResume {
  std::string source;  // the progress file, named in bad-input messages about its records
  // The data recorded under `key` ("candidate/<index>"), or null: run the Monte Carlo. A record
  // whose candidate description or fields do not fit is bad input naming `source`, key and field.
  std::function<const nlohmann::ordered_json*(const std::string& key)> find;
  // Called after each confirmation that ran (recorded ones are not handed back), before the next
  // starts; an error stops the plan with that error.
  std::function<Status(const std::string& key, const nlohmann::ordered_json& data)> record;
};

// Where the finalist confirmations stand (PlanOptions::counts).
struct PlanCounts {
  int finished = 0;     // confirmations finished, run or taken from the progress file
  int recorded = 0;     // of them, taken from the progress file
  int bound = 0;        // at most this many in all (fewer when finalists turn out dominated)
  std::string current;  // describe() of the finalist being confirmed; "" when none is
};

struct PlanOptions {
  int threads = 0;  // worker threads of the screen and the Monte Carlo (0 = all cores)
  std::function<void(const std::string& line)> progress;  // optional, one line per finalist
  // Optional, on this thread: before each confirmation and after the last one.
  std::function<void(const PlanCounts&)> counts;
  // Optional: RunOptions::progress of each confirmation's Monte Carlo batches (worker threads).
  std::function<void(int done, int total)> replications;
  Distribution distribution;  // MPI ranks: each Monte Carlo run's replications split (bench)
  const std::atomic<bool>* cancel = nullptr;  // set by SIGINT/SIGTERM: stop, write nothing
  PlanResume resume;                          // progress file hooks (`--resume`); default: none
};

// Errors: bad input (exit 2) for a base scenario unfit for the target or a recorded confirmation
// that does not fit; runtime (exit 1) otherwise. Interrupted by `cancel`: a runtime error
// "interrupted after K finalist confirmations; the finalist being run (...): interrupted: ...".
Result<PlanResult> run_plan(const Plan& plan, const PlanOptions& options);

// "ntp gb200-nvl72 448+2 domains TP64 PP16 DP28" (and the checkpoint interval when fixed).
std::string describe(const Candidate& c);

}  // namespace ntpsim::sim
