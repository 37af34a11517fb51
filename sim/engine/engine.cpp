#include "sim/engine/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string_view>

#include "models/base/check.h"
#include "models/checkpoint_model.h"
#include "sim/engine/checkpoint_interval.h"
#include "sim/scenario/recovery_costs.h"

namespace ntpsim::sim {

Result<EngineConfig> EngineConfig::make(const Scenario& s, const JobLayout& layout,
                                        double interruption_rate_per_s,
                                        double ideal_tokens_per_s) {
  EngineConfig c;
  c.layout = layout;
  const auto& ck = s.checkpoint;
  const auto& rc = s.recovery;
  if (ck.write_s < 0 || ck.restore_s < 0 || ck.async_exposed_fraction < 0 ||
      ck.async_exposed_fraction > 1 || !(ck.async_slowdown >= 0 && ck.async_slowdown <= 1) ||
      rc.detection_s < 0 || rc.restart_s < 0 || rc.reconfigure_s < 0 || rc.spare_swap_s < 0) {
    return Error::bad_input(
        "checkpoint/recovery: durations must be >= 0, async_exposed_fraction and async_slowdown "
        "in [0, 1]");
  }
  double end_s = s.horizon_s;
  if (s.train_tokens > 0) {
    if (!(ideal_tokens_per_s > 0)) return Error::runtime("step model: no ideal throughput");
    c.target_work_s = s.train_tokens / ideal_tokens_per_s;
    end_s = s.max_time_s > 0 ? s.max_time_s : 10.0 * c.target_work_s;
  }
  if (!(end_s > 0)) {
    return Error::bad_input(
        "horizon: a positive horizon (or train_tokens with max_time) is required");
  }
  c.end = Time::at(Duration::from_seconds(end_s));
  c.checkpoint_write = Duration::from_seconds(ck.write_s);
  c.checkpoint_exposed = Duration::from_seconds(ck.write_s * ck.async_exposed_fraction);
  c.checkpoint_slowdown = ck.async_slowdown;
  c.checkpoint_cost_s = checkpoint_overhead_s(c.checkpoint_write.seconds(),
                                              c.checkpoint_exposed.seconds(), ck.async_slowdown);
  // Restart and restore at the job's size (recovery_costs.h, scaled_cost_s).
  const double job_gpus = static_cast<double>(layout.job_gpus);
  const double restart_s = scaled_cost_s(rc.restart_s, rc.restart_scaling, job_gpus);
  const double restore_s = scaled_cost_s(ck.restore_s, ck.restore_scaling, job_gpus);
  c.detection = Duration::from_seconds(rc.detection_s);
  c.restart = Duration::from_seconds(restart_s + restore_s);
  c.reconfigure = Duration::from_seconds(rc.reconfigure_s);
  c.spare_swap = Duration::from_seconds(rc.spare_swap_s);
  // Resume mechanisms: the in-memory snapshot cycle and restore, the in-place state transfer.
  // Unset costs are one GPU's state over its scale-out link (models/checkpoint_model.h).
  const auto& mem = ck.memory;
  // Without a scale-out bandwidth they stay 0 and unknown (Simulation::prepare refuses a
  // strategy that would need them).
  double transfer_s = 0.0;
  if (auto st = models::gpu_state_cost(s.workload, s.layout, s.hardware); st.ok()) {
    transfer_s = st->transfer_s;
  } else {
    c.state_cost_unknown = st.error().message;
  }
  const double memory_restore_s = mem.restore_s ? *mem.restore_s : transfer_s;
  c.memory_restart = Duration::from_seconds(restart_s + memory_restore_s);
  c.memory_exposed = Duration::from_seconds(mem.exposed_s);
  // The peer copy is complete once the state has crossed the scale-out link after the pause.
  c.memory_write = Duration::from_seconds(mem.exposed_s + memory_restore_s);
  c.memory_interval_s = mem.auto_interval ? 0.0 : mem.interval_s;
  c.state_transfer =
      Duration::from_seconds(rc.state_transfer_s ? *rc.state_transfer_s : transfer_s);
  c.host_gpus = s.cluster.gpus_per_node > 0 ? s.cluster.gpus_per_node : s.cluster.gpus_per_domain;
  c.idle_power_w = s.hardware.idle_power_w;
  c.failures_during_pause = rc.failures_during_pause;
  c.per_strategy_interval = ck.auto_interval && !ck.shared_auto_interval;

  // The interval must let one write finish before the next starts.
  const double min_interval_s =
      std::max(1e-3, ck.write_s - ck.write_s * ck.async_exposed_fraction);
  double interval_s = ck.interval_s;
  if (ck.auto_interval) {
    const double cost_s = c.checkpoint_cost_s;
    if (interruption_rate_per_s > 0) {
      const double mtti_s = 1.0 / interruption_rate_per_s;
      const double recover_s = rc.detection_s + restart_s + restore_s;
      interval_s = std::sqrt(2.0 * cost_s * (mtti_s + recover_s));
    } else {
      interval_s = end_s;  // no interruptions expected: one checkpoint per horizon
    }
  } else if (!(interval_s > 0)) {
    return Error::bad_input("checkpoint.interval: must be positive");
  }
  // Auto intervals stop at checkpoint.max_interval when it is set; every interval at the horizon.
  const double max_s =
      ck.auto_interval && ck.max_interval_s > 0 ? std::min(end_s, ck.max_interval_s) : end_s;
  interval_s = std::clamp(interval_s, min_interval_s, std::max(min_interval_s, max_s));
  c.min_interval_s = min_interval_s;
  c.max_interval_s = std::max(min_interval_s, max_s);
  c.interval_s_chosen = interval_s;
  c.checkpoint_interval = Duration::from_seconds(interval_s);
  return c;
}

double EngineConfig::interval_s_for(double rollback_rate_per_s) const {
  if (!per_strategy_interval) return interval_s_chosen;
  double interval_s = max_interval_s;  // never rolled back: as long as allowed
  if (rollback_rate_per_s > 0) {
    interval_s = optimal_interval_s(checkpoint_cost_s, 1.0 / rollback_rate_per_s);
  }
  return std::clamp(interval_s, min_interval_s, max_interval_s);
}

double EngineConfig::interval_s_for(double rollback_rate_per_s, Resume resume) const {
  if (resume != Resume::kRestartFromMemory) return interval_s_for(rollback_rate_per_s);
  // A snapshot pause must end before the next snapshot starts; its peer copy may still be on
  // its way (the next snapshot waits for nothing: the older copy is kept until it completes).
  const double min_s = std::max(1e-3, memory_write.seconds() - memory_exposed.seconds());
  double interval_s = memory_interval_s;
  if (!(interval_s > 0)) {
    interval_s = rollback_rate_per_s > 0
                     ? optimal_interval_s(memory_exposed.seconds(), 1.0 / rollback_rate_per_s)
                     : max_interval_s;
  }
  return std::clamp(interval_s, min_s, std::max(min_s, interval_s_chosen));
}

Engine::Engine(const EngineConfig& cfg)
    : cfg_(cfg),
      state_(cfg.layout),
      mark_mask_(state_.histogram_mask_words()),
      mark_counts_(static_cast<size_t>(cfg.layout.tp) + 1),
      memo_(shape_memo_slots(cfg.layout.tp)),
      memo_shift_(64 - static_cast<size_t>(std::countr_zero(memo_.size()))),
      memo_mask_(memo_.size() * state_.histogram_mask_words()),
      memo_counts_(memo_.size() * (static_cast<size_t>(cfg.layout.tp) + 1)) {}

size_t Engine::shape_memo_slots(int tp) {
  const size_t per_slot = sizeof(ShapeMemo) + sizeof(int32_t) * (static_cast<size_t>(tp) + 1) +
                          sizeof(uint64_t) * (static_cast<size_t>(tp) / 64 + 1);
  return std::clamp<size_t>(std::bit_floor(kShapeMemoBytes / per_slot), 64, 1024);
}

Duration Engine::recovery_cost(RecoveryKind kind, bool restart) const {
  if (restart) {
    return resume_ == Resume::kRestartFromMemory && !snapshot_lost_ ? cfg_.memory_restart
                                                                    : cfg_.restart;
  }
  switch (kind) {
    case RecoveryKind::kRestart: return cfg_.restart;
    case RecoveryKind::kReconfigure:
      return cfg_.reconfigure + cfg_.state_transfer;
    case RecoveryKind::kSwap:
      return cfg_.spare_swap + cfg_.state_transfer;
  }
  return cfg_.restart;
}

uint64_t Engine::trajectory_hash() const {
  NTPSIM_CHECK_MSG(hashed_, "trajectory_hash: the last run did not keep a fingerprint");
  return hash_;
}

void Engine::mix_hash(uint64_t v) {
  hash_ ^= v;
  hash_ *= 0x100000001b3ULL;
  hash_ ^= hash_ >> 29;
}

ReplicationMetrics Engine::run(const Strategy& strategy, const std::vector<FailureEvent>& failures,
                               StrategyTimeline* timeline) {
  own_schedule_.build(failures, cfg_.end);
  return run(strategy, own_schedule_, timeline);
}

ReplicationMetrics Engine::run(const Strategy& strategy, const EventSchedule& schedule,
                               StrategyTimeline* timeline) {
  return run(strategy, cfg_.checkpoint_interval, schedule, timeline);
}

ReplicationMetrics Engine::run(const Strategy& strategy, Duration checkpoint_interval,
                               const EventSchedule& schedule, StrategyTimeline* timeline) {
  begin(strategy, checkpoint_interval, timeline, nullptr);
  replay(schedule.events(), 0);
  advance(cfg_.end);
  const ReplicationMetrics m = finish();
  state_.clean_up(schedule.unrepaired());  // so that the next run's reset copies less
  return m;
}

// Inlined into both event loops.
[[gnu::always_inline]] inline void Engine::apply(const ScheduledEvent& ev) {
  ++events_;
  reassigned_ = false;
  if (ev.type == EventType::kFailure) on_failure(ev);
  else on_repair(ev);
  if (hashed_) {
    mix_hash(static_cast<uint64_t>(now_.us()));
    mix_hash(static_cast<uint64_t>(ev.type) * 8 + static_cast<uint64_t>(phase_));
    mix_hash(std::bit_cast<uint64_t>(shape_.rate));
    mix_hash(static_cast<uint64_t>(view_->failed_gpus()));
  }
}

void Engine::replay(const std::vector<ScheduledEvent>& events, size_t from) {
  const size_t n_events = events.size();
  const ScheduledEvent* const evs = events.data();
  for (size_t i = from; i < n_events; ++i) {
    const ScheduledEvent& ev = evs[i];
    prefetch_ahead(evs, n_events, i);
    if (!advance(ev.time)) break;
    apply(ev);
  }
}

bool Engine::shares_trajectory(const Strategy& a, const Strategy& b) {
  return a.rules() == b.rules();
}

bool Engine::agree_while_whole(const Strategy& a, const Strategy& b) {
  const MembershipRules& x = a.rules();
  const MembershipRules& y = b.rules();
  if (!x.in_domain_spares || !y.in_domain_spares || x.use_spare_domains != y.use_spare_domains ||
      x.spare_replicas != y.spare_replicas ||
      x.degree_by_failed.size() != y.degree_by_failed.size() || x.degree_by_failed.empty() ||
      x.degree_by_failed[0] != y.degree_by_failed[0]) {
    return false;
  }
  // A whole job's groups then have no failed GPU under either rules.
  const int full = x.degree_by_failed[0];
  for (size_t k = 1; k < x.degree_by_failed.size(); ++k) {
    if (x.degree_by_failed[k] >= full || y.degree_by_failed[k] >= full) return false;
  }
  return true;
}

bool Engine::shares_recovery(const Strategy& a, const Strategy& b) {
  if (a.resume().mechanism != b.resume().mechanism) return false;
  for (const Coverage c :
       {Coverage::kShort, Coverage::kInDomainSpares, Coverage::kFreeGroups}) {
    if (a.recovery(c) != b.recovery(c) || a.rolls_back(c) != b.rolls_back(c)) return false;
  }
  return true;
}

std::vector<std::vector<size_t>> Engine::trajectory_groups(
    const std::vector<const Strategy*>& strategies, bool in_domain_swaps) {
  // Sets that share trajectory and recovery, in order of their first member.
  std::vector<std::vector<size_t>> sets;
  for (size_t k = 0; k < strategies.size(); ++k) {
    const auto set = std::find_if(sets.begin(), sets.end(), [&](const std::vector<size_t>& s) {
      const Strategy& first = *strategies[s.front()];
      return shares_trajectory(first, *strategies[k]) && shares_recovery(first, *strategies[k]);
    });
    if (set == sets.end()) sets.push_back({k});
    else set->push_back(k);
  }
  // Then the sets that share a trajectory joined, the larger sets first (the first on a tie).
  std::stable_sort(sets.begin(), sets.end(),
                   [](const auto& a, const auto& b) { return a.size() > b.size(); });
  std::vector<std::vector<size_t>> groups;
  for (const std::vector<size_t>& s : sets) {
    const auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
      const Strategy& leader = *strategies[g.front()];
      const Strategy& first = *strategies[s.front()];
      return shares_trajectory(leader, first) ||
             (in_domain_swaps && agree_while_whole(leader, first));
    });
    if (group == groups.end()) groups.push_back(s);
    else group->insert(group->end(), s.begin(), s.end());
  }
  return groups;
}

namespace {

// Bit for bit (a -0.0 is not a 0.0): what a mirror's shape must be to leave its run the leader's.
bool same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}
bool same_shape(const JobShape& a, const JobShape& b) {
  return same_bits(a.rate, b.rate) && same_bits(a.rate_no_reshard, b.rate_no_reshard) &&
         same_bits(a.iteration_s, b.iteration_s) && a.running_gpus == b.running_gpus &&
         same_bits(a.power_w, b.power_w) && same_bits(a.boost_power_w, b.boost_power_w) &&
         a.active_replicas == b.active_replicas && same_bits(a.batch_replicas, b.batch_replicas);
}
bool same_metrics(const ReplicationMetrics& a, const ReplicationMetrics& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (!same_bits(a[i], b[i])) return false;
  }
  return true;
}

}  // namespace

bool Engine::begins_as_mirror_of(const Engine& leader) const {
  // The rest of a run's parameters follow from these (begin) or from the config (the resume
  // mechanism's costs, given the mechanism).
  return same_rules_ && interval_ == leader.interval_ && resume_ == leader.resume_ &&
         rejoins_on_repair_ == leader.rejoins_on_repair_ &&
         recovery_by_coverage_ == leader.recovery_by_coverage_ &&
         rolls_back_by_coverage_ == leader.rolls_back_by_coverage_ &&
         cycle_exposed_ == leader.cycle_exposed_ && cycle_write_ == leader.cycle_write_ &&
         same_bits(cycle_slowdown_, leader.cycle_slowdown_) && skip_from_ == leader.skip_from_ &&
         persist_every_ == leader.persist_every_ && same_shape(shape_, leader.shape_);
}

void Engine::check_mirrors(const JobShape& shape) {
  std::erase_if(mirrors_, [&](Engine* m) {
    if (same_shape(m->current_shape(), shape)) return false;
    ++detached_;
    m->detached_from_mirror_ = true;
    return true;
  });
}

Engine::PairHistory& Engine::pair_history(const Strategy& leader, const Strategy& follower) {
  for (PairHistory& h : pair_history_) {
    if (h.leader == &leader && h.follower == &follower) return h;
  }
  pair_history_.push_back({&leader, &follower, 0, 0});
  return pair_history_.back();
}

uint64_t Engine::run_together(const std::vector<StrategyRun>& runs, const EventSchedule& schedule,
                              std::vector<ReplicationMetrics>& out) {
  out.resize(runs.size());
  uint64_t events = 0;
  parted_ = mirrored_ = detached_ = alone_by_history_ = 0;
  if (runs.size() == 1 || cfg_.target_work_s > 0) {
    for (size_t k = 0; k < runs.size(); ++k) {
      out[k] = run(*runs[k].strategy, runs[k].checkpoint_interval, schedule);
      events += events_;
    }
    return events;
  }
  for (const StrategyRun& r : runs) {
    NTPSIM_CHECK(shares_trajectory(*runs[0].strategy, *r.strategy) ||
                 agree_while_whole(*runs[0].strategy, *r.strategy));
  }
  const size_t n_followers = runs.size() - 1;
  while (followers_.size() < n_followers) followers_.push_back(std::make_unique<Engine>(cfg_));
  mirrors_.clear();
  begin(*runs[0].strategy, runs[0].checkpoint_interval, nullptr, nullptr);
  // Followers still in step; one that parts is left behind and run alone below. Mirrors are not
  // stepped (see top). A follower that parted in one of its pair's last 8 runs here runs alone
  // from the start (a part costs the follower's run up to it).
  std::vector<Engine*> live;
  live.reserve(n_followers);
  std::vector<bool> alone(n_followers, false), skipped(n_followers, false);
  for (size_t f = 0; f < n_followers; ++f) {
    Engine& e = *followers_[f];
    const PairHistory& h = pair_history(*runs[0].strategy, *runs[f + 1].strategy);
    if (h.parted != 0) {
      alone[f] = skipped[f] = true;
      continue;
    }
    e.begin(*runs[f + 1].strategy, runs[f + 1].checkpoint_interval, nullptr, this);
    const bool mirror = h.differed == 0 && e.begins_as_mirror_of(*this);
    (mirror ? mirrors_ : live).push_back(&e);
  }
  const std::vector<ScheduledEvent>& evs = schedule.events();
  // Without a token budget every run reaches every event (advance never ends a run early).
  size_t i = 0;
  const size_t n_events = evs.size();
  for (; i < n_events && !live.empty(); ++i) {
    const ScheduledEvent& ev = evs[i];
    prefetch_ahead(evs.data(), n_events, i);
    // Every run integrates up to the event with the cluster state before it, then the leader
    // changes the state and each follower applies the event reading the state after it.
    advance(ev.time);
    for (Engine* f : live) f->advance(ev.time);
    apply(ev);
    for (Engine* f : live) f->apply(ev);
    std::erase_if(live, [this](const Engine* f) { return !f->shares_state_with(*this); });
  }
  replay(evs, i);  // every follower parted or mirrors: the leader goes on alone
  advance(cfg_.end);
  for (Engine* f : live) f->advance(cfg_.end);
  out[0] = finish();
  events += events_;
  const auto among = [](const std::vector<Engine*>& list, const Engine& e) {
    return std::find(list.begin(), list.end(), &e) != list.end();
  };
  for (size_t f = 0; f < n_followers; ++f) {
    Engine& e = *followers_[f];
    bool differed = false;
    bool parted = false;
    if (skipped[f]) {
      differed = true;
    } else if (among(mirrors_, e)) {
      e.release();
      out[f + 1] = out[0];
      events += events_;
      ++mirrored_;
    } else if (among(live, e)) {
      out[f + 1] = e.finish();
      events += e.events_;
      differed = !same_metrics(out[f + 1], out[0]);
    } else {
      parted = !e.detached_from_mirror_;
      e.release();
      alone[f] = differed = true;
    }
    PairHistory& h = pair_history(*runs[0].strategy, *runs[f + 1].strategy);
    h.differed = static_cast<uint8_t>((h.differed << 1) | (differed ? 1 : 0));
    h.parted = static_cast<uint8_t>((h.parted << 1) | (parted ? 1 : 0));
  }
  mirrors_.clear();  // the runs alone below check none
  state_.clean_up(schedule.unrepaired());  // the followers in step no longer read it
  for (size_t f = 0; f < n_followers; ++f) {
    if (!alone[f]) continue;
    // A parted follower or a detached mirror: run alone on this engine, whose run is over.
    out[f + 1] = run(*runs[f + 1].strategy, runs[f + 1].checkpoint_interval, schedule);
    events += events_;
  }
  alone_by_history_ = static_cast<size_t>(std::count(skipped.begin(), skipped.end(), true));
  parted_ = static_cast<size_t>(std::count(alone.begin(), alone.end(), true)) - detached_ -
            alone_by_history_;
  return events;
}

void Engine::begin(const Strategy& strategy, Duration checkpoint_interval,
                   StrategyTimeline* timeline, const Engine* leader) {
  NTPSIM_CHECK(checkpoint_interval > Duration::zero());
  strategy_ = &strategy;
  leader_ = leader;
  view_ = leader != nullptr ? &leader->state_ : &state_;
  same_rules_ = leader == nullptr || strategy.rules() == leader->strategy_->rules();
  resume_ = strategy.resume().mechanism;
  // Under a restart mechanism repaired units join at the next restart, not in a planned one.
  rejoins_on_repair_ =
      resume_ == Resume::kInPlace && strategy.recovery(Coverage::kShort) != RecoveryKind::kRestart;
  for (const Coverage c : {Coverage::kInDomainSpares, Coverage::kFreeGroups, Coverage::kShort}) {
    const auto i = static_cast<size_t>(c);
    recovery_by_coverage_[i] = strategy.recovery(c);
    rolls_back_by_coverage_[i] = strategy.rolls_back(c);
  }
  const bool memory = resume_ == Resume::kRestartFromMemory;
  if (memory && host_lost_epoch_.empty()) {
    const int64_t host_gpus = std::max(1, cfg_.host_gpus);
    host_lost_epoch_.assign(
        static_cast<size_t>((cfg_.layout.cluster_gpus + host_gpus - 1) / host_gpus), 0);
  }
  cycle_exposed_ = memory ? cfg_.memory_exposed : cfg_.checkpoint_exposed;
  cycle_write_ = memory ? cfg_.memory_write : cfg_.checkpoint_write;
  // The snapshot's peer copy crosses the scale-out link; its contention is not modelled.
  cycle_slowdown_ = memory ? 0.0 : cfg_.checkpoint_slowdown;
  // A write must commit before the next one starts: the interval is at least its background
  // part, in whole microseconds (an interval chosen in seconds at that bound may round below it).
  interval_ = std::max(checkpoint_interval, cycle_write_ - cycle_exposed_);
  {
    const Duration period = cycle_exposed_ + interval_;
    skip_from_ = period <= Duration::zero() || cycle_write_ > period ? Duration::max() : period * 2;
  }
  persist_every_ =
      memory ? std::max<int64_t>(1, std::llround(cfg_.interval_s_chosen / interval_.seconds())) : 1;
  snapshot_index_ = 0;
  persist_pending_ = false;
  persist_snapshot_ = since_persist_ = Progress{};
  ++epoch_;
  snapshot_lost_ = false;
  ++memo_run_;  // a new strategy (or a new replication): the memo's entries are stale
  tl_ = timeline;
  if (leader == nullptr) state_.reset(strategy.rules());
  now_ = Time::start();
  phase_ = Phase::kRunning;
  pending_kind_ = RecoveryKind::kRestart;
  pending_rollback_ = true;
  pending_cost_ = Duration::zero();
  set_shape(current_shape());
  NTPSIM_CHECK(shape_.rate > 0);
  run_since_ckpt_ = Duration::zero();
  in_pause_ = false;
  commit_at_ = Time::never();
  snapshot_ = since_ckpt_ = since_resume_ = Progress{};
  good_ = ckpt_ = rollback_ = recovery_ = stall_ = degraded_ = reshard_ = 0;
  effective_s_ = rolled_back_s_ = pause_s_ = 0;
  energy_j_ = boost_j_ = failed_gpu_s_ = 0;
  failed_peak_ = interruptions_ = 0;
  finished_ = false;
  events_ = 0;
  reassigned_ = reassign_noop_ = diverged_ = detached_from_mirror_ = false;
  hashed_ = fingerprint_;
  hash_ = 0xcbf29ce484222325ULL;
  record_segment();
}

ReplicationMetrics Engine::finish() {
  const Time end_t = finished_ ? now_ : cfg_.end;
  const double el = end_t.seconds();
  NTPSIM_CHECK(el > 0);
  if (tl_ != nullptr && !tl_->truncated && !tl_->segments.empty()) tl_->segments.back().end_s = el;
  const double sum = good_ + ckpt_ + rollback_ + recovery_ + stall_ + degraded_ + reshard_;
  NTPSIM_CHECK_MSG(std::abs(sum - el) <= 1e-6 * el + 1e-6, "badput does not sum to elapsed");
  const double wall = effective_s_ + rolled_back_s_ + pause_s_ + recovery_ + stall_;
  NTPSIM_CHECK_MSG(std::abs(wall - el) <= 1e-6 * el + 1e-6, "wall time does not sum to elapsed");
  ReplicationMetrics m{};
  at(m, Metric::kGoodput) = good_ / el;
  at(m, Metric::kBadputCheckpoint) = ckpt_ / el;
  at(m, Metric::kBadputRollback) = rollback_ / el;
  at(m, Metric::kBadputRecovery) = recovery_ / el;
  at(m, Metric::kBadputStall) = stall_ / el;
  at(m, Metric::kBadputDegraded) = degraded_ / el;
  at(m, Metric::kBadputReshard) = reshard_ / el;
  const auto& L = cfg_.layout;
  at(m, Metric::kEffectiveTrainingTime) = effective_s_ / el;
  at(m, Metric::kPerGpuGoodput) =
      good_ / el * static_cast<double>(L.job_gpus) / static_cast<double>(L.cluster_gpus);
  at(m, Metric::kFailedGpusMean) = failed_gpu_s_ / el;
  at(m, Metric::kAvailability) = 1.0 - failed_gpu_s_ / el / static_cast<double>(L.cluster_gpus);
  at(m, Metric::kFailedGpusPeak) = static_cast<double>(failed_peak_);
  at(m, Metric::kInterruptions) = static_cast<double>(interruptions_);
  at(m, Metric::kEnergyMwh) = energy_j_ / 3.6e9;
  at(m, Metric::kBoostEnergyMwh) = boost_j_ / 3.6e9;
  at(m, Metric::kTimeToTrainDays) = cfg_.target_work_s > 0
                                        ? el / 86400.0
                                        : std::numeric_limits<double>::quiet_NaN();
  release();
  return m;
}

void Engine::release() {
  strategy_ = nullptr;
  tl_ = nullptr;
  leader_ = nullptr;
  view_ = &state_;
}

// --- integration between events -------------------------------------------------------------

namespace {

// The earlier of two instants, as a select rather than a branch: which of a stretch's bounds
// (the next event, checkpoint, commit, end of a pause or recovery) comes first is as good as
// random, and a branch on it would often be mispredicted.
Time earlier(Time a, Time b) { return Time::at(Duration::micros(std::min(a.us(), b.us()))); }

}  // namespace

// Inlined into advance (once per stretch between events, checkpoints and pauses).
[[gnu::always_inline]] inline void Engine::account_power(Duration dt, bool computing,
                                                        bool boost) {
  const double s = dt.seconds();
  const int64_t failed = view_->failed_gpus();
  const int64_t up = cfg_.layout.cluster_gpus - failed;
  if (computing) {
    const int64_t idle = std::max<int64_t>(0, up - shape_.running_gpus);
    energy_j_ += (shape_.power_w + static_cast<double>(idle) * cfg_.idle_power_w) * s;
    if (boost) boost_j_ += shape_.boost_power_w * s;
  } else {
    energy_j_ += static_cast<double>(up) * cfg_.idle_power_w * s;
  }
  failed_gpu_s_ += static_cast<double>(failed) * s;
}

[[gnu::always_inline]] inline void Engine::account_run(Duration dt, double slowdown) {
  const double s = dt.seconds();
  const double work = shape_.rate * (1.0 - slowdown) * s;
  ckpt_ += shape_.rate * slowdown * s;
  good_ += work;
  effective_s_ += s;
  const Progress p{work, s};
  since_ckpt_ += p;
  since_persist_ += p;
  since_resume_ += p;
  // A full shape's degraded, reshard and boost terms are +0.0 (or -0.0), which leave every
  // accumulator unchanged (none is ever -0.0): skipped.
  if (!shape_full_) {
    degraded_ += (1.0 - shape_.rate_no_reshard) * s;
    reshard_ += (shape_.rate_no_reshard - shape_.rate) * s;
    boost_j_ += shape_.boost_power_w * s;
  }
  account_power(dt, true, false);
}

void Engine::account_idle(Duration dt, double& bucket) {
  bucket += dt.seconds();
  account_power(dt, false, false);
}

// Inlined into the event loops (replay, run_together): one call fewer per event.
[[gnu::always_inline]] inline bool Engine::advance(Time t1) {
  if (finished_) return false;
  while (now_ < t1) {
    if (phase_ == Phase::kRecovering) {
      const Time e = earlier(t1, recover_until_);
      account_idle(e - now_, recovery_);
      now_ = e;
      if (now_ == recover_until_ && now_ < t1) {
        phase_ = Phase::kRunning;
        since_resume_ = Progress{};
        record_segment();
      }
      continue;
    }
    if (phase_ == Phase::kStalled) {
      account_idle(t1 - now_, stall_);
      now_ = t1;
      continue;
    }
    if (in_pause_) {
      // A checkpoint write's exposed pause: the GPUs are busy (running power), no progress.
      const Time e = earlier(t1, pause_until_);
      ckpt_ += (e - now_).seconds();
      pause_s_ += (e - now_).seconds();
      account_power(e - now_, true, true);
      now_ = e;
      if (now_ == pause_until_ && now_ < t1) {
        in_pause_ = false;
        run_since_ckpt_ = Duration::zero();
        // A write whose background part is empty commits as its pause ends: what the running
        // branch below would do after its zero-length stretch (which changes nothing), unless
        // the token budget is already met, which that branch handles.
        if (commit_at_ == now_ && !(cfg_.target_work_s > 0 && good_ >= cfg_.target_work_s)) {
          commit_snapshot();
        }
      }
      continue;
    }
    const Time next_ckpt = now_ + (interval_ - run_since_ckpt_);
    const Time e = earlier(earlier(t1, next_ckpt), commit_at_);
    // Running with a write in flight (commit pending, pause over): the write runs in the
    // background and slows the job until it commits, at or before e.
    const double slowdown = commit_at_ != Time::never() ? cycle_slowdown_ : 0.0;
    const double rate = shape_.rate * (1.0 - slowdown);
    if (cfg_.target_work_s > 0 && rate > 0 &&
        good_ + rate * (e - now_).seconds() >= cfg_.target_work_s) {
      const double need_s = (cfg_.target_work_s - good_) / rate;
      const Duration dt =
          std::clamp(Duration::from_seconds(need_s), Duration::zero(), e - now_);
      account_run(dt, slowdown);
      now_ += dt;
      finished_ = true;
      return false;
    }
    // A zero-length stretch (a commit at the end of its pause) adds +0.0 to every accumulator,
    // which leaves each unchanged (none is ever -0.0): skipped.
    if (e != now_) account_run(e - now_, slowdown);
    run_since_ckpt_ += e - now_;
    now_ = e;
    if (now_ < t1) {
      if (now_ == commit_at_) commit_snapshot();
      if (now_ == next_ckpt) {
        start_checkpoint();
        if (t1 - now_ >= skip_from_) fast_forward_checkpoints(t1);
      }
    }
  }
  return true;
}

void Engine::start_checkpoint() {
  NTPSIM_CHECK(commit_at_ == Time::never());
  if (tl_ != nullptr) tl_->add_checkpoint_mark(now_.seconds(), cycle_exposed_.seconds());
  snapshot_ = since_ckpt_;
  ++snapshot_index_;
  persist_pending_ = persist_every_ == 1 || snapshot_index_ % persist_every_ == 0;
  if (persist_pending_) persist_snapshot_ = since_persist_;
  commit_at_ = now_ + cycle_write_;
  since_resume_ = Progress{};
  run_since_ckpt_ = Duration::zero();
  in_pause_ = cycle_exposed_ > Duration::zero();
  pause_until_ = now_ + cycle_exposed_;
}

void Engine::commit_snapshot() {
  since_ckpt_ = since_ckpt_.less(snapshot_);
  if (persist_pending_) {
    since_persist_ = since_persist_.less(persist_snapshot_);
    persist_pending_ = false;
  }
  commit_at_ = Time::never();
  // A new in-memory snapshot: copies lost before it no longer matter.
  ++epoch_;
  snapshot_lost_ = false;
}

// At a checkpoint start at now_, skip whole (pause + interval) periods that end before t1 in
// O(1): each adds `exposed` of checkpoint time and `interval` of running at the current shape,
// and commits the previous snapshot (write <= period, ensured by EngineConfig::make).
void Engine::fast_forward_checkpoints(Time t1) {
  const Duration period = cycle_exposed_ + interval_;
  NTPSIM_CHECK(period > Duration::zero() && cycle_write_ <= period && t1 - now_ >= period * 2);
  int64_t k = (t1 - now_).us() / period.us() - 1;
  const double interval_s = interval_.seconds();
  // Of each interval, the first (write - exposed) runs slowed by the background write.
  const double slowed_work =
      shape_.rate * cycle_slowdown_ * (cycle_write_ - cycle_exposed_).seconds();
  const double work_per_period = shape_.rate * interval_s - slowed_work;
  if (!(work_per_period > 0)) return;  // a write that stops the job: step through it
  if (cfg_.target_work_s > 0) {
    k = std::min<int64_t>(
        k, static_cast<int64_t>((cfg_.target_work_s - good_) / work_per_period) - 1);
  }
  if (k < 1) return;
  if (tl_ != nullptr) {
    for (int64_t i = 1; i <= k && tl_->checkpoint_marks < tl_->checkpoint_mark_limit; ++i) {
      tl_->add_checkpoint_mark((now_ + period * i).seconds(), cycle_exposed_.seconds());
    }
  }
  const double kd = static_cast<double>(k);
  ckpt_ += (cycle_exposed_.seconds() + slowed_work) * kd;
  pause_s_ += cycle_exposed_.seconds() * kd;
  effective_s_ += interval_s * kd;
  good_ += work_per_period * kd;
  degraded_ += (1.0 - shape_.rate_no_reshard) * interval_s * kd;
  reshard_ += (shape_.rate_no_reshard - shape_.rate) * interval_s * kd;
  account_power(period * k, true, true);
  now_ += period * k;
  const Progress per_period{work_per_period, interval_s};
  since_ckpt_ = per_period;
  snapshot_ = per_period;
  // Snapshots i0 .. i0+k-1 committed, i0+k starts now. The last persistent one among them, j,
  // captured the work up to its start; (i0 + k - j) periods of work followed it.
  const int64_t i0 = snapshot_index_;
  const int64_t last = i0 + k - 1;
  const int64_t j = last - last % persist_every_;
  if (j >= i0) {
    const double n = static_cast<double>(i0 + k - j);
    since_persist_ = Progress{work_per_period * n, interval_s * n};
  } else {
    since_persist_ += Progress{work_per_period * kd, interval_s * kd};
  }
  snapshot_index_ = i0 + k;
  persist_pending_ = persist_every_ == 1 || snapshot_index_ % persist_every_ == 0;
  if (persist_pending_) persist_snapshot_ = since_persist_;
  epoch_ += static_cast<uint64_t>(k);
  snapshot_lost_ = false;
  commit_at_ = now_ + cycle_write_;
  pause_until_ = now_ + cycle_exposed_;
  in_pause_ = cycle_exposed_ > Duration::zero();
  run_since_ckpt_ = Duration::zero();
  since_resume_ = Progress{};
}

// --- events ---------------------------------------------------------------------------------

// Inlined into the event loops (replay, run_together): one call fewer per event.
[[gnu::always_inline]] inline void Engine::on_failure(const ScheduledEvent& e) {
  // A failure that hits the job here is met by an interruption or by the recovery under way,
  // and each first re-picks the job's groups: done with the failure, in one step (nothing
  // between reads the job's groups).
  const bool reacts = e.interrupts && phase_ != Phase::kStalled;
  const bool hit = reacts ? fail_gpus_and_reassign(e.gpus()) : fail_gpus(e.gpus());
  failed_peak_ = std::max(failed_peak_, view_->failed_gpus());
  if (resume_ == Resume::kRestartFromMemory && e.beyond_gpus) note_host_loss(e.gpus());
  record_mark("failure");
  if (reacts && hit) {
    if (phase_ == Phase::kRecovering && cfg_.failures_during_pause == PauseFailures::kIgnore) {
      absorb_reassigned();
    } else {
      interrupt();
    }
  }
  record_domains(e.gpus(), false);
}

void Engine::interrupt() {
  ++interruptions_;
  // The pace of the in-flight iteration: slowed while a write runs in the background.
  const double pace = shape_.rate * (1.0 - (commit_at_ != Time::never() ? cycle_slowdown_ : 0.0));
  commit_at_ = Time::never();  // an in-flight checkpoint write is lost
  in_pause_ = false;
  const auto& h = view_->histogram();
  const Coverage coverage = h[cfg_.layout.tp] != cfg_.layout.job_groups ? Coverage::kShort
                            : view_->whole_after_in_domain_swaps()      ? Coverage::kInDomainSpares
                                                                        : Coverage::kFreeGroups;
  const RecoveryKind kind = recovery_by_coverage_[static_cast<size_t>(coverage)];
  const bool restart = rolls_back_by_coverage_[static_cast<size_t>(coverage)];
  Progress lost;
  Duration cost = recovery_cost(kind, restart);  // before a fallback resets snapshot_lost_
  if (restart) {
    if (resume_ == Resume::kRestartFromMemory && snapshot_lost_) {
      // Both copies of some host's snapshot are gone: back to the persistent checkpoint.
      lost = since_persist_;
      since_persist_ = Progress{};
      record_mark("snapshot_lost");
    } else {
      lost = since_ckpt_;
      since_persist_ = since_persist_.less(lost);
    }
    since_ckpt_ = Progress{};
    run_since_ckpt_ = Duration::zero();
    persist_pending_ = false;
    // The restart re-copies the restored state to every host and its peer.
    ++epoch_;
    snapshot_lost_ = false;
    record_mark("rollback");
  } else if (phase_ == Phase::kRunning) {
    // The in-flight iteration, or all done since the last pause if that is less; its running
    // time at the current pace (the shape is constant since the last pause).
    lost.work = std::min(since_resume_.work, shape_.rate * shape_.iteration_s);
    lost.run_s = lost.work < since_resume_.work && pace > 0
                     ? std::min(since_resume_.run_s, lost.work / pace)
                     : since_resume_.run_s;
    since_ckpt_ = since_ckpt_.less(lost);
    since_persist_ = since_persist_.less(lost);
  }
  good_ -= lost.work;
  rollback_ += lost.work;
  effective_s_ -= lost.run_s;
  rolled_back_s_ += lost.run_s;
  since_resume_ = Progress{};
  if (takes_shape_now()) {
    start_recovery(cfg_.detection + cost, kind, restart);
  } else {
    phase_ = Phase::kStalled;
    pending_kind_ = kind;
    pending_rollback_ = restart;
    pending_cost_ = cost;
    record_segment();
  }
}

void Engine::note_host_loss(GpuRange gpus) {
  if (gpus.count <= 0) return;
  const int64_t host_gpus = std::max(1, cfg_.host_gpus);
  const int64_t hosts = static_cast<int64_t>(host_lost_epoch_.size());
  const int64_t per_domain = std::max<int64_t>(1, cfg_.layout.gpus_per_domain / host_gpus);
  // A host's peer holds its copy: the same host of the next domain (the next host when there
  // is one domain).
  const int64_t stride = hosts > per_domain ? per_domain : 1;
  for (int64_t h = gpus.first / host_gpus; h <= (gpus.end() - 1) / host_gpus && h < hosts; ++h) {
    host_lost_epoch_[static_cast<size_t>(h)] = epoch_;
    const int64_t next = (h + stride) % hosts;
    const int64_t prev = (h - stride + hosts) % hosts;
    if (host_lost_epoch_[static_cast<size_t>(next)] == epoch_ ||
        host_lost_epoch_[static_cast<size_t>(prev)] == epoch_) {
      snapshot_lost_ = true;
    }
  }
}

// Inlined into its callers: a call per interruption fewer.
[[gnu::always_inline]] inline void Engine::start_recovery(Duration pause, RecoveryKind kind,
                                                         bool restart) {
  phase_ = Phase::kRecovering;
  recover_until_ = now_ + pause;
  pending_kind_ = kind;
  pending_rollback_ = restart;
  record_mark(restart ? "restart" : "reconfigure");
  record_segment();
}

JobShape Engine::current_shape() {
  const std::vector<int32_t>& hist = view_->histogram();
  const bool with_spares = strategy_->rules().spare_replicas;
  const int64_t spares = with_spares ? view_->spare_replicas() : 0;
  const uint64_t hash =
      view_->histogram_hash() + static_cast<uint64_t>(spares) * 0x9e3779b97f4a7c15ULL;
  const size_t slot = static_cast<size_t>(hash >> memo_shift_);
  ShapeMemo& m = memo_[slot];
  uint64_t* const mask = &memo_mask_[slot * view_->histogram_mask_words()];
  int32_t* const counts = &memo_counts_[slot * hist.size()];  // T + 1 per slot
  if (m.run == memo_run_ && m.hash == hash && m.spares == spares &&
      view_->histogram_equals(mask, counts)) {
    return m.shape;
  }
  JobShape s = strategy_->shape_counted(hist, view_->job_members() - hist[0]);
  if (with_spares) s = with_spare_replicas(s, spares, strategy_->shape_context());
  m = ShapeMemo{memo_run_, hash, spares, s};
  view_->save_histogram(mask, counts);
  if (!mirrors_.empty()) check_mirrors(s);
  return s;
}

void Engine::set_shape(const JobShape& shape) {
  shape_ = shape;
  shape_full_ = shape.rate_no_reshard == 1.0 && shape.rate == shape.rate_no_reshard &&
                shape.boost_power_w == 0.0;
  mark_hash_ = view_->histogram_hash();
  mark_whole_ = view_->whole();
  view_->save_histogram(mark_mask_.data(), mark_counts_.data());
  shape_spares_ = view_->spare_replicas();
}

// Inlined into its callers (a call per interruption and per repair fewer).
[[gnu::always_inline]] inline bool Engine::membership_changed() const {
  // Two whole histograms are equal (the usual case after an interruption that swaps GPUs in);
  // otherwise a different hash settles it, and an equal one is confirmed on the whole histogram.
  const bool hist_changed =
      view_->whole() ? !mark_whole_
                     : view_->histogram_hash() != mark_hash_ ||
                           !view_->histogram_equals(mark_mask_.data(), mark_counts_.data());
  return hist_changed ||
         (strategy_->rules().spare_replicas && view_->spare_replicas() != shape_spares_);
}

// The recovery under way re-picks the job's groups at no extra cost; the job stalls when it
// cannot run with them.
void Engine::absorb_into_recovery() {
  reassign();
  absorb_reassigned();
}

void Engine::absorb_reassigned() {
  if (membership_changed()) {
    const JobShape next = current_shape();
    if (next.rate > 0) {
      set_shape(next);
    } else {
      // The recovery under way starts over once a repair lets the job run, as after an
      // interruption that finds the job short (detection is inside the stall).
      phase_ = Phase::kStalled;
      pending_cost_ = recovery_cost(pending_kind_, pending_rollback_);
      record_segment();
    }
  }
}

// Inlined into the event loops (replay, run_together): one call fewer per event.
[[gnu::always_inline]] inline void Engine::on_repair(const ScheduledEvent& e) {
  repair_gpus(e.gpus());
  record_mark("repair");
  if (phase_ == Phase::kStalled) {
    reassign();
    if (takes_shape_now()) start_recovery(pending_cost_, pending_kind_, pending_rollback_);
  } else if (phase_ == Phase::kRecovering) {
    // The repaired units join the recovery already under way at no extra cost.
    absorb_into_recovery();
  } else if (rejoins_on_repair_) {
    reassign();
    if (membership_changed()) {
      // Planned rejoin: reconfigure at an iteration boundary, nothing lost.
      const JobShape next = current_shape();
      ++interruptions_;
      commit_at_ = Time::never();
      in_pause_ = false;
      if (next.rate > 0) {
        set_shape(next);
        start_recovery(cfg_.reconfigure, RecoveryKind::kReconfigure, false);
      } else {
        phase_ = Phase::kStalled;
        pending_kind_ = RecoveryKind::kReconfigure;
        pending_rollback_ = false;
        pending_cost_ = cfg_.reconfigure;
        record_segment();
      }
    }
  }
  record_domains(e.gpus(), true);
}

// --- timeline -------------------------------------------------------------------------------

void Engine::add_segment() {
  if (tl_->truncated) return;
  TimelineSegment s;
  s.t_s = s.end_s = now_.seconds();
  const bool running = phase_ == Phase::kRunning;
  s.state = phase_ == Phase::kRecovering ? "recovering"
            : phase_ == Phase::kStalled  ? "stalled"
            : shape_.rate_no_reshard < 1.0 - 1e-12 ? "degraded"
                                                   : "running";
  s.throughput = running ? shape_.rate : 0.0;
  s.usable_gpus = running ? shape_.running_gpus : 0;
  s.failed_gpus = view_->failed_gpus();
  auto& list = tl_->segments;
  if (!list.empty()) {
    TimelineSegment& last = list.back();
    if (std::string_view(last.state) == s.state && last.throughput == s.throughput &&
        last.usable_gpus == s.usable_gpus) {
      return;
    }
    last.end_s = s.t_s;
    if (last.end_s == last.t_s && list.size() > 1) list.pop_back();  // zero-length: replace
  }
  tl_->add(list, s);
}

void Engine::add_mark(const char* type) {
  tl_->add(tl_->marks, TimelineMark{now_.seconds(), type, 0.0});
}

void Engine::add_domains(GpuRange gpus, bool repair) {
  // A truncated timeline records nothing more (StrategyTimeline::add): skip the domain scans.
  if (gpus.count <= 0 || tl_->truncated) return;
  const int G = cfg_.layout.gpus_per_domain;
  const int first = static_cast<int>(gpus.first / G);
  const int last = static_cast<int>((gpus.end() - 1) / G);
  for (int d = first; d <= last; ++d) {
    DomainChange c;
    c.domain = d;
    c.t_s = now_.seconds();
    const int failed = view_->domain_failed_gpus(d);
    c.tp = view_->domain_min_degree(d);
    if (failed == G) {
      c.state = "failed";
    } else if (c.tp == 0) {
      c.state = "idle";
    } else if (c.tp < cfg_.layout.tp) {
      c.power_ratio = strategy_->power_ratio(c.tp);
      c.state = c.power_ratio > 1.0 ? "boosted" : "degraded";
    } else {
      c.state = failed > 0 ? "degraded" : (repair ? "repaired" : "healthy");
    }
    tl_->add(tl_->domains, c);
  }
}

Result<std::unique_ptr<models::StepModel>> make_scenario_step_model(const Scenario& s) {
  if (s.step_model == "proportional") {
    return models::make_proportional_model(s.workload, s.layout, s.hardware);
  }
  return models::make_step_model(s.step_model, s.workload, s.layout, s.hardware);
}

}  // namespace ntpsim::sim
