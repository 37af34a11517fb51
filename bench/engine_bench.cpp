// Microbenchmarks of the engine: event queue push/pop, each strategy's reconfiguration
// (JobState fail + reassign + Strategy::shape) at 1K / 10K / 100K GPUs, step-time model
// evaluation, and one whole replication-year of the Monte Carlo runner (events/s).
// Scenarios are bench/llama3-100k-year.yaml resized with --set. Run a Release build:
// build/<name>/bench/ntpsim_bench_engine.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "models/base/check.h"
#include "models/base/random.h"
#include "models/step_model.h"
#include "sim/engine/event_queue.h"
#include "sim/engine/job_state.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/scenario/loader.h"
#include "sim/simulation/simulation.h"
#include "sim/strategies/strategy.h"

namespace ntpsim::sim {
namespace {

const std::string kScenario = std::string(NTPSIM_BENCH_DIR) + "/llama3-100k-year.yaml";
const char* const kStrategies[] = {"checkpoint_restart", "dp_drop", "spare_substitution", "ntp",
                                   "ntp_power_boost", "spares_then_ntp",
                                   "spares_then_ntp_power_boost"};

// The bench scenario at about `gpus` GPUs: NVL72 racks, TP 64, PP 16, one TP group per rack;
// `strategy` non-empty: that strategy only.
Scenario scenario_of(int64_t gpus, const std::string& strategy = "") {
  const int64_t dp = std::max<int64_t>(1, gpus / (72 * 16));
  std::vector<std::string> set = {"cluster.domains=" + std::to_string(dp * 16),
                                  "layout.dp=" + std::to_string(dp)};
  if (!strategy.empty()) set.push_back("strategies=[" + strategy + "]");
  auto s = load_scenario(kScenario, set);
  NTPSIM_CHECK(s.ok());
  return *s;
}

void BM_EventQueuePushPop(benchmark::State& state) {
  const int64_t n = state.range(0);
  Stream rng(1, 0, "bench.queue");
  std::vector<Time> times;
  for (int64_t i = 0; i < n; ++i) {
    times.push_back(Time::at(Duration::from_seconds(rng.uniform01() * 3.15e7)));
  }
  EventQueue q;
  q.reserve(static_cast<size_t>(n));
  for (auto _ : state) {
    q.clear();
    for (int64_t i = 0; i < n; ++i) {
      q.push(times[static_cast<size_t>(i)], EventPriority::kFailure, EventType::kFailure, i);
    }
    int64_t sum = 0;
    while (!q.empty()) sum += q.pop().payload;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * n);  // one push and one pop each
}
BENCHMARK(BM_EventQueuePushPop)->Arg(64)->Arg(4096)->Arg(65536);

// One failure of a random GPU, the job re-picked and reshaped, then its repair and reshape.
// `entry`: the strategy's YAML entry when it is not just its name.
void BM_Reconfigure(benchmark::State& state, const char* strategy, const char* entry = nullptr) {
  auto sim = Simulation::prepare(scenario_of(state.range(0), entry ? entry : strategy));
  NTPSIM_CHECK(sim.ok());
  const int k = (*sim)->strategy_index(strategy);
  NTPSIM_CHECK(k >= 0);
  const Strategy& st = *(*sim)->strategies()[static_cast<size_t>(k)];
  const JobLayout& layout = (*sim)->layout();
  JobState job(layout);
  job.reset(st.rules());
  Stream rng(7, 0, "bench.reconfigure");
  const uint64_t gpus = static_cast<uint64_t>(layout.cluster_gpus);
  double sink = 0;
  for (auto _ : state) {
    const GpuRange g{static_cast<int64_t>(rng.uniform_int(gpus)), 1};
    job.fail(g);
    job.reassign();
    sink += st.shape(job.histogram()).rate;
    job.repair(g);
    job.reassign();
    sink += st.shape(job.histogram()).rate;
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * 2);
}
BENCHMARK_CAPTURE(BM_Reconfigure, checkpoint_restart, kStrategies[0])->Arg(1152)->Arg(10368)->Arg(100224);
BENCHMARK_CAPTURE(BM_Reconfigure, dp_drop, kStrategies[1])->Arg(1152)->Arg(10368)->Arg(100224);
BENCHMARK_CAPTURE(BM_Reconfigure, spare_substitution, kStrategies[2])->Arg(1152)->Arg(10368)->Arg(100224);
BENCHMARK_CAPTURE(BM_Reconfigure, ntp, kStrategies[3])->Arg(1152)->Arg(10368)->Arg(100224);
BENCHMARK_CAPTURE(BM_Reconfigure, ntp_power_boost, kStrategies[4])->Arg(1152)->Arg(10368)->Arg(100224);
// The same rules and shapes as spares_then_ntp through spare_substitution's fallback: the chain
// must cost no more.
BENCHMARK_CAPTURE(BM_Reconfigure, spare_substitution_ntp, kStrategies[2],
                  "{name: spare_substitution, fallback: ntp}")
    ->Arg(1152)
    ->Arg(10368)
    ->Arg(100224);
BENCHMARK_CAPTURE(BM_Reconfigure, spares_then_ntp, kStrategies[5])->Arg(1152)->Arg(10368)->Arg(100224);
BENCHMARK_CAPTURE(BM_Reconfigure, spares_then_ntp_power_boost, kStrategies[6])->Arg(1152)->Arg(10368)->Arg(100224);

// The analytic step-time model at every TP degree from nominal down to its minimum.
void BM_StepModel(benchmark::State& state) {
  const Scenario s = scenario_of(100224);
  auto model = models::make_step_model(s.step_model, s.workload, s.layout, s.hardware);
  NTPSIM_CHECK(model.ok());
  const models::StepModel& m = **model;
  int64_t evals = 0;
  double sink = 0;
  for (auto _ : state) {
    for (int tp = m.nominal_tp(); tp >= m.min_tp(); --tp) {
      sink += m.replica_iteration_s(tp, 1.0, 1.0);
      ++evals;
    }
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(evals);
}
BENCHMARK(BM_StepModel);

// One replication-year, every strategy, one thread: failure generation plus the engine loop.
void BM_ReplicationYear(benchmark::State& state) {
  const Scenario s = scenario_of(state.range(0));
  RunOptions opts;
  opts.replications = 1;
  opts.threads = 1;
  opts.timeline = false;
  uint64_t events = 0;
  uint64_t seed = 0;
  for (auto _ : state) {
    Scenario run = s;
    run.seed = ++seed;
    auto r = run_monte_carlo(run, opts);
    NTPSIM_CHECK(r.ok());
    events += r->events;
  }
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ReplicationYear)->Arg(1152)->Arg(10368)->Arg(100224)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ntpsim::sim

BENCHMARK_MAIN();
