// Generators behind FailureSource (internal to sim/failures): one stochastic process of one
// component class, and the replay of a trace. Each produces its events in time order, one batch
// (one failure, or one burst) at a time, into a buffer reserved up front: no allocation per event.
//
// Ownership: a generator keeps a pointer to the Topology (which must outlive it) and owns its
// per-replication state (streams, lemon set, per-unit repair ends, renewal pools and heap).
// Thread safety: one generator per replication/thread.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "models/base/random.h"
#include "sim/cluster/topology.h"
#include "sim/failures/failure_source.h"
#include "sim/failures/renewal.h"
#include "sim/failures/trace.h"

namespace ntpsim::sim {

// Repair-time sampler of one kind, parameters resolved once.
struct RepairSampler {
  enum class Dist { kFixed, kExponential, kLognormal, kWeibull, kEmpirical } dist = Dist::kFixed;
  double mean_s = 0.0;
  double mu = 0.0, sigma = 1.0;        // lognormal
  double shape = 1.0, scale = 1.0;     // weibull
  std::vector<double> values_s;        // empirical

  double draw(Stream& s) const;
};
// The sampler of a validated repair law.
RepairSampler repair_sampler(const RepairDist& d);

// Common interface: the time of the next batch (Time::never() when exhausted) and popping it.
class EventGenerator {
 public:
  virtual ~EventGenerator() = default;
  // The time of the next event; generates the next batch when the buffer is empty.
  Time peek();
  // REQUIRES: peek() < Time::never(). Moves the next event to `out`.
  void pop(FailureEvent& out);

 protected:
  // Fills buffer_ with the next batch (all at one time); leaves it empty when exhausted.
  virtual void refill() = 0;
  std::vector<FailureEvent> buffer_;  // reserved at construction; cleared, never shrunk
  size_t head_ = 0;
};

class ProcessGenerator final : public EventGenerator {
 public:
  // `p` must be validated (FailureSource::make does it). `kind_base` is the global index of this
  // process's first kind; `stream_suffix` is "" for the first process of a class, ".<n>" after.
  ProcessGenerator(const FailureProcess& p, const Topology& t, uint16_t kind_base, uint64_t seed,
                   uint64_t replication, const std::string& stream_suffix);

 protected:
  void refill() override;

 private:
  struct Kind {
    double cumulative_share = 0.0;
    RepairSampler repair;
    bool interrupts = true;
  };
  bool is_lemon(int64_t unit) const { return !lemon_bits_.empty() && ((lemon_bits_[unit >> 6] >> (unit & 63)) & 1); }
  int64_t pick_unit_exponential();
  // Hawkes: a unit that is up at `t_s`, uniformly with lemons weighted by the multiplier (the
  // weighted pick conditioned on being up); -1 when no unit of positive weight is up.
  int64_t pick_up_unit(double t_s);
  // Emits the batch for a failure of `unit` at `t_s` (plus the burst partners that start with
  // it), updating repair ends; partners that start later are reserved.
  void emit(double t_s, int64_t unit);
  // Emits one failure of unit `u` at `t_s` (`when`, to the microsecond) of kind `k`, its repair
  // drawn in regime state `state`.
  void add(double t_s, Time when, int64_t u, size_t k, int state);
  // A burst partner that starts at `start_s` (after now_s): its unit is down to every other draw
  // from now on (no other failure takes it first) and it waits in pending_.
  void reserve(int64_t u, double now_s, double start_s, size_t k);
  // Emits the earliest pending partner when it starts at or before `t_s`; true when it did.
  bool emit_partner_before(double t_s);
  // Hawkes: the time from now_s_ to the next candidate failure; decays excess_ to it.
  double hawkes_gap();
  // Renewal: the unit's next lifetime (>= 1 us; kHorizonS when it never fails).
  double draw_lifetime(int64_t unit);

  const Topology* topology_;
  Component component_;
  int64_t units_;
  bool exponential_;  // exponential or hawkes: candidates on the superposed class, unit picked
  bool hawkes_;
  std::vector<Kind> kinds_;
  uint16_t kind_base_;
  double burst_probability_;
  int burst_size_;                // the largest burst (every burst's size without burst_sizes_)
  std::vector<int> burst_sizes_;  // optional size law: drawn uniformly from "bursts.<class>"
  // Partner delays (FailureProcess::has_partner_delays): each partner's start after the one
  // before it, drawn from "bursts.<class>" as the partner is taken (at once with chance
  // at_once_share_, else delay_after_s_ plus an exponential delay of mean delay_excess_mean_s_).
  // A partner that starts later waits in pending_ (a min-heap by start, then by the order the
  // partners were taken) with its burst's kind and regime state. Absent: nothing is drawn or
  // kept, and no natural failure is drawn ahead.
  bool delays_ = false;
  double at_once_share_ = 1.0, delay_after_s_ = 0.0, delay_excess_mean_s_ = 0.0;
  struct Partner {
    double start_s;
    uint64_t sequence;
    int64_t unit;
    uint32_t kind;
    int state;
    bool operator>(const Partner& o) const {
      return start_s != o.start_s ? start_s > o.start_s : sequence > o.sequence;
    }
  };
  std::vector<Partner> pending_;
  uint64_t partner_sequence_ = 0;
  // Hawkes: now_s_ already holds the next candidate's time (drawn before the pending partners
  // that start before it were emitted).
  bool next_drawn_ = false;

  Stream arrivals_, kind_stream_, burst_stream_, repair_stream_;
  std::vector<uint64_t> lemon_bits_;    // one bit per unit; empty without lemons
  std::vector<int64_t> lemon_list_;     // the lemon units, for uniform picks among them
  double lemon_pick_probability_ = 0.0; // chance an exponential event hits a lemon
  double lemon_multiplier_ = 1.0;       // a lemon's weight relative to another unit
  double total_rate_ = 0.0;             // exponential: superposed rate over all units, per second
  double now_s_ = 0.0;                  // exponential: time of the last candidate event
  // Exponential without hawkes: the next kLookahead candidates (time, unit), drawn from arrivals_
  // ahead of their use (the same draws in the same order as drawing each when needed: nothing
  // else draws from arrivals_ in between), so that each one's up_at_s_ entry is prefetched while
  // the events before it are emitted and consumed (one event ahead was too short on a large
  // cluster, whose up_at_s_ far exceeds the caches). Unit -1: its time is past the horizon; no
  // candidate is drawn after it. A ring: ahead_first_ is the next one, ahead_count_ are drawn.
  struct Candidate {
    double t_s = 0.0;
    int64_t unit = -1;
  };
  static constexpr size_t kLookahead = 8;  // a power of two
  std::array<Candidate, kLookahead> ahead_{};
  size_t ahead_first_ = 0;
  size_t ahead_count_ = 0;
  bool past_horizon_ = false;  // the last candidate drawn is past the horizon
  void draw_candidates(double mean_gap);  // tops ahead_ up to kLookahead
  double background_rate_ = 0.0;        // hawkes: immigrant rate over all units, per second
  double decay_ = 0.0;                  // hawkes: 1 / mean delay of a triggered failure
  double jump_ = 0.0;                   // hawkes: intensity a failure adds (0 otherwise)
  double excess_ = 0.0;                 // hawkes: triggered intensity at now_s_
  // hawkes with a second (slow) excitation: its decay, jump and triggered intensity; all 0
  // without one, and then no draw is spent on it.
  double slow_decay_ = 0.0, slow_jump_ = 0.0, slow_excess_ = 0.0;
  // hawkes with regimes (two-state Markov-modulated immigrants): the state now (0 low, 1 high),
  // when it next changes, each state's immigrant rate over all units, mean spell and repair scale.
  // Absent (regime_ false): no draw is spent on regimes and repairs are not scaled.
  bool regime_ = false;
  int state_ = 0;
  double switch_at_s_ = 0.0;
  double state_rate_[2] = {0.0, 0.0};
  double state_mean_s_[2] = {0.0, 0.0};
  double repair_scale_[2] = {1.0, 1.0};
  // Repair laws per state (state_repairs_): each failure's repair from its state's law instead
  // of its kind's.
  bool state_repairs_ = false;
  RepairSampler state_repair_[2];
  Stream regime_stream_;
  // Deferred repairs (FailureProcess::deferred_share > 0): whether a failure's repair waits for
  // the next maintenance visit ("deferred.<class>"), and the visit times, drawn in order as
  // failures need them ("visits.<class>"). Absent: no draw is spent on either.
  bool deferred_ = false;
  double deferred_share_ = 0.0;
  double visit_interval_s_ = 0.0;
  double next_visit_s_ = 0.0;
  Stream deferred_stream_, visit_stream_;
  // The first visit strictly after t_s (failures come in time order, so visits only move on).
  double next_visit_after(double t_s);
  // Shared repairs (FailureProcess::shared_repair_probability > 0): whether a failure within the
  // window of the previous one, whose unit is still down, ends with it ("shared.<class>"); the
  // previous failure's start (-infinity: none yet) and end, its end also as the event's instant.
  // Absent: no draw is spent and nothing is kept.
  bool shared_ = false;
  double shared_probability_ = 0.0;
  double shared_window_s_ = 0.0;
  double previous_s_ = -std::numeric_limits<double>::infinity(), previous_end_s_ = 0.0;
  Duration previous_end_;
  Stream shared_stream_;
  std::vector<double> up_at_s_;         // per unit: end of its current repair (0 = up)

  // Renewal processes (renewal.h): units that never failed wait in two pools (non-lemons,
  // lemons) that yield their first failures lazily; a unit that failed once gets its next failure
  // time in next_fail_s_ and a heap entry. Heap entries whose time no longer matches
  // next_fail_s_ (the unit failed early in a burst) are stale and skipped.
  LifetimeLaw law_normal_, law_lemon_;
  bool normal_fails_ = false, lemon_fails_ = false;  // false when the mean lifetime is infinite
  FirstFailurePool pool_normal_, pool_lemon_;
  std::vector<int32_t> pool_position_;  // per unit: index in its pool, -1 once it failed
  std::vector<std::pair<double, int64_t>> heap_;  // min-heap of (next failure, unit)
  std::vector<double> next_fail_s_;
};

class TraceGenerator final : public EventGenerator {
 public:
  // REQUIRES: cfg and trace validated (FailureSource::make does it).
  TraceGenerator(const TraceConfig& cfg, const Topology& t, std::shared_ptr<const TraceData> trace,
                 uint16_t kind_base, uint64_t seed, uint64_t replication);

 protected:
  void refill() override;

 private:
  int64_t map_unit(const TraceFault& f, Component c) const;

  const Topology* topology_;
  TraceConfig cfg_;
  std::shared_ptr<const TraceData> trace_;
  uint16_t kind_base_;
  size_t index_ = 0;
  int64_t loop_ = 0;
  std::vector<int64_t> placement_;  // random mapping: trace node -> unit of cfg.component
};

// Validates a process's parameters; `path` is its field path ("failures.processes[0]").
Status validate_process(const FailureProcess& p, const std::string& path);

}  // namespace ntpsim::sim
