// The recovery-strategy interface (DESIGN.md §3.4) and its factory.
//
// A strategy answers three questions for the engine, nothing else:
//  1. membership rules: which degree a TP group with k failed GPUs may run at (0 = unusable),
//     whether spare domains and in-domain idle GPUs may replace damaged units, and whether the
//     job can run only whole (R*P groups) or also as fewer whole replicas;
//  2. `shape`: given the histogram of the job's groups by degree, the job's throughput (relative
//     to the ideal healthy rate), iteration time and power;
//  3. `recovery`: how an interrupting failure is recovered (restart from the last checkpoint,
//     in-place reconfiguration, or a spare swap), given how far re-picking the job's groups got
//     (`Coverage`): a policy chain (chain.cpp) names the action that resolved it this way.
// The engine (sim/engine/engine.h) owns the cluster state and the clock; strategies are pure.
//
// Recovery cost model (also in README): the strategy's resume mechanism (`Resume`) decides. A
// restart rolls back to the last committed checkpoint (or in-memory snapshot) and pays detection
// + restart + restore; in place, a reconfiguration (dp_drop, ntp, ntp_power_boost) or a spare
// swap pays detection + reconfigure_s (or spare_swap_s) + the state transfer and loses only the
// in-flight iteration, because the surviving replicas hold the model and the optimizer state
// has a second copy (`StateCopy`).
//
// Ownership: built once per scenario by make_strategy (each strategy's factory is registered
// with it in its own file, plugin.h); immutable; the tables of model answers
// (batch shares, power ratios per TP degree) are computed at construction.
// Thread safety: const methods only; shared by all replication threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "models/hardware.h"
#include "models/step_model.h"
#include "sim/cluster/layout.h"
#include "sim/strategies/params.h"

namespace ntpsim::sim {

// The job's configuration as the engine integrates it between events.
struct JobShape {
  double rate = 0.0;             // throughput / ideal rate, reshard included; 0 = cannot run
  double rate_no_reshard = 0.0;  // the same without the reshard overhead (splits badput)
  double iteration_s = 0.0;      // the job's iteration time (the in-flight loss on a failure)
  int64_t running_gpus = 0;      // GPUs computing
  double power_w = 0.0;          // power drawn by the running GPUs
  double boost_power_w = 0.0;    // of which above nominal power
  int active_replicas = 0;       // DP replicas running
  // The batch one iteration delivers, in healthy replicas' shares (R when whole; a damaged
  // replica counts its share): what spare replicas make up to R in fixed mini-batch mode.
  double batch_replicas = 0.0;
};

enum class RecoveryKind { kRestart, kReconfigure, kSwap };

// How the job gets going again after an interrupting failure, independent of what it runs as
// afterwards (sim/strategies/README.md, "Resume mechanisms"; the strategy's `resume` parameter).
enum class Resume {
  // Every interruption restarts the job from the last persistent checkpoint: detection + restart
  // + restore, the work since that checkpoint lost. Swaps, reduced TP or dropped replicas are the
  // configuration the job restarts in.
  kRestartFromCheckpoint,
  // Every interruption restarts the job from its last in-memory snapshot (host memory, one peer
  // copy in another domain): detection + restart + memory restore, the work since that snapshot
  // lost; from the persistent checkpoint when the failures since the snapshot took out both
  // copies of some host's state.
  kRestartFromMemory,
  // No restart: swaps and reconfigurations happen in the running job, which loses only the
  // in-flight iteration and pays detection + the action + the state transfer; only the `restart`
  // action restarts (from the persistent checkpoint). Needs a second copy of every optimizer shard.
  kInPlace,
};

// Where an in-place recovery finds the lost GPU's optimizer shard. Megatron's distributed
// optimizer keeps each shard on one GPU only (kNone), so in place needs a copy: a peer GPU of
// another DP replica holds a second copy of each shard (kPeer, +12 B/param / (T P R) per GPU),
// or the optimizer is not sharded over DP (kReplicated, 12 B/param / (T P) per GPU).
enum class StateCopy { kPeer, kReplicated, kNone };

struct ResumeSpec {
  Resume mechanism = Resume::kInPlace;
  StateCopy state_copy = StateCopy::kPeer;
  // kInPlace with kNone: run anyway, the result assumes state that would be lost (a warning).
  bool allow_lost_state = false;
};

struct StrategyBuildContext;  // plugin.h

const char* to_string(Resume r);
const char* to_string(StateCopy c);

// How far re-picking the job's groups at an interruption got (JobState::reassign), in the order
// the engine tries its sources: the damaged domains' own idle GPUs, then free healthy TP groups
// (spare domains', or unused groups of job domains).
enum class Coverage {
  kInDomainSpares,  // whole (R*P groups at full degree) after in-domain swaps alone
  kFreeGroups,      // whole only once free groups joined
  kShort,           // not whole: reduced degrees, fewer replicas, or a stall
};

// Which interruptions roll a strategy back to its last checkpoint: every one, those that the
// damaged domains' own idle GPUs cannot cover, only those that leave the job short of whole
// groups (spares ran out), or none. Sets the strategy's own checkpoint interval under
// `checkpoint.interval: auto` (sim/engine/checkpoint_interval.h).
enum class RollbackExposure { kEveryInterruption, kUnlessInDomainSpares, kWhenShort, kNever };

struct MembershipRules {
  // degree_by_failed[k], k = 0..T failed GPUs in a group: the TP degree it runs at; 0 = unusable.
  std::vector<int> degree_by_failed;
  bool use_spare_domains = true;  // spare domains' groups may join the job
  bool in_domain_spares = false;  // a domain's idle GPUs may replace its failed GPUs
  bool needs_full_job = true;     // true: runs only with R*P usable groups; false: whole replicas
  // Fixed mini-batch: free healthy groups never replace damaged members one for one; they form
  // whole extra DP replicas (P groups each) that carry the batch share the job's damaged replicas
  // give up, up to the global batch (JobState::spare_replicas, with_spare_replicas).
  bool spare_replicas = false;

  bool operator==(const MembershipRules&) const = default;
};

// Per-scenario numbers every strategy's shape needs.
struct ShapeContext {
  int tp = 1, pp = 1, dp = 1;
  int64_t job_groups = 1;
  double healthy_iteration_s = 1.0;  // from the step model at (T, share 1, power 1)
  double nominal_gpu_power_w = 0.0;  // StepModel::gpu_power_w(1)
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  Strategy(const Strategy&) = delete;
  Strategy& operator=(const Strategy&) = delete;

  const std::string& name() const { return name_; }
  const std::string& label() const { return label_; }
  const MembershipRules& rules() const { return rules_; }
  const ShapeContext& shape_context() const { return ctx_; }

  // `hist[d]`, d = 0..T: the job's groups running at degree d (hist[0] = unusable members).
  // A pure function of `hist` (and the construction-time tables): the engine reuses a shape
  // whenever the same histogram comes back within a run (Engine::current_shape).
  virtual JobShape shape(const std::vector<int32_t>& hist) const = 0;
  // shape(hist), given `usable` = hist[1] + ... + hist[T], which the caller keeps: equal to
  // shape(hist) for every strategy; one whose shape sums the histogram overrides it to skip the
  // sum.
  virtual JobShape shape_counted(const std::vector<int32_t>& hist, int64_t usable) const {
    (void)usable;
    return shape(hist);
  }
  // How an interrupting failure is recovered, given what re-picking the groups achieved: a
  // function of `coverage` alone, which the engine asks once per run for each coverage. A
  // strategy whose answer for Coverage::kShort is not kRestart rejoins repaired units with a
  // planned reconfiguration.
  virtual RecoveryKind recovery(Coverage coverage) const = 0;
  // How the job resumes (make_strategy sets it from the `resume` parameters).
  const ResumeSpec& resume() const { return resume_; }
  // True when an interruption with this coverage rolls the job back: a restart action, or any
  // action under a restart mechanism.
  bool rolls_back(Coverage coverage) const {
    return resume_.mechanism != Resume::kInPlace || recovery(coverage) == RecoveryKind::kRestart;
  }
  // Derived from `recovery` and `resume`: the first coverage, in the order the engine tries its
  // sources, from which on the strategy rolls back.
  RollbackExposure rollback_exposure() const {
    if (resume_.mechanism != Resume::kInPlace) return RollbackExposure::kEveryInterruption;
    if (recovery(Coverage::kInDomainSpares) == RecoveryKind::kRestart) {
      return RollbackExposure::kEveryInterruption;
    }
    if (recovery(Coverage::kFreeGroups) == RecoveryKind::kRestart) {
      return RollbackExposure::kUnlessInDomainSpares;
    }
    return recovery(Coverage::kShort) == RecoveryKind::kRestart ? RollbackExposure::kWhenShort
                                                                : RollbackExposure::kNever;
  }
  // Power ratio (× TDP) of a job group running at `degree` (for timelines); 1 unless boosted.
  virtual double power_ratio(int degree) const {
    (void)degree;
    return 1.0;
  }

 protected:
  friend Result<std::unique_ptr<Strategy>> make_strategy(const StrategyConfig& cfg,
                                                         const StrategyBuildContext& ctx);
  Strategy(std::string name, std::string label, MembershipRules rules, ShapeContext ctx)
      : name_(std::move(name)), label_(std::move(label)), rules_(std::move(rules)), ctx_(ctx) {}

  // The healthy, whole job.
  JobShape full_shape() const;
  const ShapeContext& ctx() const { return ctx_; }

 private:
  std::string name_;
  std::string label_;
  MembershipRules rules_;
  ShapeContext ctx_;
  ResumeSpec resume_;
};

// Fixed mini-batch mode (MembershipRules::spare_replicas): `s` is the job's shape over its own R*P
// groups and `available` the whole replicas the free healthy groups form. The least of them that
// make up the batch the job's replicas give up join at the healthy pace, up to R replicas' batch:
// rate and power grow with them, the iteration time does not (a spare replica runs a healthy
// replica's iteration; a strategy whose iterations stretch to carry the batch, dp_drop with
// keep_global_batch, never has a deficit while whole spare replicas are free, because its own
// re-forming takes them first).
JobShape with_spare_replicas(JobShape s, int64_t available, const ShapeContext& c);

// What a strategy is built for: running replications (every table shape() reads), or only the
// planner's closed-form screen, which reads the rules and the resume mechanism and never calls
// shape(); a screen-only strategy leaves out the per-degree tables, which dominate building it.
enum class StrategyUse { kRun, kScreen };

// Builds the strategy named by `cfg` with its parameters (the registry's defaults filled in for
// any missing one) through its registered factory (plugin.h). Bad input: unknown name, wrongly
// typed parameter, bad choice value.
// `state_min_tp`: the smallest TP degree at which the strategy's copy of the optimizer state
// still fits (resume: in_place; 0 = no copy, the step model's bound), honoured by strategies
// that reduce TP.
Result<std::unique_ptr<Strategy>> make_strategy(const StrategyConfig& cfg,
                                                const models::StepModel& model,
                                                const JobLayout& layout,
                                                const models::HardwareProfile& hardware,
                                                int state_min_tp = 0,
                                                StrategyUse use = StrategyUse::kRun);

// The resume parameters of a strategy config (defaults filled from the registry, or a chain's
// defaults). Errors (bad input): a value not among the choices, in_place without a state copy
// and without allow_lost_state (registry.h, check_resume).
Result<ResumeSpec> resume_spec(const StrategyConfig& cfg);

}  // namespace ntpsim::sim
