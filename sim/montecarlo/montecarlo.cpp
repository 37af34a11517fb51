#include "sim/montecarlo/montecarlo.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "models/step_model.h"
#include "sim/cluster/topology.h"
#include "sim/engine/engine.h"
#include "sim/failures/failure_source.h"
#include "sim/metrics/aggregate.h"
#include "sim/strategies/strategy.h"

namespace ntpsim::sim {
namespace {

// Everything the workers share, read-only.
struct Shared {
  const Scenario* scenario = nullptr;
  const Topology* topology = nullptr;
  std::shared_ptr<const TraceData> trace;
  EngineConfig config;
  std::vector<std::unique_ptr<Strategy>> strategies;
};

std::vector<FailureRecord> failure_records(const std::vector<FailureEvent>& events,
                                           const Topology& topo,
                                           const std::vector<std::string>& kinds) {
  std::vector<FailureRecord> out;
  out.reserve(events.size());
  for (const auto& e : events) {
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

// Runs replications [begin, end) over `threads` threads into `result`.
Status run_batch(const Shared& sh, int begin, int end, int threads, int total_hint,
                 const RunOptions& opts, RunResult& result, std::atomic<int>& done) {
  std::atomic<int> next{begin};
  std::atomic<uint64_t> events{0};
  std::mutex error_mu;
  std::optional<Error> error;
  auto worker = [&] {
    Engine engine(sh.config);
    EventSchedule schedule;
    std::vector<FailureEvent> failures;
    failures.reserve(1024);
    uint64_t my_events = 0;
    while (true) {
      if (opts.cancel != nullptr && opts.cancel->load(std::memory_order_relaxed)) break;
      const int i = next.fetch_add(1);
      if (i >= end) break;
      auto src = FailureSource::make(*sh.scenario, *sh.topology, sh.trace, sh.scenario->seed,
                                     static_cast<uint64_t>(i));
      if (!src.ok()) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = src.error();
        break;
      }
      failures.clear();
      FailureEvent e;
      while (src->next(e) && e.time < sh.config.end) failures.push_back(e);
      schedule.build(failures, sh.config.end);
      for (size_t k = 0; k < sh.strategies.size(); ++k) {
        StrategyTimeline* tl =
            (i == 0 && opts.timeline) ? &result.strategies[k].timeline : nullptr;
        result.strategies[k].replications[static_cast<size_t>(i)] =
            engine.run(*sh.strategies[k], failures, schedule, tl);
        my_events += engine.events_processed();
      }
      if (i == 0 && opts.timeline) {
        result.failures = failure_records(failures, *sh.topology, src->kind_names());
      }
      const int d = done.fetch_add(1) + 1;
      if (opts.progress) opts.progress(d, total_hint);
    }
    events.fetch_add(my_events);
  };
  std::vector<std::thread> pool;
  const int n = std::max(1, std::min(threads, end - begin));
  pool.reserve(static_cast<size_t>(n - 1));
  for (int t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  result.events += events.load();
  if (error) return *error;
  return Status::Ok();
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

}  // namespace

Result<RunResult> run_monte_carlo(const Scenario& s, const RunOptions& opts) {
  auto layout = JobLayout::make(s);
  if (!layout.ok()) return layout.error();
  auto topo = Topology::build(s.cluster);
  if (!topo.ok()) return topo.error();
  auto model = s.step_model == "proportional"
                   ? Result<std::unique_ptr<models::StepModel>>(
                         models::make_proportional_model(s.workload, s.layout, s.hardware))
                   : models::make_step_model(s.step_model, s.workload, s.layout, s.hardware);
  if (!model.ok()) return model.error();
  const models::StepModel& m = **model;

  Shared sh;
  sh.scenario = &s;
  sh.topology = &*topo;
  if (s.failures.trace) {
    auto trace = load_trace(*s.failures.trace);
    if (!trace.ok()) return trace.error();
    sh.trace = *trace;
  }
  const double rate =
      expected_interruption_rate_per_s(s, *topo, layout->job_gpus, sh.trace.get());
  const double healthy_s = m.healthy_iteration_s();
  if (!(healthy_s > 0)) return Error::bad_input("step model: healthy iteration time is not positive");
  const double ideal_tokens_per_s = s.workload.tokens_per_iteration() / healthy_s;
  auto cfg = EngineConfig::make(s, *layout, rate, ideal_tokens_per_s);
  if (!cfg.ok()) return cfg.error();
  sh.config = *cfg;
  if (s.strategies.empty()) return Error::bad_input("strategies: at least one is required");
  for (const auto& sc : s.strategies) {
    auto st = make_strategy(sc, m, *layout, s.hardware);
    if (!st.ok()) return st.error();
    sh.strategies.push_back(std::move(st.value()));
  }
  // Bad failure parameters show up here, before any thread starts.
  auto probe = FailureSource::make(s, *topo, sh.trace, s.seed, 0);
  if (!probe.ok()) return probe.error();

  RunResult r;
  r.layout = *layout;
  r.step_model = m.name();
  r.checkpoint_interval_s = cfg->interval_s_chosen;
  r.ideal_tokens_per_s = ideal_tokens_per_s;
  r.horizon_s = cfg->end.seconds();
  for (size_t k = 0; k < sh.strategies.size(); ++k) {
    StrategyRun run;
    run.name = sh.strategies[k]->name();
    run.label = s.strategies[k].label.empty() ? run.name : s.strategies[k].label;
    r.strategies.push_back(std::move(run));
  }

  const int threads = opts.threads > 0
                          ? opts.threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const bool fixed = opts.replications > 0 || s.replications.fixed > 0;
  const int fixed_n = opts.replications > 0 ? opts.replications : s.replications.fixed;
  const int min_n = fixed ? fixed_n : std::max(2, s.replications.min);
  const int max_n = fixed ? fixed_n : std::max(min_n, s.replications.max);
  std::atomic<int> done{0};
  int n = 0;
  int batch_end = min_n;
  while (true) {
    for (auto& st : r.strategies) st.replications.resize(static_cast<size_t>(batch_end));
    const Distribution& dist = opts.distribution;
    if (dist.ranks <= 1) {
      NTPSIM_RETURN_IF_ERROR(run_batch(sh, n, batch_end, threads, max_n, opts, r, done));
    } else {
      const int64_t span = batch_end - n;
      const int mine_begin = n + static_cast<int>(span * dist.rank / dist.ranks);
      const int mine_end = n + static_cast<int>(span * (dist.rank + 1) / dist.ranks);
      const uint64_t events_before = r.events;
      const Status st = run_batch(sh, mine_begin, mine_end, threads, max_n, opts, r, done);
      uint64_t batch_events = r.events - events_before;
      // An interrupted rank reports failure in the collective exchange, so every rank stops at
      // the same batch boundary (a rank that returned alone would leave the others waiting).
      const bool cancelled = opts.cancel != nullptr && opts.cancel->load(std::memory_order_relaxed);
      if (!dist.exchange(n, batch_end, st.ok() && !cancelled, r.strategies, batch_events)) {
        if (!st.ok()) return st.error();
        if (cancelled) {
          return Error::runtime(fmt::format("interrupted: {} of {} replications finished",
                                            n, max_n));
        }
        return Error::runtime(
            "another MPI rank failed or was interrupted; its message is in its own output");
      }
      r.events = events_before + batch_events;
    }
    // A flag that arrives after the batch's last replication started changes nothing.
    if (dist.ranks <= 1 && opts.cancel != nullptr &&
        opts.cancel->load(std::memory_order_relaxed) && done.load() < batch_end) {
      return Error::runtime(fmt::format("interrupted: {} of {} replications finished",
                                        done.load(), max_n));
    }
    n = batch_end;
    if (fixed || n >= max_n || ci_target_met(r, n, s.replications.target_ci_halfwidth)) break;
    batch_end = std::min(max_n, 2 * n);
  }
  r.replications = n;

  if (!fixed && !ci_target_met(r, n, s.replications.target_ci_halfwidth)) {
    r.warnings.push_back(fmt::format(
        "the goodput CI half-width target {} was not reached within {} replications",
        s.replications.target_ci_halfwidth, max_n));
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
  return r;
}

}  // namespace ntpsim::sim
