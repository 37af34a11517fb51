#include "sim/simulation/runner.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <thread>

#include "models/base/check.h"
#include "sim/failures/trace.h"
#include "sim/scenario/loader.h"

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
//   1,458 MB with 1 thread and 2,616 MB with 2 (since the schedule's events carry their
//   failure's GPUs, 24 B each; 1,159 and 2,211 MB before), so up to 146 B per failure per worker
//   (the failure vector and the event schedule, each at up to twice its size). 9,999,936 GPUs
//   over 5.5 years (9.5e6 failures), 1 thread: 1,539 MB.
// - results: 120 B per strategy x replication (ReplicationMetrics); the results JSON document
//   adds about 2.4 KB each (5 strategies of a 40-GPU scenario: 10^5 replications take 67 MB
//   without the document, 1,152 MB with it; 3 x 10^5 with it, 3,731 MB).
// - a loaded trace is added as it is (its faults and node ids); a 64 MiB CSV trace of 2.5e6
//   faults replayed over 300 days by 2 threads peaks at 677 MB.
constexpr double kSetupBytesPerGpu = 160;
constexpr double kSharedBytesPerGpu = 60;
constexpr double kSharedFixedBytes = 64.0 * (1 << 20);  // binary, models, profiles, allocator
constexpr double kWorkerBytesPerGpu = 20;
constexpr double kWorkerBytesPerFailure = 160;
constexpr double kWorkerFixedBytes = 4.0 * (1 << 20);
constexpr double kResultBytesPerRow = 128;
constexpr double kDocumentBytesPerRow = 2400;
constexpr size_t kTraceBytesPerNode = 64;  // a node id string and its index entry

double gib(int64_t bytes) {
  return static_cast<double>(bytes) / (1 << 30);
}

// Runs replications [begin, end) over `threads` threads; counts finished replications in `done`
// and engine events in `events`.
Status run_batch(const Simulation& sim, int begin, int end, int threads, int total_hint,
                 const RunnerOptions& opts, const ReplicationWork& work, std::atomic<int>& done,
                 uint64_t& events) {
  std::atomic<int> next{begin};
  std::atomic<uint64_t> batch_events{0};
  std::mutex error_mu;
  std::optional<Error> error;
  auto worker = [&] {
    Engine engine(sim.engine_config());
    EventSchedule schedule;
    std::vector<FailureEvent> failures;
    failures.reserve(1024);
    const Time end_time = sim.engine_config().end;
    uint64_t my_events = 0;
    while (true) {
      if (opts.cancel != nullptr && opts.cancel->load(std::memory_order_relaxed)) break;
      const int i = next.fetch_add(1);
      if (i >= end) break;
      auto src = sim.failure_source(static_cast<uint64_t>(i));
      if (!src.ok()) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = src.error();
        break;
      }
      failures.clear();
      // Each event popped straight into its slot: a copy through a local would read the
      // just-written fields back in wider words (a store-forwarding stall per failure).
      while (true) {
        FailureEvent& e = failures.emplace_back();
        if (!src->next(e) || e.time >= end_time) {
          failures.pop_back();
          break;
        }
      }
      schedule.build(failures, end_time);
      my_events += work.run(Replication{i, engine, failures, schedule, *src});
      const int d = done.fetch_add(1) + 1;
      if (opts.progress) opts.progress(d, total_hint);
    }
    batch_events.fetch_add(my_events);
  };
  std::vector<std::thread> pool;
  const int n = std::max(1, std::min(threads, end - begin));
  pool.reserve(static_cast<size_t>(n - 1));
  for (int t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  events += batch_events.load();
  if (error) return *error;
  return Status::Ok();
}

// The worker threads this run may use (docs/limits.md): refuses up front a replication count
// given as a run option that expects over kMaxFailuresPerRun failures in all, and a run whose
// single replication does not fit in the memory budget; caps the threads so the memory estimate
// stays within it (with a notice: results do not depend on the thread count).
Result<int> threads_within_limits(const Simulation& sim, const ReplicationCount& count,
                                  const RunnerOptions& opts, int requested,
                                  std::vector<std::string>& notices) {
  const Scenario& s = sim.scenario();
  const int replications = count.max;
  if (count.overridden) {
    const double total = expected_process_failures(s) * count.max;
    if (total > kMaxFailuresPerRun) {
      return Error::bad_input(fmt::format(
          "replications: {} replications (overriding the scenario's) expect about {:.3g} "
          "failures in all; more than {:g} cannot be simulated in reasonable time: lower the "
          "replications",
          count.max, total, kMaxFailuresPerRun));
    }
  }
  const int64_t cluster_gpus = sim.layout().cluster_gpus;
  const double failures = sim.expected_failures_per_replication();
  MemoryEstimate m = estimate_run_memory(cluster_gpus, failures, replications,
                                         opts.result_rows_per_replication, opts.results_document);
  if (const auto& trace = sim.trace()) {  // already loaded: at most about 100 MB
    m.shared_bytes += static_cast<int64_t>(trace->faults.size() * sizeof(TraceFault) +
                                           trace->node_names.size() * kTraceBytesPerNode);
  }
  const int64_t budget =
      opts.memory_budget_bytes > 0 ? opts.memory_budget_bytes : default_memory_budget_bytes();
  const std::string budget_text =
      fmt::format("the memory budget of {:.2f} GiB{}", gib(budget),
                  opts.memory_budget_bytes > 0 ? "" : " (half of the physical memory)");
  const int workers = workers_within_budget(m, requested, budget);
  if (workers == 0) {
    // Name the field behind the largest part of the estimate.
    const double gpu_part = kSetupBytesPerGpu * static_cast<double>(cluster_gpus);
    const double failure_part = kWorkerBytesPerFailure * failures;
    const double result_part = static_cast<double>(m.shared_bytes) - kSharedFixedBytes -
                               kSharedBytesPerGpu * static_cast<double>(cluster_gpus);
    const char* lower = result_part > std::max(gpu_part, failure_part) ? "replications"
                        : gpu_part > failure_part                      ? "cluster.domains"
                                                  : "horizon (or the failure rates)";
    return Error::bad_input(fmt::format(
        "{}: one replication of {} GPUs and about {:.3g} failures, with the results of {} "
        "replications, needs about {:.2f} GiB, over {} (docs/limits.md)",
        lower, cluster_gpus, failures, replications, gib(m.peak_bytes(1)), budget_text));
  }
  if (workers < requested) {
    notices.push_back(fmt::format(
        "threads reduced from {} to {} to stay within {}: about {:.3g} GiB per replication in "
        "flight; results do not depend on the thread count",
        requested, workers, budget_text, gib(m.per_worker_bytes)));
  }
  return workers;
}

Error interrupted(int finished, int total) {
  return Error::runtime(
      fmt::format("interrupted: {} of {} replications finished", finished, total));
}

}  // namespace

ReplicationCount ReplicationCount::of(const Scenario& s, int replications) {
  ReplicationCount c;
  c.overridden = replications > 0;
  c.fixed = replications > 0 || s.replications.fixed > 0;
  const int fixed_n = replications > 0 ? replications : s.replications.fixed;
  c.min = c.fixed ? fixed_n : std::max(2, s.replications.min);
  c.max = c.fixed ? fixed_n : std::max(c.min, s.replications.max);
  return c;
}

Result<RunnerResult> run_replications(const Simulation& sim, const ReplicationCount& count,
                                      const RunnerOptions& opts, const ReplicationWork& work) {
  NTPSIM_CHECK(work.run && (count.fixed || work.target_met));
  NTPSIM_CHECK(opts.ranks <= 1 || opts.exchange);
  NTPSIM_CHECK(sim.use() == StrategyUse::kRun);  // a screen-only simulation has no shape tables
  RunnerResult out;
  const int requested = opts.threads > 0
                            ? opts.threads
                            : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  // More threads than replications would idle; only the ones that run count against the budget.
  auto threads =
      threads_within_limits(sim, count, opts, std::min(requested, count.max), out.notices);
  if (!threads.ok()) return threads.error();
  const bool cancellable = opts.cancel != nullptr;
  std::atomic<int> done{0};
  int n = 0;
  int batch_end = count.min;
  while (true) {
    if (work.grow) work.grow(batch_end);
    if (opts.ranks <= 1) {
      NTPSIM_RETURN_IF_ERROR(
          run_batch(sim, n, batch_end, *threads, count.max, opts, work, done, out.events));
      // A flag that arrives after the batch's last replication started changes nothing.
      if (cancellable && opts.cancel->load(std::memory_order_relaxed) && done.load() < batch_end) {
        return interrupted(done.load(), count.max);
      }
    } else {
      const int64_t span = batch_end - n;
      const int mine_begin = n + static_cast<int>(span * opts.rank / opts.ranks);
      const int mine_end = n + static_cast<int>(span * (opts.rank + 1) / opts.ranks);
      uint64_t batch_events = 0;
      const Status st =
          run_batch(sim, mine_begin, mine_end, *threads, count.max, opts, work, done, batch_events);
      // An interrupted rank reports failure in the collective exchange, so every rank stops at
      // the same batch boundary (a rank that returned alone would leave the others waiting).
      const bool cancelled = cancellable && opts.cancel->load(std::memory_order_relaxed);
      if (!opts.exchange(n, batch_end, st.ok() && !cancelled, batch_events)) {
        if (!st.ok()) return st.error();
        if (cancelled) return interrupted(n, count.max);
        return Error::runtime(
            "another MPI rank failed or was interrupted; its message is in its own output");
      }
      out.events += batch_events;
    }
    n = batch_end;
    if (count.fixed || n >= count.max || work.target_met(n)) break;
    batch_end = std::min(count.max, 2 * n);
  }
  out.replications = n;
  out.target_met = count.fixed || work.target_met(n);
  return out;
}

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

}  // namespace ntpsim::sim
