#include "sim/montecarlo/montecarlo.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <memory>

#include "models/checkpoint_model.h"
#include "sim/cluster/topology.h"
#include "sim/engine/engine.h"
#include "sim/failures/failure_source.h"
#include "sim/metrics/aggregate.h"
#include "sim/strategies/strategy.h"

namespace ntpsim::sim {
namespace {

// Replication 0's failures for the timeline, the first `limit` of them (the timeline's own list
// limit: 10^7 records would make a results document of about 10 GB).
std::vector<FailureRecord> failure_records(const std::vector<FailureEvent>& events,
                                           const Topology& topo,
                                           const std::vector<std::string>& kinds, size_t limit) {
  std::vector<FailureRecord> out;
  out.reserve(std::min(events.size(), limit));
  for (const auto& e : events) {
    if (out.size() >= limit) break;
    FailureRecord r;
    r.t_s = e.time.seconds();
    r.end_s = (e.time + e.repair).seconds();
    r.domain = e.gpus.count > 0 ? topo.domain_of(e.gpus.first) : 0;
    r.gpus = e.gpus.count;
    r.kind = e.kind < kinds.size() ? kinds[e.kind] : fmt::format("kind{}", e.kind);
    r.component = to_string(e.component);
    r.interrupts = e.interrupts;
    out.push_back(std::move(r));
  }
  return out;
}

bool ci_target_met(const RunResult& r, int n, double target) {
  for (const auto& s : r.strategies) {
    std::vector<double> g;
    g.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) g.push_back(at(s.replications[static_cast<size_t>(i)], Metric::kGoodput));
    if (!(summarize(g).ci95_halfwidth() <= target)) return false;
  }
  return true;
}

// The warnings about a finished run's results (n replications).
void add_warnings(const Scenario& s, const ReplicationCount& count, const RunnerResult& ran,
                  RunResult& r) {
  const int n = ran.replications;
  if (!ran.target_met) {
    r.warnings.push_back(
        fmt::format("the goodput CI half-width target {} was not reached within {} replications",
                    s.replications.target_ci_halfwidth, count.max));
  }
  if (n < 30) {
    r.warnings.push_back(
        fmt::format("only {} replications: confidence intervals are wide", n));
  }
  for (const auto& st : r.strategies) {
    std::vector<double> g;
    for (const auto& rep : st.replications) g.push_back(at(rep, Metric::kGoodput));
    const double half = summarize(g).ci95_halfwidth();
    if (half > 0.01) {
      r.warnings.push_back(fmt::format(
          "'{}': goodput 95% CI half-width is {:.2g} (over 1 point); run more replications",
          st.name, half));
    }
  }
  for (const auto& st : r.strategies) {
    if (st.timeline.truncated) {
      r.warnings.push_back(fmt::format(
          "timeline of '{}' truncated at {} entries per list", st.name, st.timeline.limit));
    }
  }
  if (s.train_tokens > 0) {
    for (const auto& st : r.strategies) {
      int unfinished = 0;
      for (const auto& rep : st.replications) {
        if (at(rep, Metric::kTimeToTrainDays) * 86400.0 >= r.horizon_s * (1 - 1e-12)) ++unfinished;
      }
      if (unfinished > 0) {
        r.warnings.push_back(fmt::format(
            "'{}': {} of {} replications did not reach the token budget within {} days (their "
            "time to train is that cap)",
            st.name, unfinished, n, r.horizon_s / 86400.0));
      }
    }
  }
}

}  // namespace

Result<RunResult> run_monte_carlo(const Scenario& s, const RunOptions& opts) {
  auto sim = Simulation::prepare(s);
  if (!sim.ok()) return sim.error();
  return run_monte_carlo(**sim, opts);
}

Result<RunResult> run_monte_carlo(const Simulation& sim, const RunOptions& opts) {
  const Scenario& s = sim.scenario();
  const auto& strategies = sim.strategies();
  RunResult r;
  r.layout = sim.layout();
  r.step_model = sim.step_model().name();
  r.checkpoint_interval_s = sim.engine_config().interval_s_chosen;
  r.ideal_tokens_per_s = sim.ideal_tokens_per_s();
  r.horizon_s = sim.engine_config().end.seconds();
  for (size_t k = 0; k < strategies.size(); ++k) {
    StrategyRun run;
    run.name = strategies[k]->name();
    run.label = s.strategies[k].label.empty() ? run.name : s.strategies[k].label;
    run.checkpoint_interval_s = sim.checkpoint_interval_s(k);
    run.resume = to_string(sim.strategies()[k]->resume().mechanism);
    r.strategies.push_back(std::move(run));
  }

  const ReplicationCount count = ReplicationCount::of(s, opts.replications);
  RunnerOptions ro;
  ro.threads = opts.threads;
  ro.cancel = opts.cancel;
  ro.progress = opts.progress;
  ro.rank = opts.distribution.rank;
  ro.ranks = opts.distribution.ranks;
  if (opts.distribution.exchange) {
    ro.exchange = [&](int begin, int end, bool ok, uint64_t& events) {
      return opts.distribution.exchange(begin, end, ok, r.strategies, events);
    };
  }
  ro.memory_budget_bytes = opts.memory_budget_bytes;
  ro.result_rows_per_replication = static_cast<int>(strategies.size());
  ro.results_document = opts.results_document;

  ReplicationWork work;
  work.grow = [&](int n) {
    for (auto& st : r.strategies) st.replications.resize(static_cast<size_t>(n));
  };
  // Strategies that share their cluster trajectory run together, in groups led by their first
  // member (Engine::run_together; the results are those of separate runs). Rules that agree
  // while the job is whole join only where in-domain swaps keep it whole.
  std::vector<const Strategy*> list;
  for (const auto& st : strategies) list.push_back(st.get());
  const std::vector<std::vector<size_t>> groups =
      Engine::trajectory_groups(list, sim.layout().idle_per_domain > 0);
  // Every strategy on the same failures (common random numbers); replication 0 records the
  // timeline when asked (only the worker running replication 0 touches it and the warnings).
  work.run = [&](const Replication& rep) {
    uint64_t events = 0;
    const bool timeline = rep.index == 0 && opts.timeline;
    const auto i = static_cast<size_t>(rep.index);
    if (timeline) {
      for (size_t k = 0; k < strategies.size(); ++k) {
        r.strategies[k].replications[i] = rep.engine.run(
            *strategies[k], sim.checkpoint_interval(k), rep.schedule, &r.strategies[k].timeline);
        events += rep.engine.events_processed();
      }
    } else {
      std::vector<Engine::StrategyRun> runs;
      std::vector<ReplicationMetrics> metrics;
      for (const std::vector<size_t>& g : groups) {
        runs.clear();
        for (size_t k : g) runs.push_back({strategies[k].get(), sim.checkpoint_interval(k)});
        events += rep.engine.run_together(runs, rep.schedule, metrics);
        for (size_t j = 0; j < g.size(); ++j) r.strategies[g[j]].replications[i] = metrics[j];
      }
    }
    if (timeline) {
      r.failures = failure_records(rep.failures, sim.topology(), rep.source.kind_names(),
                                   StrategyTimeline{}.limit);
      if (r.failures.size() < rep.failures.size()) {
        r.warnings.push_back(
            fmt::format("timeline failures of replication 0 truncated at {} of {} entries",
                        r.failures.size(), rep.failures.size()));
      }
    }
    return events;
  };
  work.target_met = [&](int n) { return ci_target_met(r, n, s.replications.target_ci_halfwidth); };

  auto ran = run_replications(sim, count, ro, work);
  if (!ran.ok()) return ran.error();
  r.replications = ran->replications;
  r.events = ran->events;
  r.notices = std::move(ran->notices);
  add_warnings(s, count, *ran, r);
  for (const auto& st : sim.strategies()) {
    const ResumeSpec& rs = st->resume();
    if (rs.mechanism == Resume::kRestartFromMemory) {
      // Two copies (own and peer) of each of the host's GPUs' state; profiles carry no host
      // memory size, so the footprint is stated rather than checked.
      const auto state = models::gpu_state_cost(s.workload, s.layout, s.hardware);
      if (state.ok()) {
        const int host_gpus = sim.engine_config().host_gpus;
        r.warnings.push_back(fmt::format(
            "'{}': resume: restart_from_memory keeps {:.1f} GB of snapshots in each host's memory "
            "({} GPUs x {:.2f} GB of state, own and peer copy); not checked against host memory, "
            "which hardware profiles do not give",
            st->label(), 2.0 * host_gpus * state->bytes / 1e9, host_gpus, state->bytes / 1e9));
      }
    }
    if (rs.mechanism == Resume::kInPlace && rs.state_copy == StateCopy::kNone) {
      r.warnings.push_back(fmt::format(
          "'{}': resume: in_place with state_copy: none (allow_lost_state): its result assumes "
          "that a failed GPU's optimizer shard survives, which the distributed optimizer's "
          "single copy does not",
          st->label()));
    }
  }
  return r;
}

}  // namespace ntpsim::sim
