// Failure sources: the sequence of failure events one replication sees (DESIGN.md §3.2).
//
// A FailureSource merges, in time order, the scenario's stochastic processes (one per component
// class entry of `failures.processes`) and an optional trace replay. Events are generated lazily:
// `next` does O(1) work for exponential processes (a superposed Poisson process over all units
// with a uniformly chosen unit), O(log failed units) for Weibull/lognormal renewal processes (first
// failures drawn lazily as order statistics, sim/failures/renewal.h), and never scans GPUs per
// event; buffers are reserved per replication (the renewal heap grows amortised). Setup per
// replication is O(units) memory writes (per-unit repair ends), no per-unit random draws.
// Measured (Release, bench/failures_bench.cpp): one year of 100K GPUs, ~19K events, 1.3 ms with
// lemons, bursts and lognormal repairs, 0.54 ms with one fixed-repair kind; Weibull 4.3 ms.
//
// Semantics (see docs/trace-format.md for traces):
// - Rates are per unit while the unit is up; a unit in repair does not fail again in its own
//   process (exponential: the event is thinned; renewal: the next lifetime starts at repair end;
//   Hawkes: the failure goes to a unit that is up, see below).
//   Different processes (e.g. GPU and node) are independent, so their events may overlap; the
//   engine takes the union of down GPUs.
// - Non-exponential processes are ordinary renewal processes: every unit starts new at time 0
//   (so a Weibull shape < 1 front-loads failures; expected_interruption_rate_per_s gives the
//   long-run rate).
//   Weibull: shape k, mean lifetime 1/rate; lognormal: sigma = shape, mean lifetime 1/rate.
// - Hawkes (self-exciting, clustered failures): immigrant failures arrive as a Poisson process
//   at (1 - branching) x rate x units; every failure adds branching / mean_delay to the class's
//   intensity, decaying with time constant mean_delay, so it triggers `branching` further
//   failures on average and the long-run rate per unit is `rate`. Each failure, immigrant or
//   triggered, hits a uniformly chosen unit (lemons weighted), so one failure's cascade spreads
//   over the class; the cascade's size and timing do not depend on the class's size, which is
//   what lets a model fitted on a small cluster run on a large one. An optional slow
//   excitation (slow_branching, slow_mean_delay) adds a second exponential kernel: immigrants
//   then arrive at (1 - branching - slow_branching) x rate x units, and a failure triggers
//   failures on both time scales. The process is the class's (a cluster-level stream, as fitted
//   from a log): each failure goes to a unit that is up, uniformly with lemons weighted, so none
//   is thinned and the class's long-run rate is rate x units (lemons weighted) whatever the
//   repairs; only when every unit that can fail is in repair is a failure dropped (it triggers
//   nothing). Sampled exactly (Dassios-Zhao), O(1) per event (rejection among up units, at most
//   one O(units) pass when nearly all are in repair), from "failures.<class>" only.
//   Optional regimes (a change of the cluster's state: batches of bad parts, campaigns): a
//   two-state Markov chain, high a share `high_share` of the time in exponential spells of mean
//   `high_mean_duration`, starting in its stationary law, drawn from "regime.<class>"; immigrants
//   arrive `rate_ratio` times as often in the high state as in the low one (the time average
//   keeps the long-run rate), and each failure's repair draw is multiplied by the repair scale
//   of the state it starts in. With repair laws per state (regime.low_repair, high_repair) the
//   draw itself comes from the law of that state (any repair law, from "repair.<class>"),
//   whatever the failure's kind.
//   Lifetimes are floored at one microsecond (the time resolution) so time always advances.
// - Lemons: round(lemon_fraction * units) units, drawn per replication from "lemons.<class>",
//   fail lemon_multiplier times as often (renewal: mean lifetime / multiplier); the others keep
//   the base rate.
// - Bursts: with burst_probability an event takes burst_size consecutive units of the class
//   (unit u, u+1, ... modulo the count, skipping units already in repair), one event each, all at
//   the same time and of the same kind, each with its own repair draw. With a size law
//   (burst_sizes) each burst's size is drawn uniformly from the list ("bursts.<class>", right
//   after the burst's own draw). Only the burst's first failure excites a Hawkes process.
// - Partner delays (`partner_delays: {at_once, after, mean}`, with a burst): each partner
//   starts after the partner (or first failure) before it, at once with chance `at_once`, else
//   `after` plus an exponential delay whose mean makes the later ones `mean` after it on
//   average; both draws from "bursts.<class>" as each partner is taken. A later partner is its
//   own failure event at its start (it may interrupt the job again): its unit is chosen with the
//   burst and no other failure takes it before then; it has the burst's kind and draws its
//   repair then, in the regime state its burst started in.
// - Deferred repairs (`deferred_repairs: {share, visit_interval}`, any distribution): each
//   failure, with chance `share` ("deferred.<class>"), is not repaired on its own; its unit stays
//   down until the first maintenance visit strictly after it starts, and every deferred unit of
//   the process comes back at a visit together. Visits are a Poisson process of mean gap
//   `visit_interval` from time 0 ("visits.<class>"), drawn in order as failures need them; the
//   other failures draw their repairs as below. Burst partners decide each on their own.
// - Shared repairs (`shared_repairs: {window, probability}`, any distribution): a failure that
//   starts within `window` of the process's previous failure (a burst partner's previous
//   failure is the partner before it), while that failure's unit is still down, shares its
//   repair with chance `probability` ("shared.<class>"): its unit comes back at the previous
//   failure's instant, to the microsecond (one incident, one fix), and takes no draw, deferral
//   or scale. A failure that shares is itself the previous failure of the next, so an incident
//   can gather many units. The closed forms (process_means.h) count a shared repair as a drawn
//   one: they do not see when failures come.
// - Kinds are drawn by share ("kinds.<class>"), repair times per kind ("repair.<class>").
// Random streams, each Stream(seed, replication, name), so one process never shifts another's
// draws: "failures.<class>", "kinds.<class>", "bursts.<class>", "repair.<class>",
// "lemons.<class>", "regime.<class>", "deferred.<class>", "visits.<class>", "shared.<class>" (a
// second process of the same class adds ".<n>"), and "trace.placement".
//
// Ownership: a FailureSource owns its per-replication state and keeps a pointer to the Topology
// (REQUIRES: the Topology outlives the source) and a shared_ptr to the immutable TraceData.
// Thread safety: one FailureSource per replication/thread; TraceData is shared read-only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "models/base/time.h"
#include "sim/cluster/topology.h"
#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

// EventGenerator::pop (process.cpp) copies it field by field: a new field is copied there too.
struct FailureEvent {
  Time time;                 // when it happens
  Component component = Component::kGpu;  // class of the failed unit
  int64_t unit = 0;          // index within its class
  GpuRange gpus;             // GPUs taken (blast radius); bursts produce several events at one time
  uint16_t kind = 0;         // index into FailureSource::kind_names()
  Duration repair;           // time until the unit is back in the free pool
  bool interrupts = true;    // interrupts the job (NCCL communicators break)
};

// A parsed trace (sim/failures/trace.h), immutable, shared by all replications.
struct TraceData;

// Loads and validates a trace in either format (TraceConfig::format "infinitehbd" or "csv").
// Bad input (missing file, garbage, unsorted times, unmatched events, negative durations, unknown
// event types, over the size limit) is an Error naming the file and the line or entry.
// Load once per run and pass the pointer to every replication's FailureSource::make.
Result<std::shared_ptr<const TraceData>> load_trace(const TraceConfig& cfg);

class FailureSource {
 public:
  // `trace` must be non-null iff s.failures.trace is set (load it with load_trace). Errors (bad
  // input): invalid process parameters (negative rate, shares not summing to 1, unknown
  // distribution, a trace component the topology lacks).
  static Result<FailureSource> make(const Scenario& s, const Topology& t,
                                    std::shared_ptr<const TraceData> trace, uint64_t seed,
                                    uint64_t replication);
  // make()'s errors, in its order, without building the source: make() fails exactly when this
  // does, for any seed and replication, and then with this error.
  static Status check(const Scenario& s, const Topology& t, const TraceData* trace);

  FailureSource(FailureSource&&) noexcept;
  FailureSource& operator=(FailureSource&&) noexcept;
  ~FailureSource();

  // The next event in time order (ties: processes in scenario order, then the trace). Returns
  // false when exhausted (only a trace without loop, or no sources at all); never yields an event
  // at or past Time::never().
  bool next(FailureEvent& out);
  // Kind names across all sources: each process's kinds in order, then the trace's kinds.
  const std::vector<std::string>& kind_names() const;

 private:
  struct State;
  explicit FailureSource(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Expected rate (per second) of interrupting failure events that hit at least one of the first
// `job_gpus` GPUs, for checkpoint: auto (Young/Daly) and closed-form checks. Counts the
// stochastic processes (lemons and bursts included, repair downtime ignored: exact when repairs
// are short against the MTBF) and, when `trace` is given, the trace's interrupting faults per
// second over its span, scaled by the share of units the job occupies.
double expected_interruption_rate_per_s(const Scenario& s, const Topology& t, int64_t job_gpus,
                                        const TraceData* trace = nullptr);

}  // namespace ntpsim::sim
