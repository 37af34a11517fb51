// Microbenchmarks of the failure layer: samplers, topology build and blast-radius
// lookups, and one replication-year of failures at 1K / 10K / 100K GPUs (make + generate).
// Run a Release build: build/<name>/bench/ntpsim_bench_failures.
#include <benchmark/benchmark.h>

#include "models/base/check.h"
#include "models/base/random.h"
#include "sim/cluster/topology.h"
#include "sim/failures/failure_source.h"

namespace ntpsim::sim {
namespace {

constexpr double kYear = 365.0 * 86400.0;
// About 17,000 GPU failures per year on 100K GPUs (MTBF per GPU about 5.9 years).
constexpr double kGpuRate = 17000.0 / (1e5 * kYear);

Scenario cluster_of(int64_t gpus, const std::string& dist, bool plain = false) {
  Scenario s;
  s.cluster.gpus_per_domain = 72;
  s.cluster.gpus_per_node = 4;
  s.cluster.domains = static_cast<int>((gpus + 71) / 72);
  s.cluster.domains_per_pod = 16;
  FailureProcess p;
  p.component = Component::kGpu;
  p.rate_per_unit_s = kGpuRate;
  p.distribution = dist;
  p.shape = dist == "weibull" ? 0.8 : 1.0;
  FailureKind hard{"hardware", 0.78, {"lognormal", 3 * 86400.0, 1.0, 1.0, {}}, true};
  FailureKind soft{"software", 0.22, {"exponential", 3600.0, 1.0, 1.0, {}}, true};
  p.kinds = {hard, soft};
  p.lemon_fraction = 0.02;
  p.lemon_multiplier = 5;
  p.burst_probability = 0.01;
  p.burst_size = 4;
  if (plain) {  // one kind with a fixed repair, no lemons, no bursts: the generator's floor
    p.kinds = {FailureKind{"hardware", 1.0, {"fixed", 86400.0, 1.0, 1.0, {}}, true}};
    p.lemon_fraction = 0;
    p.burst_probability = 0;
  }
  s.failures.processes = {p};
  return s;
}

void BM_ReplicationYear(benchmark::State& state, const std::string& dist, bool plain) {
  const Scenario s = cluster_of(state.range(0), dist, plain);
  auto t = Topology::build(s.cluster);
  NTPSIM_CHECK(t.ok());
  uint64_t replication = 0;
  int64_t events = 0;
  for (auto _ : state) {
    auto src = FailureSource::make(s, *t, nullptr, 1, replication++);
    NTPSIM_CHECK(src.ok());
    FailureEvent e;
    while (src->next(e) && e.time.seconds() < kYear) ++events;
    benchmark::DoNotOptimize(e);
  }
  state.counters["events/rep"] = benchmark::Counter(static_cast<double>(events) / static_cast<double>(state.iterations()));
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
// Two kinds (lognormal and exponential repairs), 2% lemons at 5x, 1% bursts of 4.
BENCHMARK_CAPTURE(BM_ReplicationYear, exponential, std::string("exponential"), false)
    ->Arg(1024)->Arg(10240)->Arg(102400)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ReplicationYear, exponential_plain, std::string("exponential"), true)
    ->Arg(102400)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ReplicationYear, weibull, std::string("weibull"), false)
    ->Arg(1024)->Arg(10240)->Arg(102400)->Unit(benchmark::kMicrosecond);

// The published InfiniteHBD trace, looped over 10 years on 400 nodes with a random placement.
void BM_TraceReplay10Years(benchmark::State& state) {
  Scenario s;
  s.cluster.domains = 50;
  s.cluster.gpus_per_domain = 64;
  s.cluster.gpus_per_node = 8;
  TraceConfig c;
  c.format = "infinitehbd";
  c.file = std::string(NTPSIM_SHARED_DIR) + "/data/traces/infinitehbd-stepfun/fault_trace.json";
  c.mapping = "random";
  c.loop = true;
  s.failures.trace = c;
  auto trace = load_trace(c);
  NTPSIM_CHECK(trace.ok());
  auto t = Topology::build(s.cluster);
  NTPSIM_CHECK(t.ok());
  uint64_t replication = 0;
  int64_t events = 0;
  for (auto _ : state) {
    auto src = FailureSource::make(s, *t, *trace, 1, replication++);
    NTPSIM_CHECK(src.ok());
    FailureEvent e;
    while (src->next(e) && e.time.seconds() < 10 * kYear) ++events;
    benchmark::DoNotOptimize(e);
  }
  state.counters["events/rep"] = benchmark::Counter(static_cast<double>(events) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_TraceReplay10Years)->Unit(benchmark::kMicrosecond);

void BM_TopologyBuild(benchmark::State& state) {
  const Scenario s = cluster_of(state.range(0), "exponential");
  for (auto _ : state) {
    auto t = Topology::build(s.cluster);
    benchmark::DoNotOptimize(t);
  }
}
BENCHMARK(BM_TopologyBuild)->Arg(102400)->Unit(benchmark::kMillisecond);

void BM_BlastRadius(benchmark::State& state) {
  const Scenario s = cluster_of(102400, "exponential");
  auto t = Topology::build(s.cluster);
  NTPSIM_CHECK(t.ok());
  Stream rng(1, 0, "bench");
  const int64_t nodes = t->units(Component::kNode);
  for (auto _ : state) {
    benchmark::DoNotOptimize(t->blast_radius(Component::kNode, static_cast<int64_t>(rng.uniform_int(static_cast<uint64_t>(nodes)))));
  }
}
BENCHMARK(BM_BlastRadius);

void BM_SamplerExponential(benchmark::State& state) {
  Stream rng(1, 0, "bench");
  for (auto _ : state) benchmark::DoNotOptimize(rng.exponential(3600.0));
}
BENCHMARK(BM_SamplerExponential);

void BM_SamplerWeibull(benchmark::State& state) {
  Stream rng(1, 0, "bench");
  for (auto _ : state) benchmark::DoNotOptimize(rng.weibull(0.8, 3600.0));
}
BENCHMARK(BM_SamplerWeibull);

void BM_SamplerLognormal(benchmark::State& state) {
  Stream rng(1, 0, "bench");
  for (auto _ : state) benchmark::DoNotOptimize(rng.lognormal(8.0, 1.0));
}
BENCHMARK(BM_SamplerLognormal);

}  // namespace
}  // namespace ntpsim::sim

BENCHMARK_MAIN();
