// The event-driven simulation of one training job under one strategy (DESIGN.md §3.3).
//
// Events (failures from a pre-generated, time-ordered list, and the repairs they schedule) are
// ordered by a binary heap keyed by (time, priority, sequence), once per replication
// (schedule.h), and replayed in that order by every strategy. Between events the job's
// configuration is fixed and work accrues as rate x duration (work is measured in "ideal seconds":
// seconds of the healthy job without checkpoints). The periodic checkpoint cycle and the end of a
// recovery pause are handled analytically inside `advance`, not as queued events, so a year of
// frequent checkpoints costs O(1) per inter-failure gap; the same-instant rule of the queue holds
// for them too: an event at time t is applied before a checkpoint commit or a recovery end at t.
//
// Checkpoint cycle: after `interval` of running time the job pauses `exposed` (write x
// async_exposed_fraction), snapshots its work, and the snapshot commits `write` after the pause
// started (unless an interruption comes first). From the end of the pause to the commit the
// write runs in the background and the job runs at (1 - async_slowdown) of its rate; the work
// it gives up counts as checkpoint time. Work done but not yet committed at the end of the
// horizon counts as goodput (the run is a window of a longer job).
// Recovery: see sim/strategies/strategy.h. A failure that hits the job while it runs (or, with
// recovery.failures_during_pause: restart, while it recovers) is an interruption; the strategy
// re-picks groups; if the job can run it pauses for detection +
// the recovery cost, else it stalls until a repair lets it run (then pays the recovery cost, no
// detection). A repair while running that lets a reconfiguring strategy improve its
// configuration triggers a planned reconfiguration (reconfigure_s, no work lost, counted as an
// interruption). Non-interrupting failures take GPUs out of the free pool and the metrics but
// leave the running job alone until its next reconfiguration.
// failures_during_pause: ignore: a failure that hits the job during a recovery pause (restart,
// reconfiguration or swap) neither restarts the pause nor rolls anything back; its GPUs still
// fail and are repaired, and the recovery under way re-forms the job from healthy GPUs at no
// extra cost, as it does for a repair (the job stalls if it cannot run then, and the recovery
// starts over once a repair lets it run, as after an interruption that finds the job short).
// This is the convention of Daly's renewal model and Meta's E[ETTR], which draw no failures
// during recovery (checkpoint_interval.h gives both modes' closed forms).
//
// Strategies that share a trajectory: the cluster state a run sees (JobState) changes only through
// failures, repairs and re-picks, and the failures and repairs are every run's. Two strategies
// with the same membership rules have the same cluster state as long as every re-pick that one
// of them makes and the other does not changes nothing (a re-pick of a whole job), whatever
// their phases (a restart may still run while a swap is done). run_together runs such
// strategies in lockstep over one JobState: the first leads and owns it, the others follow,
// each keeping its own phase, shape, checkpoint cycle and accounts, and reading the leader's
// cluster state after each event exactly as its own run would have had it. Each run notes the
// re-pick it makes at an event; a follower one of whose re-picks is not the leader's and may
// have changed the state (the job was not whole, or a failure hit it) is dropped and run alone
// afterwards, so every result is bit for bit that of its own run.
// Rules that agree while the job is whole: strategies that both swap a domain's idle GPUs in for
// its failed ones, with the same use of spare domains and spare replicas, and whose rules put a
// group at the full degree only when none of its GPUs failed, may differ in the degrees of
// damaged groups and in needs_full_job (agree_while_whole). While the job is whole after every
// event, their own runs hold the same GPUs down, the same idle GPUs and the same groups in the
// job, all at the full degree: whether swaps make a hit job whole depends on the domain's idle
// GPUs and failed members, not on which member owns which GPU, and where they do not, the free
// groups at the full degree join in the same order under both rules (one drops an unusable
// member and fills, the other trades a member at a lower degree out). What may differ (which
// member owns which GPU, list orders, the lists of free damaged groups) is read only by re-picks
// of a job that then is not whole. A follower with other rules parts at the first event after
// which the leader's job is not whole, and never mirrors.
// Mirrors: a follower whose run parameters (checkpoint cycle, resume, recovery per coverage) and
// first shape equal the leader's, and whose strategy gives the leader's shape, bit for bit, for
// every histogram the leader meets, has the leader's run: the same decisions at every event and
// the same accumulators, added in the same order. Such a follower is not stepped at all; the leader
// compares each shape it computes with the mirror's shape for the same histogram, and the
// mirror's result is the leader's. One whose shape differs is detached and run alone
// afterwards, as a parted follower is. A pair whose follower's run differed from the leader's in
// one of its last 8 runs on this engine is stepped as a follower instead (a detached mirror
// costs a whole run of its own); which way a follower runs changes no result.
// Ownership: an Engine is a value holding its scratch state (cluster arrays, queue, follower
// engines), reused across runs without allocation. It keeps a reference to nothing but its config
// (the strategies' addresses in its pair history are keys, never dereferenced).
// Thread safety: one Engine per thread; Strategy and failure list are read-only.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "models/base/time.h"
#include "models/step_model.h"
#include "sim/cluster/layout.h"
#include "sim/engine/event_queue.h"
#include "sim/engine/job_state.h"
#include "sim/engine/schedule.h"
#include "sim/engine/timeline.h"
#include "sim/failures/failure_source.h"
#include "sim/metrics/metrics.h"
#include "sim/strategies/strategy.h"

namespace ntpsim::sim {

struct EngineConfig {
  JobLayout layout;
  Time end;                         // the horizon, or max_time with a token budget
  double target_work_s = 0.0;       // token budget in ideal seconds; 0 = run to `end`
  Duration checkpoint_interval;     // running time between checkpoints (Duration::max() = none)
  Duration checkpoint_exposed;      // training pause per checkpoint
  Duration checkpoint_write;        // pause start to commit
  // Share of throughput lost from the end of the pause to the commit (the background write).
  double checkpoint_slowdown = 0.0;
  // Time lost per checkpoint, the C of the interval formulae: the pause plus the running time the
  // background write's slowdown costs (checkpoint_overhead_s, checkpoint_interval.h).
  double checkpoint_cost_s = 0.0;
  Duration detection;
  Duration restart;                 // restart + restore
  Duration reconfigure;
  Duration spare_swap;
  // Resume mechanisms (sim/strategies/strategy.h, Resume; README "Resume mechanisms").
  Duration memory_restart;         // restart + restore from the in-memory snapshot
  Duration memory_exposed;         // training pause per in-memory snapshot
  Duration memory_write;           // pause start to the snapshot's peer copy being complete
  double memory_interval_s = 0.0;  // fixed snapshot interval; 0 = auto (renewal optimum)
  Duration state_transfer;         // in place: the lost GPU's state to the GPUs taking over
  int host_gpus = 1;               // GPUs sharing one host's memory (a node, else a domain)
  // Why the in-memory restore or the state transfer could not be derived (then 0); "" = known.
  std::string state_cost_unknown;
  double idle_power_w = 0.0;        // idle (not computing, not failed) GPU
  double interval_s_chosen = 0.0;   // for reports: the checkpoint interval in seconds
  PauseFailures failures_during_pause = PauseFailures::kRestart;
  // checkpoint.interval: auto with per-strategy intervals: interval_s_for() gives each strategy
  // its own; otherwise every strategy runs at checkpoint_interval.
  bool per_strategy_interval = false;
  double min_interval_s = 1e-3;  // write - exposed: one write finishes before the next starts
  double max_interval_s = 0.0;   // auto's bound: checkpoint.max_interval, else the horizon

  // From the scenario; `interruption_rate_per_s` (job-wide) sets the shared Young/Daly interval
  // when checkpoint.interval is auto (shared): sqrt(2 C (M + R)), C = checkpoint_cost_s,
  // M = 1/rate, R = detection + restart + restore; at least write - exposed, at most
  // checkpoint.max_interval (default: the horizon).
  // With a token budget, `ideal_tokens_per_s` (healthy job) turns it into ideal seconds, and the
  // run stops at max_time (default: 10x the ideal time to train).
  static Result<EngineConfig> make(const Scenario& s, const JobLayout& layout,
                                   double interruption_rate_per_s, double ideal_tokens_per_s);

  // The interval, in seconds, a strategy rolled back `rollback_rate_per_s` times per second runs
  // at: with per-strategy intervals the exact optimum of the renewal model
  // (optimal_interval_s(C, 1/rate), checkpoint_interval.h), the horizon when it is never rolled
  // back (no checkpoint is then written inside the run: it would only cost time); otherwise the
  // shared or fixed interval_s_chosen. Auto intervals are clamped to [min_interval_s,
  // max_interval_s].
  double interval_s_for(double rollback_rate_per_s) const;
  // The same for a strategy resuming `resume`: restart_from_memory's snapshot interval (fixed,
  // or the renewal optimum for the memory snapshot's pause; never above the persistent
  // interval), otherwise interval_s_for.
  double interval_s_for(double rollback_rate_per_s, Resume resume) const;
};

class Engine {
 public:
  explicit Engine(const EngineConfig& cfg);

  // One run of `strategy` over the events of `schedule` (built from a replication's failures and
  // cfg.end; it carries what a run reads of each failure). `timeline`, when given, records
  // segments, marks and domain changes.
  ReplicationMetrics run(const Strategy& strategy, const EventSchedule& schedule,
                         StrategyTimeline* timeline = nullptr);
  // The same with the strategy's own checkpoint interval (the others use the config's).
  // REQUIRES: checkpoint_interval > 0, at least the config's minimum (EngineConfig::
  // interval_s_for gives one).
  ReplicationMetrics run(const Strategy& strategy, Duration checkpoint_interval,
                         const EventSchedule& schedule, StrategyTimeline* timeline = nullptr);
  // Both run at the config's checkpoint_interval (the fixed or shared one); a caller with a
  // per-strategy interval (Simulation::checkpoint_interval) passes it to the overload below.
  // The same over `failures` (sorted by time; those at or after cfg.end ignored), building the
  // schedule itself (for a single strategy or a test).
  ReplicationMetrics run(const Strategy& strategy, const std::vector<FailureEvent>& failures,
                         StrategyTimeline* timeline = nullptr);

  // Whether `a` and `b` may run together (see top): the same membership rules, so that their
  // cluster states are the same while their re-picks are (whatever their resume and recovery).
  // Symmetric.
  static bool shares_trajectory(const Strategy& a, const Strategy& b);
  // Whether `a` and `b` may run together although their rules differ (see top, Rules that agree
  // while the job is whole): both swap in-domain idle GPUs, with the same use of spare domains
  // and spare replicas, and a group at the full degree only with no failed GPU; they may differ
  // in the degrees of damaged groups and in needs_full_job. Symmetric.
  static bool agree_while_whole(const Strategy& a, const Strategy& b);
  // The same resume mechanism, and the same recovery and rollback for every coverage: then the
  // phases of two runs that share a trajectory part only where their shapes do, and a follower
  // may mirror its leader (see top). Symmetric.
  static bool shares_recovery(const Strategy& a, const Strategy& b);
  // `strategies` (indices into it) in groups that may run together, each in run_together's
  // order: the strategies that share a trajectory, those that also share their recovery with
  // others first, in the largest such set, so that the leader is one that its followers are
  // most likely to mirror or keep in step with. With `in_domain_swaps` (the layout leaves idle
  // GPUs in a domain) a group also takes the sets whose rules agree_while_whole with its
  // leader's. Every index in exactly one group.
  static std::vector<std::vector<size_t>> trajectory_groups(
      const std::vector<const Strategy*>& strategies, bool in_domain_swaps);
  struct StrategyRun {
    const Strategy* strategy = nullptr;
    Duration checkpoint_interval;  // as run()'s
  };
  // Each of `runs` over `schedule`, as run(strategy, interval, schedule) would give it, into
  // `out` (one per run, same order); returns the events all of them processed. REQUIRES: every
  // run shares_trajectory or agree_while_whole with runs[0]. The runs go in lockstep (see top)
  // unless there is one, or the run has a token budget (its runs end at different events): then
  // one after another.
  uint64_t run_together(const std::vector<StrategyRun>& runs, const EventSchedule& schedule,
                        std::vector<ReplicationMetrics>& out);
  // Of the last run_together: the followers that parted from the leader (each then ran alone),
  // those that ran as its mirrors to the end, the mirrors detached (each then ran alone), and
  // those run alone from the start because they parted in one of the pair's last 8 runs.
  size_t followers_parted() const { return parted_; }
  size_t followers_mirrored() const { return mirrored_; }
  size_t mirrors_detached() const { return detached_; }
  size_t followers_alone_by_history() const { return alone_by_history_; }

  // Of the last run: events processed.
  uint64_t events_processed() const { return events_; }
  // Runs from now on keep a hash over every processed event and the state it left (time, type,
  // phase, rate, failed GPUs), for trajectory fingerprint tests. Off by default: it is a chain of
  // four multiplications per event that no report reads.
  void keep_fingerprint(bool on) { fingerprint_ = on; }
  // Of the last run. REQUIRES: keep_fingerprint(true) before it.
  uint64_t trajectory_hash() const;

 private:
  enum class Phase { kRunning, kRecovering, kStalled };

  // A run in three parts: begin (state reset, or for a follower the leader's state adopted; the
  // leader begins first), apply each event after advancing to it, finish (the metrics).
  void begin(const Strategy& strategy, Duration checkpoint_interval, StrategyTimeline* timeline,
             const Engine* leader);
  void apply(const ScheduledEvent& ev);
  // Advances to and applies events[from...] (until the token budget is met).
  void replay(const std::vector<ScheduledEvent>& events, size_t from);
  ReplicationMetrics finish();
  // A hint only: the GPU state of the event kGpuAhead events after `i` starts loading early
  // enough that its cache miss overlaps the work of the events in between (one event ahead was
  // too short on a 1M-GPU cluster, whose per-GPU state far exceeds the caches).
  // `n` = events.size(), from the caller's register: the vector's bounds would be reloaded
  // after each event's stores.
  void prefetch_ahead(const ScheduledEvent* events, size_t n, size_t i) const {
    constexpr size_t kGpuAhead = 8;
    if (i + kGpuAhead < n) state_.prefetch(events[i + kGpuAhead].gpus());
  }
  // After both applied an event: the cluster state this follower reads is the one its own run
  // would have (see top): no re-pick that only one of them makes changed anything.
  // With other rules, also: the leader's job is whole (see top, Rules that agree while the job
  // is whole).
  bool shares_state_with(const Engine& leader) const {
    return !diverged_ && (reassigned_ || !leader.reassigned_ || leader.reassign_noop_) &&
           (same_rules_ || leader.state_.whole());
  }
  // Right after both began: this follower's run parameters and shape equal the leader's, so its
  // run is the leader's while its shapes are (see top, Mirrors).
  bool begins_as_mirror_of(const Engine& leader) const;
  // The leader computed `shape`: the mirrors whose strategy gives another shape for the same
  // histogram are detached.
  void check_mirrors(const JobShape& shape);
  // Per leader and follower strategy met by run_together, bit i of `differed` set when the
  // follower's run differed from the leader's i + 1 runs ago (a detached mirror, a parted or
  // skipped follower, or a follower in step to the end with other metrics), and of `parted`
  // when it parted from the leader then (a follower run alone from the start sets none).
  struct PairHistory {
    const Strategy* leader = nullptr;
    const Strategy* follower = nullptr;
    uint8_t differed = 0;
    uint8_t parted = 0;
  };
  PairHistory& pair_history(const Strategy& leader, const Strategy& follower);
  // Ends a run without metrics (a mirror, whose metrics are the leader's): what finish() resets.
  void release();
  // The cluster state changes, done by the engine that owns the state (a follower's leader has
  // done them already: a follower's failure hit the job when the leader's did). Each notes
  // whether it re-picked the job's groups at this event (reassigned_), which a follower whose
  // re-picks are not the leader's checks: one that only it makes, on a job that is not whole,
  // or a failure's that only it makes, parts it (diverged_).
  bool fail_gpus(GpuRange gpus) {
    if (leader_ != nullptr) return leader_->last_hit_;
    last_hit_ = state_.fail(gpus);
    return last_hit_;
  }
  // fail_gpus, then the job's groups re-picked when the failure hit the job (JobState::
  // fail_and_reassign); a follower takes its leader's answer, as above. Such a re-pick counts
  // as a change (a hit job is seldom whole; treating the rest as changes only parts more).
  bool fail_gpus_and_reassign(GpuRange gpus) {
    if (leader_ != nullptr) {
      if (leader_->last_hit_) {
        reassigned_ = true;
        diverged_ = diverged_ || !leader_->reassigned_;
      }
      return leader_->last_hit_;
    }
    last_hit_ = state_.fail_and_reassign(gpus);
    reassigned_ = last_hit_;
    reassign_noop_ = false;
    return last_hit_;
  }
  void repair_gpus(GpuRange gpus) {
    if (leader_ == nullptr) state_.repair(gpus);
  }
  // A re-pick of a whole job changes nothing (JobState::reassign).
  void reassign() {
    reassigned_ = true;
    if (leader_ == nullptr) {
      reassign_noop_ = state_.whole();
      state_.reassign();
    } else if (!leader_->reassigned_ && !view_->whole()) {
      diverged_ = true;
    }
  }

  bool advance(Time t1);  // integrate to t1; false when the token budget was reached
  void on_failure(const ScheduledEvent& e);
  void on_repair(const ScheduledEvent& e);
  // A failure that hit the job interrupts it. REQUIRES: the job's groups were re-picked for it
  // (fail_gpus_and_reassign).
  void interrupt();
  void absorb_into_recovery();  // a repair during a recovery pause
  // An ignored failure during a recovery pause, the job's groups re-picked for it.
  void absorb_reassigned();
  void start_recovery(Duration pause, RecoveryKind kind, bool restart);
  void start_checkpoint();
  // REQUIRES: t1 - now_ >= skip_from_ (the caller's check: no call where nothing is skipped).
  void fast_forward_checkpoints(Time t1);
  // Energy and failed-GPU time; the boost energy too when `boost` (account_run adds it itself).
  void account_power(Duration dt, bool computing, bool boost);
  // `slowdown`: the share of the rate a background checkpoint write takes (checkpoint time).
  void account_run(Duration dt, double slowdown);
  void account_idle(Duration dt, double& bucket);
  // Timeline records: the checks inline (no timeline: no call), the work out of line.
  void record_segment() {
    if (tl_ != nullptr) add_segment();
  }
  void record_mark(const char* type) {
    if (tl_ != nullptr) add_mark(type);
  }
  void record_domains(GpuRange gpus, bool repair) {
    if (tl_ != nullptr) add_domains(gpus, repair);
  }
  void add_segment();
  void add_mark(const char* type);
  void add_domains(GpuRange gpus, bool repair);
  void mix_hash(uint64_t v);
  Duration recovery_cost(RecoveryKind kind, bool restart) const;
  void note_host_loss(GpuRange gpus);  // restart_from_memory: copies lost since the snapshot
  void commit_snapshot();
  // The strategy's shape of the job's groups now, with the spare replicas that join in fixed
  // mini-batch mode: from the run's memo when this histogram and spare count came up before,
  // else from the strategy (a shape is a pure function of the two, so bit for bit the same).
  // A leader checks its mirrors against each shape it computes (not against a memo hit: the
  // mirrors were checked when it was computed, and a run's mirrors only ever leave).
  JobShape current_shape();
  // After the job's groups were re-picked: whether the job can run (a rate > 0) with the shape
  // current_shape() would return, which becomes shape_ when it can. While the membership shape_
  // was computed from is unchanged, that shape is shape_ itself (a shape is a pure function of
  // the histogram and the spare replicas, so it is bit for bit the same), neither recomputed nor
  // copied.
  bool takes_shape_now() {
    if (!membership_changed()) return shape_.rate > 0;
    const JobShape next = current_shape();
    if (!(next.rate > 0)) return false;
    set_shape(next);
    return true;
  }
  // Sets shape_ and remembers the histogram (and spare replicas) it was computed from.
  void set_shape(const JobShape& shape);
  // The job's histogram (or, in fixed mini-batch mode, its spare replicas) differs from shape_'s.
  bool membership_changed() const;

  EngineConfig cfg_;
  JobState state_;       // the cluster state this engine's runs own (unused by a follower)
  const JobState* view_ = &state_;  // the state the run reads: its own, or its leader's
  const Engine* leader_ = nullptr;  // while following
  bool same_rules_ = true;          // not following, or with the leader's rules
  bool last_hit_ = false;           // the last failure hit the job (for followers)
  // Of the event being applied: this run re-picked the job's groups (a follower: would have);
  // the leader's re-pick found the job whole (changed nothing); a follower's own run would
  // have another cluster state from here on.
  bool reassigned_ = false;
  bool reassign_noop_ = false;
  bool diverged_ = false;
  // The histogram shape_ was computed from: its hash, and its compact form
  // (JobState::save_histogram: the non-empty degrees' mask and their counts).
  uint64_t mark_hash_ = 0;
  bool mark_whole_ = false;  // that histogram was whole (JobState::whole)
  std::vector<uint64_t> mark_mask_;
  std::vector<int32_t> mark_counts_;
  // The shapes this run computed, by histogram and spare replicas: a direct-mapped table indexed
  // by the histogram's hash (JobState::histogram_hash), each entry verified against its whole
  // histogram (in compact form). A run meets few distinct histograms (its damaged groups come
  // and go), and a hit replaces the strategy's shape computation (divisions, per-degree loops)
  // by a comparison of a few counts. A 1M-GPU job without swaps meets thousands (about 1,100
  // GPUs are down at a time, so the counts at the degrees below T wander), and 64 slots missed
  // most of them. The slots are a power of two from 64 to 1,024, as many as fit in
  // kShapeMemoBytes: 512 at TP 64 (180 KB per engine; 1,024 saved little more), fewer at a wide
  // TP, so the memo stays well inside the per-worker memory the runner budgets for.
  struct ShapeMemo {
    uint64_t run = 0;  // the run that stored it (memo_run_); older entries are stale
    uint64_t hash = 0;
    int64_t spares = 0;
    JobShape shape;
  };
  static constexpr size_t kShapeMemoBytes = size_t{256} << 10;
  static size_t shape_memo_slots(int tp);
  std::vector<ShapeMemo> memo_;
  size_t memo_shift_;  // slot = hash >> memo_shift_: the top log2(memo_.size()) bits
  // Slot i's histogram: its mask at [i * W, (i + 1) * W) (W = histogram_mask_words()), its
  // counts at [i * (T + 1), (i + 1) * (T + 1)).
  std::vector<uint64_t> memo_mask_;
  std::vector<int32_t> memo_counts_;
  uint64_t memo_run_ = 0;
  std::vector<std::unique_ptr<Engine>> followers_;  // created on first use, kept
  size_t parted_ = 0, mirrored_ = 0, detached_ = 0, alone_by_history_ = 0;
  bool detached_from_mirror_ = false;  // this follower's run: a mirror its leader detached
  // While leading: the followers still mirroring this run (detached ones leave it, counted in
  // detached_).
  std::vector<Engine*> mirrors_;
  std::vector<PairHistory> pair_history_;
  EventSchedule own_schedule_;  // for run() without a schedule
  const Strategy* strategy_ = nullptr;
  bool rejoins_on_repair_ = false;  // recovery(Coverage::kShort) != kRestart, fixed per run
  // The strategy's recovery and rollback per coverage (indexed by Coverage), asked once per
  // run: each is a function of the coverage alone (Strategy::recovery).
  std::array<RecoveryKind, 3> recovery_by_coverage_{};
  std::array<bool, 3> rolls_back_by_coverage_{};
  StrategyTimeline* tl_ = nullptr;

  // Clock and job phase.
  Time now_;
  Phase phase_ = Phase::kRunning;
  Time recover_until_;
  RecoveryKind pending_kind_ = RecoveryKind::kRestart;
  bool pending_rollback_ = true;  // the pending recovery is a restart
  Duration pending_cost_;         // what a stalled job pays once a repair lets it run
  JobShape shape_;
  // shape_ runs at the full rate with no boost: its degraded, reshard and boost terms are zero
  // (account_run skips adding them).
  bool shape_full_ = false;
  int64_t shape_spares_ = 0;
  // Checkpoint cycle (with restart_from_memory: the in-memory snapshot cycle, every
  // persist_every_-th snapshot also written to persistent storage in the background).
  Duration interval_;  // this run's checkpoint interval
  // Two periods (pause + interval): fewer to the next event (the common case: checkpoints far
  // apart against the events) leave nothing to skip; Duration::max() when periods are never
  // skipped (a write longer than the period, or no period).
  Duration skip_from_;
  Resume resume_ = Resume::kInPlace;
  Duration cycle_exposed_, cycle_write_;
  double cycle_slowdown_ = 0.0;  // throughput share lost while a write runs in the background
  int64_t persist_every_ = 1;
  int64_t snapshot_index_ = 0;    // snapshots started in this run
  bool persist_pending_ = false;  // the snapshot in flight is also a persistent checkpoint
  // Work (ideal seconds) with the running time it took: a rollback takes back both, so the
  // time-based effective training time counts only running time whose work is kept.
  struct Progress {
    double work = 0.0;
    double run_s = 0.0;
    Progress& operator+=(const Progress& o) {
      work += o.work;
      run_s += o.run_s;
      return *this;
    }
    // What is left of `*this` once `o` is taken off, never below zero.
    Progress less(const Progress& o) const {
      return {std::max(0.0, work - o.work), std::max(0.0, run_s - o.run_s)};
    }
  };
  Progress persist_snapshot_;
  Progress since_persist_;  // done since the last committed persistent checkpoint
  // restart_from_memory: per host, the snapshot epoch in which it lost its memory (a node,
  // domain or pod failure); the snapshot is lost when a host and its peer both did.
  std::vector<uint64_t> host_lost_epoch_;
  uint64_t epoch_ = 0;
  bool snapshot_lost_ = false;
  Duration run_since_ckpt_;
  bool in_pause_ = false;
  Time pause_until_;
  Time commit_at_ = Time::never();
  Progress snapshot_;
  Progress since_ckpt_;    // done since the last committed snapshot
  Progress since_resume_;  // done since the last pause (bounds the in-flight loss)
  // Accumulators (ideal seconds, joules, GPU-seconds).
  double good_ = 0, ckpt_ = 0, rollback_ = 0, recovery_ = 0, stall_ = 0, degraded_ = 0,
         reshard_ = 0;
  // Wall seconds: running on work that is kept, running on work later rolled back, and the
  // blocking part of checkpoint writes (with recovery_ and stall_, which are wall seconds too,
  // they sum to the elapsed time).
  double effective_s_ = 0, rolled_back_s_ = 0, pause_s_ = 0;
  double energy_j_ = 0, boost_j_ = 0, failed_gpu_s_ = 0;
  int64_t failed_peak_ = 0;
  int64_t interruptions_ = 0;
  bool finished_ = false;
  // Fingerprint.
  uint64_t events_ = 0;
  bool fingerprint_ = false;
  bool hashed_ = false;  // the last run kept the hash
  uint64_t hash_ = 0;
};

// The step model a scenario names (`model:`): "proportional" (models::make_proportional_model)
// or any kind models::make_step_model knows. Errors as make_step_model's (bad input).
Result<std::unique_ptr<models::StepModel>> make_scenario_step_model(const Scenario& s);

}  // namespace ntpsim::sim
