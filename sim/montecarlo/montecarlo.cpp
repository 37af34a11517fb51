#include "sim/montecarlo/montecarlo.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "models/base/check.h"
#include "models/step_model.h"
#include "sim/cluster/topology.h"
#include "sim/engine/engine.h"
#include "sim/failures/failure_source.h"
#include "sim/failures/trace.h"
#include "sim/metrics/aggregate.h"
#include "sim/scenario/loader.h"
#include "sim/strategies/strategy.h"

namespace ntpsim::sim {
namespace {

// Memory coefficients of estimate_run_memory, measured on the release build (GCC 12 -O3, glibc
// malloc; peak RSS from /usr/bin/time -v) with bench/llama3-1m-year.yaml resized, rounded up
// (docs/limits.md lists the runs):
// - setup: 9,999,936 GPUs, 1 day, 1 thread peaks at 1,517 MB while Topology::build holds its
//   Boost graph (freed before the workers start): 152 B per GPU.
// - workers: the same cluster with 8 and 16 threads (32 and 64 replications, about 4,700
//   failures each): 1,781 and 3,021 MB, so 155 MB per worker (JobState's 16-byte state per GPU and
//   the failure source's per-unit tables, 16 B per GPU) over 540 MB held once (54 B per GPU).
// - failures: 800 racks (57,600 GPUs) over 1000 years, about 9.9e6 failures per replication:
//   1,159 MB with 1 thread and 2,211 MB with 2, so about 110 B per failure per worker (the
//   failure vector at up to twice its size and the event schedule). 9,999,936 GPUs over 5.5
//   years (9.5e6 failures), 1 thread: 1,788 MB.
// - results: 120 B per strategy x replication (ReplicationMetrics); the results JSON document
//   adds about 2.4 KB each (5 strategies of a 40-GPU scenario: 10^5 replications take 67 MB
//   without the document, 1,152 MB with it; 3 x 10^5 with it, 3,731 MB).
// - a loaded trace is added as it is (its faults and node ids); a 64 MiB CSV trace of 2.5e6
//   faults replayed over 300 days by 2 threads peaks at 677 MB.
constexpr double kSetupBytesPerGpu = 160;
constexpr double kSharedBytesPerGpu = 60;
constexpr double kSharedFixedBytes = 64.0 * (1 << 20);  // binary, models, profiles, allocator
constexpr double kWorkerBytesPerGpu = 20;
constexpr double kWorkerBytesPerFailure = 128;
constexpr double kWorkerFixedBytes = 4.0 * (1 << 20);
constexpr double kResultBytesPerRow = 128;
constexpr double kDocumentBytesPerRow = 2400;
constexpr size_t kTraceBytesPerNode = 64;  // a node id string and its index entry

double gib(int64_t bytes) {
  return static_cast<double>(bytes) / (1 << 30);
}

// Failure events one replication draws: its processes, and the trace (looped over the run).
double failures_per_replication(const Scenario& s, const TraceData* trace, double run_s) {
  double n = expected_process_failures(s);
  if (trace != nullptr && s.failures.trace) {
    const auto faults = static_cast<double>(trace->faults.size());
    const double period_s = trace->span_s * s.failures.trace->time_scale;
    n += s.failures.trace->loop && period_s > 0 ? faults * (run_s / period_s + 1) : faults;
  }
  return n;
}

// Everything the workers share, read-only.
struct Shared {
  const Scenario* scenario = nullptr;
  const Topology* topology = nullptr;
  std::shared_ptr<const TraceData> trace;
  EngineConfig config;
  std::vector<std::unique_ptr<Strategy>> strategies;
};

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
        result.failures =
            failure_records(failures, *sh.topology, src->kind_names(), StrategyTimeline{}.limit);
        if (result.failures.size() < failures.size()) {  // only this worker touches warnings now
          result.warnings.push_back(
              fmt::format("timeline failures of replication 0 truncated at {} of {} entries",
                          result.failures.size(), failures.size()));
        }
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

// The worker threads this run may use (issue 11, docs/limits.md): refuses up front a replication
// count given as a run option that expects over kMaxFailuresPerRun failures in all, and a run
// whose single replication does not fit in the memory budget; caps the threads so the memory
// estimate stays within it (with a notice: results do not depend on the thread count).
Result<int> threads_within_limits(const Scenario& s, const JobLayout& layout, const Shared& sh,
                                  const RunOptions& opts, int requested, int replications,
                                  std::vector<std::string>& notices) {
  if (opts.replications > 0) {
    const double total = expected_process_failures(s) * opts.replications;
    if (total > kMaxFailuresPerRun) {
      return Error::bad_input(fmt::format(
          "replications: {} replications (overriding the scenario's) expect about {:.3g} "
          "failures in all; more than {:g} cannot be simulated in reasonable time: lower the "
          "replications",
          opts.replications, total, kMaxFailuresPerRun));
    }
  }
  const double failures = failures_per_replication(s, sh.trace.get(), sh.config.end.seconds());
  MemoryEstimate m =
      estimate_run_memory(layout.cluster_gpus, failures, replications,
                          static_cast<int>(sh.strategies.size()), opts.results_document);
  if (sh.trace) {  // already loaded: at most about 100 MB for a trace at kMaxTraceBytes
    m.shared_bytes += static_cast<int64_t>(sh.trace->faults.size() * sizeof(TraceFault) +
                                           sh.trace->node_names.size() * kTraceBytesPerNode);
  }
  const int64_t budget =
      opts.memory_budget_bytes > 0 ? opts.memory_budget_bytes : default_memory_budget_bytes();
  const std::string budget_text =
      fmt::format("the memory budget of {:.2f} GiB{}", gib(budget),
                  opts.memory_budget_bytes > 0 ? "" : " (half of the physical memory)");
  const int workers = workers_within_budget(m, requested, budget);
  if (workers == 0) {
    // Name the field behind the largest part of the estimate.
    const double gpu_part = kSetupBytesPerGpu * static_cast<double>(layout.cluster_gpus);
    const double failure_part = kWorkerBytesPerFailure * failures;
    const double result_part = static_cast<double>(m.shared_bytes) - kSharedFixedBytes -
                               kSharedBytesPerGpu * static_cast<double>(layout.cluster_gpus);
    const char* lower = result_part > std::max(gpu_part, failure_part) ? "replications"
                        : gpu_part > failure_part                      ? "cluster.domains"
                                                  : "horizon (or the failure rates)";
    return Error::bad_input(fmt::format(
        "{}: one replication of {} GPUs and about {:.3g} failures, with the results of {} "
        "replications, needs about {:.2f} GiB, over {} (docs/limits.md)",
        lower, layout.cluster_gpus, failures, replications, gib(m.peak_bytes(1)), budget_text));
  }
  if (workers < requested) {
    notices.push_back(fmt::format(
        "threads reduced from {} to {} to stay within {}: about {:.3g} GiB per replication in "
        "flight; results do not depend on the thread count",
        requested, workers, budget_text, gib(m.per_worker_bytes)));
  }
  return workers;
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

int64_t MemoryEstimate::peak_bytes(int workers) const {
  return std::max(setup_peak_bytes, shared_bytes + per_worker_bytes * std::max(0, workers));
}

MemoryEstimate estimate_run_memory(int64_t cluster_gpus, double failures_per_replication,
                                   int replications, int strategies, bool results_document) {
  const auto gpus = static_cast<double>(std::max<int64_t>(0, cluster_gpus));
  const double rows = static_cast<double>(std::max(0, replications)) * std::max(0, strategies);
  const double row_bytes = kResultBytesPerRow + (results_document ? kDocumentBytesPerRow : 0.0);
  MemoryEstimate m;
  m.setup_peak_bytes = static_cast<int64_t>(kSharedFixedBytes + kSetupBytesPerGpu * gpus);
  m.shared_bytes =
      static_cast<int64_t>(kSharedFixedBytes + kSharedBytesPerGpu * gpus + row_bytes * rows);
  m.per_worker_bytes =
      static_cast<int64_t>(kWorkerFixedBytes + kWorkerBytesPerGpu * gpus +
                           kWorkerBytesPerFailure * std::max(0.0, failures_per_replication));
  return m;
}

int workers_within_budget(const MemoryEstimate& m, int requested, int64_t budget_bytes) {
  NTPSIM_CHECK(requested >= 1);
  if (m.peak_bytes(1) > budget_bytes) return 0;
  if (m.per_worker_bytes <= 0) return requested;
  const int64_t fit = (budget_bytes - m.shared_bytes) / m.per_worker_bytes;
  return static_cast<int>(std::clamp<int64_t>(fit, 1, requested));
}

int64_t default_memory_budget_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return int64_t{8} << 30;
  return static_cast<int64_t>(pages) * page_size / 2;
}

Result<RunResult> run_monte_carlo(const Scenario& s, const RunOptions& opts) {
  auto layout = JobLayout::make(s);
  if (!layout.ok()) return layout.error();
  auto topo = Topology::build(s.cluster);
  if (!topo.ok()) return topo.error();
  auto model = make_scenario_step_model(s);
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

  const int requested_threads =
      opts.threads > 0 ? opts.threads
                       : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const bool fixed = opts.replications > 0 || s.replications.fixed > 0;
  const int fixed_n = opts.replications > 0 ? opts.replications : s.replications.fixed;
  const int min_n = fixed ? fixed_n : std::max(2, s.replications.min);
  const int max_n = fixed ? fixed_n : std::max(min_n, s.replications.max);
  // More threads than replications would idle; only the ones that run count against the budget.
  auto threads = threads_within_limits(s, *layout, sh, opts, std::min(requested_threads, max_n),
                                       max_n, r.notices);
  if (!threads.ok()) return threads.error();
  std::atomic<int> done{0};
  int n = 0;
  int batch_end = min_n;
  while (true) {
    for (auto& st : r.strategies) st.replications.resize(static_cast<size_t>(batch_end));
    const Distribution& dist = opts.distribution;
    if (dist.ranks <= 1) {
      NTPSIM_RETURN_IF_ERROR(run_batch(sh, n, batch_end, *threads, max_n, opts, r, done));
    } else {
      const int64_t span = batch_end - n;
      const int mine_begin = n + static_cast<int>(span * dist.rank / dist.ranks);
      const int mine_end = n + static_cast<int>(span * (dist.rank + 1) / dist.ranks);
      const uint64_t events_before = r.events;
      const Status st = run_batch(sh, mine_begin, mine_end, *threads, max_n, opts, r, done);
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
