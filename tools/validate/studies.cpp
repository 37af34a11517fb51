#include "tools/validate/studies.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <queue>
#include <string_view>
#include <tuple>

#include "models/base/check.h"
#include "models/base/random.h"
#include "models/base/statistics.h"
#include "sim/engine/job_state.h"
#include "sim/metrics/metrics.h"
#include "sim/scenario/loader.h"
#include "sim/simulation/runner.h"

namespace ntpsim::validate {

Result<std::shared_ptr<const Prepared>> prepare(const std::string& file,
                                                const std::vector<std::string>& overrides) {
  auto s = sim::load_scenario(file, overrides);
  if (!s.ok()) return s.error();
  return sim::Simulation::prepare(*s);
}

double availability_closed_form(double f, int tp) {
  return std::pow(1.0 - f, tp);
}

double availability_sampled(int64_t gpus, int tp, double f, int samples, uint64_t seed) {
  NTPSIM_CHECK(tp > 0 && gpus % tp == 0 && samples > 0);
  const auto k = static_cast<int64_t>(std::llround(f * static_cast<double>(gpus)));
  std::vector<uint8_t> down(static_cast<size_t>(gpus));
  std::vector<uint8_t> group_hit(static_cast<size_t>(gpus / tp));
  double sum = 0;
  for (int i = 0; i < samples; ++i) {
    Stream rng(seed, static_cast<uint64_t>(i), "validate.availability");
    std::fill(down.begin(), down.end(), 0);
    std::fill(group_hit.begin(), group_hit.end(), 0);
    int64_t hit = 0;
    for (int64_t placed = 0; placed < k;) {
      const auto g = static_cast<int64_t>(rng.uniform_int(static_cast<uint64_t>(gpus)));
      if (down[static_cast<size_t>(g)] != 0) continue;
      down[static_cast<size_t>(g)] = 1;
      ++placed;
      auto& gh = group_hit[static_cast<size_t>(g / tp)];
      if (gh == 0) ++hit;
      gh = 1;
    }
    sum += 1.0 - static_cast<double>(hit) / static_cast<double>(gpus / tp);
  }
  return sum / samples;
}

LossSample static_loss(const Prepared& p, int k, double f, int blast, int samples, uint64_t seed) {
  NTPSIM_CHECK(k >= 0 && static_cast<size_t>(k) < p.strategies().size());
  NTPSIM_CHECK(blast >= 1 && p.layout().gpus_per_domain % blast == 0 && samples > 0);
  const sim::Strategy& strategy = *p.strategies()[static_cast<size_t>(k)];
  const int64_t gpus = p.layout().cluster_gpus;
  const int64_t blocks = gpus / blast;
  const auto events = static_cast<int64_t>(
      std::llround(f * static_cast<double>(gpus) / static_cast<double>(blast)));
  NTPSIM_CHECK(events <= blocks);
  sim::JobState state(p.layout());
  std::vector<uint8_t> taken(static_cast<size_t>(blocks));
  std::vector<double> losses;
  losses.reserve(static_cast<size_t>(samples));
  for (int i = 0; i < samples; ++i) {
    Stream rng(seed, static_cast<uint64_t>(i), "validate.placement");
    state.reset(strategy.rules());
    std::fill(taken.begin(), taken.end(), 0);
    for (int64_t placed = 0; placed < events;) {
      const auto b = static_cast<int64_t>(rng.uniform_int(static_cast<uint64_t>(blocks)));
      if (taken[static_cast<size_t>(b)] != 0) continue;
      taken[static_cast<size_t>(b)] = 1;
      ++placed;
      state.fail(sim::GpuRange{b * blast, blast});
    }
    state.reassign();
    losses.push_back(1.0 - strategy.shape(state.histogram()).rate);
  }
  LossSample out;
  out.mean = std::accumulate(losses.begin(), losses.end(), 0.0) / samples;
  double ss = 0;
  for (double l : losses) ss += (l - out.mean) * (l - out.mean);
  out.sd = samples > 1 ? std::sqrt(ss / (samples - 1)) : 0.0;
  out.failed_fraction = static_cast<double>(events * blast) / static_cast<double>(gpus);
  return out;
}

namespace {

// The failure events of one replication inside the horizon.
Result<std::vector<sim::FailureEvent>> events_of(const Prepared& p, uint64_t replication,
                                                 std::vector<std::string>* kinds = nullptr) {
  auto src = p.failure_source(replication);
  if (!src.ok()) return src.error();
  std::vector<sim::FailureEvent> out;
  sim::FailureEvent e;
  while (src->next(e) && e.time < p.engine_config().end) out.push_back(e);
  if (kinds != nullptr) *kinds = src->kind_names();
  return out;
}

// The type-7 q-quantile of sorted values; 0 for none.
double quantile(const std::vector<double>& sorted, double q) {
  return sorted.empty() ? 0.0 : percentile_sorted(sorted, q);
}

}  // namespace

FailedGpuStats failed_gpu_stats(const Prepared& p, double threshold, double warmup_s, int reps) {
  NTPSIM_CHECK(reps > 0);
  const double end_s = p.engine_config().end.seconds();
  NTPSIM_CHECK(warmup_s >= 0 && warmup_s < end_s);
  const auto gpus = static_cast<double>(p.topology().gpus());
  const double limit = threshold * gpus;
  FailedGpuStats out;
  std::vector<uint16_t> down(static_cast<size_t>(p.topology().gpus()));
  for (int r = 0; r < reps; ++r) {
    auto ev = events_of(p, static_cast<uint64_t>(r));
    NTPSIM_CHECK(ev.ok());
    std::fill(down.begin(), down.end(), 0);
    using End = std::pair<double, size_t>;  // (repair time, event index)
    std::priority_queue<End, std::vector<End>, std::greater<>> repairs;
    int64_t failed = 0;
    int64_t peak = 0;
    double last = 0, above = 0, area = 0;
    auto advance = [&](double t) {
      const double a = std::max(last, warmup_s), b = std::max(t, warmup_s);
      if (b > a) {
        area += static_cast<double>(failed) * (b - a);
        if (static_cast<double>(failed) > limit) above += b - a;
      }
      if (r == 0) {
        out.t_days.push_back(t / 86400.0);
        out.fraction.push_back(static_cast<double>(failed) / gpus);
      }
      last = t;
    };
    auto apply = [&](const sim::FailureEvent& e, int delta) {
      for (int64_t g = e.gpus.first; g < e.gpus.end(); ++g) {
        auto& d = down[static_cast<size_t>(g)];
        if (delta > 0 && d++ == 0) ++failed;
        if (delta < 0 && --d == 0) --failed;
      }
    };
    for (size_t i = 0; i <= ev->size(); ++i) {
      const double t = i < ev->size() ? (*ev)[i].time.seconds() : end_s;
      while (!repairs.empty() && repairs.top().first <= t) {
        const auto [rt, j] = repairs.top();
        repairs.pop();
        advance(rt);
        apply((*ev)[j], -1);
      }
      advance(t);
      if (i == ev->size()) break;
      const auto& e = (*ev)[i];
      apply(e, +1);
      if (e.time.seconds() >= warmup_s) peak = std::max(peak, failed);
      repairs.emplace((e.time + e.repair).seconds(), i);
    }
    if (r == 0) {
      out.t_days.push_back(end_s / 86400.0);
      out.fraction.push_back(static_cast<double>(failed) / gpus);
    }
    const double window = end_s - warmup_s;
    out.share_above += above / window / reps;
    out.share_by_rep.push_back(above / window);
    out.peak_by_rep.push_back(static_cast<double>(peak));
    out.mean_failed += area / window / reps;
    out.peak_failed += static_cast<double>(peak) / reps;
    out.failures += static_cast<double>(ev->size()) / reps;
  }
  return out;
}

Result<TraceStats> trace_stats(const Prepared& p, double span_days) {
  if (!p.trace()) return Error::bad_input("trace_stats: the scenario has no trace");
  std::vector<std::string> kinds;
  auto ev = events_of(p, 0, &kinds);
  if (!ev.ok()) return ev.error();
  TraceStats out;
  out.units = static_cast<int>(p.topology().units(p.scenario().failures.trace->component));
  std::vector<double> repairs;
  std::vector<int64_t> units;
  for (const auto& e : *ev) {
    ++out.faults;
    if (e.kind < kinds.size() && kinds[e.kind] == "Hardware Failure") ++out.hardware_faults;
    repairs.push_back(e.repair.seconds() / 86400.0);
    units.push_back(e.unit);
  }
  std::sort(units.begin(), units.end());
  out.distinct_units = static_cast<int>(std::unique(units.begin(), units.end()) - units.begin());
  const double unit_days = out.units * span_days;
  out.rate_per_1000_unit_days = 1000.0 * out.faults / unit_days;
  out.hardware_rate_per_1000_unit_days = 1000.0 * out.hardware_faults / unit_days;
  std::sort(repairs.begin(), repairs.end());
  out.repair_days = repairs;
  out.repair_median_days = quantile(repairs, 0.5);
  out.repair_p90_days = quantile(repairs, 0.9);
  out.repair_mean_days = repairs.empty() ? 0
                                         : std::accumulate(repairs.begin(), repairs.end(), 0.0) /
                                               static_cast<double>(repairs.size());
  return out;
}

Place place_among(double l, std::vector<double> v) {
  Place out;
  if (v.empty()) {
    out.text = "no replications";
    return out;
  }
  std::sort(v.begin(), v.end());
  out.p5 = percentile_sorted(v, 0.05);
  out.p95 = percentile_sorted(v, 0.95);
  const auto below = static_cast<size_t>(std::lower_bound(v.begin(), v.end(), l) - v.begin());
  const auto not_above = static_cast<size_t>(std::upper_bound(v.begin(), v.end(), l) - v.begin());
  const size_t n = v.size();
  if (below == n || not_above == 0) {
    out.beyond_all = true;
    out.text = fmt::format("{} all {}", below == n ? "above" : "below", n);
  } else {
    const double share =
        (static_cast<double>(below) + 0.5 * static_cast<double>(not_above - below)) /
        static_cast<double>(n);
    out.text = fmt::format("{:.0f}% below", 100.0 * share);
  }
  return out;
}

FailureModelStats failure_model_stats(const Prepared& p, int64_t units,
                                      const std::vector<double>& thresholds, int reps) {
  NTPSIM_CHECK(reps > 0 && units > 0);
  const double end_s = p.engine_config().end.seconds();
  const double unit_days = static_cast<double>(units) * end_s / 86400.0;
  FailureModelStats out;
  out.by_rep.resize(static_cast<size_t>(reps));
  out.share_above.assign(thresholds.size(), 0.0);
  for (size_t i = 0; i < thresholds.size(); ++i) {
    const FailedGpuStats st = failed_gpu_stats(p, thresholds[i], 0.0, reps);
    out.share_above[i] = st.share_above;
    for (int r = 0; r < reps; ++r) {
      out.by_rep[static_cast<size_t>(r)].share_above.push_back(
          st.share_by_rep[static_cast<size_t>(r)]);
    }
  }
  std::vector<double> repairs;
  double cv = 0;
  for (int r = 0; r < reps; ++r) {
    FailureModelStats::Replication& one = out.by_rep[static_cast<size_t>(r)];
    auto ev = events_of(p, static_cast<uint64_t>(r));
    NTPSIM_CHECK(ev.ok());
    out.faults += static_cast<double>(ev->size()) / reps;
    one.rate_per_1000_unit_days = 1000.0 * static_cast<double>(ev->size()) / unit_days;
    std::vector<double> own;
    double s = 0, s2 = 0;
    int64_t group = 1;
    for (size_t i = 0; i < ev->size(); ++i) {
      own.push_back((*ev)[i].repair.seconds() / 86400.0);
      if (i == 0) {
        one.largest_group = 1;
        continue;
      }
      const double g = ((*ev)[i].time - (*ev)[i - 1].time).seconds();
      s += g;
      s2 += g * g;
      if (g <= FailureModelStats::kGroupWindowS) {
        ++one.close_starts;
        one.largest_group = std::max(one.largest_group, ++group);
      } else {
        group = 1;
      }
    }
    out.close_starts += static_cast<double>(one.close_starts) / reps;
    out.largest_group += static_cast<double>(one.largest_group) / reps;
    out.largest_group_any = std::max(out.largest_group_any, one.largest_group);
    if (ev->size() > 2) {
      const auto n = static_cast<double>(ev->size() - 1);
      one.gap_cv = std::sqrt(std::max(0.0, s2 / n - (s / n) * (s / n))) / (s / n);
      cv += one.gap_cv / reps;
    }
    repairs.insert(repairs.end(), own.begin(), own.end());
    std::sort(own.begin(), own.end());
    one.repair_median_days = quantile(own, 0.5);
    one.repair_p90_days = quantile(own, 0.9);
    one.repair_mean_days = own.empty() ? 0
                                       : std::accumulate(own.begin(), own.end(), 0.0) /
                                             static_cast<double>(own.size());
  }
  // The peak over the whole horizon (failed_gpu_stats averages the replications' peaks).
  const FailedGpuStats whole = failed_gpu_stats(p, 1.0, 0.0, reps);
  for (int r = 0; r < reps; ++r) {
    out.by_rep[static_cast<size_t>(r)].peak_failed_gpus = whole.peak_by_rep[static_cast<size_t>(r)];
  }
  std::sort(repairs.begin(), repairs.end());
  out.rate_per_1000_unit_days = 1000.0 * out.faults / unit_days;
  out.repair_median_days = quantile(repairs, 0.5);
  out.repair_mean_days = repairs.empty() ? 0
                                         : std::accumulate(repairs.begin(), repairs.end(), 0.0) /
                                               static_cast<double>(repairs.size());
  out.repair_p90_days = quantile(repairs, 0.9);
  out.gap_cv = cv;
  out.peak_failed_gpus = whole.peak_failed;
  return out;
}

namespace {

// One log's failed GPUs from its faults as (start, +1 / end, -1, node) steps over [0, end_s):
// adds its share of time above each threshold (of `gpus`) and its peak, each over `n`, to `out`.
// A node counts once however many of its faults are open. Sorts `steps`.
void add_failed_gpus(std::vector<std::tuple<double, int, int32_t>>& steps, size_t nodes,
                     double gpus_per_unit, double gpus, double end_s,
                     const std::vector<double>& thresholds, int n, LogFailedGpus& out,
                     double* peak_of_this = nullptr) {
  std::sort(steps.begin(), steps.end());
  std::vector<int> faults_on(nodes, 0);
  int64_t down = 0, peak = 0;
  double last = 0.0;
  std::vector<double> above(thresholds.size(), 0.0);
  auto advance = [&](double t) {
    for (size_t k = 0; k < thresholds.size(); ++k) {
      if (static_cast<double>(down) * gpus_per_unit > thresholds[k] * gpus) above[k] += t - last;
    }
    last = t;
  };
  for (const auto& [t, delta, node] : steps) {
    advance(t);
    int& on = faults_on[static_cast<size_t>(node)];
    if (delta > 0 && on++ == 0) ++down;
    if (delta < 0 && --on == 0) --down;
    peak = std::max(peak, down);
  }
  advance(end_s);
  for (size_t k = 0; k < thresholds.size(); ++k) out.share_above[k] += above[k] / end_s / n;
  out.peak_failed_gpus += static_cast<double>(peak) * gpus_per_unit / n;
  if (peak_of_this != nullptr) *peak_of_this = static_cast<double>(peak) * gpus_per_unit;
}

}  // namespace

Result<LogFailedGpus> log_failed_gpus(const Prepared& p, const std::vector<double>& thresholds,
                                      const std::vector<size_t>& redraw, int draws, uint64_t seed) {
  const sim::TraceData* trace = p.trace().get();
  if (trace == nullptr || !p.scenario().failures.trace) {
    return Error::bad_input("log_failed_gpus: the scenario has no trace");
  }
  NTPSIM_CHECK(draws > 0 && std::is_sorted(redraw.begin(), redraw.end()));
  const int64_t units = p.topology().units(p.scenario().failures.trace->component);
  if (units <= 0 || static_cast<int64_t>(trace->node_names.size()) > units) {
    return Error::bad_input("log_failed_gpus: the trace has more nodes than the cluster units");
  }
  const double gpus = static_cast<double>(p.topology().gpus());
  const double gpus_per_unit = gpus / static_cast<double>(units);
  const double end_s = p.engine_config().end.seconds();
  std::vector<double> pool;  // the other faults' closed repairs
  for (size_t i = 0; i < trace->faults.size(); ++i) {
    const sim::TraceFault& f = trace->faults[i];
    if (!f.open && !std::binary_search(redraw.begin(), redraw.end(), i)) pool.push_back(f.repair_s);
  }
  if (!redraw.empty() && pool.empty()) {
    return Error::bad_input("log_failed_gpus: no other closed repairs to draw from");
  }
  const int n = redraw.empty() ? 1 : draws;
  LogFailedGpus out;
  out.share_above.assign(thresholds.size(), 0.0);
  for (int d = 0; d < n; ++d) {
    Stream rng(seed, static_cast<uint64_t>(d), "backtest.redraw");
    // (time, +1 start / -1 end, node); ends sort before starts at one time.
    std::vector<std::tuple<double, int, int32_t>> steps;
    for (size_t i = 0; i < trace->faults.size(); ++i) {
      const sim::TraceFault& f = trace->faults[i];
      double repair = f.repair_s;
      if (std::binary_search(redraw.begin(), redraw.end(), i)) {
        repair = pool[static_cast<size_t>(rng.uniform_int(pool.size()))];
      }
      if (f.start_s >= end_s) continue;
      steps.emplace_back(f.start_s, +1, f.node);
      steps.emplace_back(std::min(end_s, f.start_s + repair), -1, f.node);
    }
    add_failed_gpus(steps, trace->node_names.size(), gpus_per_unit, gpus, end_s, thresholds, n,
                    out);
  }
  return out;
}

Result<IncidentDraws> log_incidents_redrawn(const Prepared& p,
                                            const std::vector<double>& thresholds,
                                            double window_s, int draws, uint64_t seed) {
  const sim::TraceData* trace = p.trace().get();
  if (trace == nullptr || !p.scenario().failures.trace) {
    return Error::bad_input("log_incidents_redrawn: the scenario has no trace");
  }
  NTPSIM_CHECK(draws > 0 && window_s >= 0.0);
  const int64_t units = p.topology().units(p.scenario().failures.trace->component);
  if (units <= 0 || static_cast<int64_t>(trace->node_names.size()) > units) {
    return Error::bad_input(
        "log_incidents_redrawn: the trace has more nodes than the cluster units");
  }
  const double gpus = static_cast<double>(p.topology().gpus());
  const double gpus_per_unit = gpus / static_cast<double>(units);
  const double end_s = p.engine_config().end.seconds();
  // The incidents: (offset from the incident's first start, repair) of each of its faults.
  std::vector<std::vector<std::pair<double, double>>> incidents;
  double previous = -std::numeric_limits<double>::infinity(), first = 0.0;
  for (const sim::TraceFault& f : trace->faults) {
    if (f.start_s >= end_s) continue;
    if (incidents.empty() || window_s <= 0.0 || f.start_s - previous > window_s) {
      incidents.emplace_back();
      first = f.start_s;
    }
    incidents.back().emplace_back(f.start_s - first, f.repair_s);
    previous = f.start_s;
  }
  if (incidents.empty()) return Error::bad_input("log_incidents_redrawn: the trace has no faults");
  IncidentDraws out;
  out.incidents = static_cast<int64_t>(incidents.size());
  out.failed.share_above.assign(thresholds.size(), 0.0);
  const double rate = static_cast<double>(incidents.size()) / end_s;
  std::vector<double> peaks;
  for (int d = 0; d < draws; ++d) {
    Stream rng(seed, static_cast<uint64_t>(d), "backtest.incidents");
    std::vector<std::tuple<double, int, int32_t>> steps;
    std::vector<double> up_at(static_cast<size_t>(units), 0.0);
    for (double t = rng.exponential(1.0 / rate); t < end_s; t += rng.exponential(1.0 / rate)) {
      for (const auto& [offset, repair] : incidents[rng.uniform_int(incidents.size())]) {
        const double start = t + offset;
        if (start >= end_s) continue;
        // A node that is up, as the engine places a failure (the first of 64 tries, else any).
        auto node = static_cast<int32_t>(rng.uniform_int(static_cast<uint64_t>(units)));
        for (int tries = 1; tries < 64 && up_at[static_cast<size_t>(node)] > start; ++tries) {
          node = static_cast<int32_t>(rng.uniform_int(static_cast<uint64_t>(units)));
        }
        double& node_up_at = up_at[static_cast<size_t>(node)];
        node_up_at = std::max(node_up_at, start + repair);
        steps.emplace_back(start, +1, node);
        steps.emplace_back(std::min(end_s, start + repair), -1, node);
      }
    }
    double peak = 0.0;
    add_failed_gpus(steps, static_cast<size_t>(units), gpus_per_unit, gpus, end_s, thresholds,
                    draws, out.failed, &peak);
    peaks.push_back(peak);
  }
  std::sort(peaks.begin(), peaks.end());
  out.peak_p5 = quantile(peaks, 0.05);
  out.peak_p95 = quantile(peaks, 0.95);
  return out;
}

Result<FittedBacktest> fitted_backtest(const std::string& trace_scenario, uint64_t fit_seed) {
  FittedBacktest out;
  auto log = prepare(trace_scenario, {});
  if (!log.ok()) return log.error();
  out.log = *log;
  const sim::TraceData* trace = out.log->trace().get();
  if (trace == nullptr) return Error::bad_input(trace_scenario + ": the scenario has no trace");
  sim::FitOptions o;
  o.nodes = out.log->topology().units(out.log->scenario().failures.trace->component);
  o.seed = fit_seed;
  auto fit = sim::fit_trace(*trace, o);
  if (!fit.ok()) return fit.error();
  out.fit = *fit;
  // The fitted fragment is read back through the scenario loader, as a user's `include:` would.
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("ntpsim-backtest-{}-{}", ::getpid(), fit_seed);
  fs::create_directories(dir);
  std::ofstream(dir / "fitted.yaml") << sim::fitted_failures_yaml(out.fit);
  std::ofstream(dir / "model.yaml")
      << fmt::format("include: [\"{}\", fitted.yaml]\n", fs::absolute(trace_scenario).string());
  auto s = sim::load_scenario((dir / "model.yaml").string());
  fs::remove_all(dir);
  if (!s.ok()) return s.error();
  s->failures.trace.reset();
  auto fitted = sim::Simulation::prepare(*s);
  if (!fitted.ok()) return fitted.error();
  out.fitted = *fitted;
  sim::Scenario e = *s;
  const bool pooled = out.fit.pooled.chosen_scales > 0;
  for (size_t i = 0; i < e.failures.processes.size(); ++i) {
    sim::FailureProcess& p = e.failures.processes[i];
    p.distribution = "exponential";
    p.branching = p.slow_branching = 0;
    p.regime_high_share = 0;  // no regimes: independent arrivals, unscaled repairs
    p.regime_low_repair_scale = p.regime_high_repair_scale = 1;
    if (pooled) {  // one process of every kind (its shares): all faults per node-second up
      p.rate_per_unit_s = static_cast<double>(out.fit.faults) / out.fit.pooled.rate.exposure_s;
    } else {
      const sim::KindFit& k = out.fit.kinds.at(i);
      p.rate_per_unit_s = static_cast<double>(k.faults) / k.process_rate.exposure_s;
    }
    p.lemon_fraction = 0;
    p.lemon_multiplier = 1;
    p.burst_probability = 0;
    p.burst_size = 1;
    p.partner_delay_mean_s = 0;  // no bursts, so no partners to delay
    p.partner_at_once_share = 1;
    p.partner_delay_after_s = 0;
    p.deferred_share = 0;  // repairs on their own: no maintenance visits
    p.shared_repair_probability = 0;  // and none shared by an incident's faults
  }
  auto exponential = sim::Simulation::prepare(e);
  if (!exponential.ok()) return exponential.error();
  out.exponential = *exponential;
  return out;
}

double EngineSummary::mean(const std::vector<double>& v) const {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

Result<EngineSummary> run_engine(const Prepared& p, int k, int reps, int threads, double warmup_s) {
  NTPSIM_CHECK(k >= 0 && static_cast<size_t>(k) < p.strategies().size() && reps > 0);
  EngineSummary out;
  out.goodput.resize(static_cast<size_t>(reps));
  out.per_gpu_goodput.resize(static_cast<size_t>(reps));
  out.worst_throughput.resize(static_cast<size_t>(reps));
  out.failed_mean.resize(static_cast<size_t>(reps));
  out.metrics.resize(static_cast<size_t>(reps));
  const sim::Strategy& strategy = *p.strategies()[static_cast<size_t>(k)];
  sim::ReplicationWork work;
  work.run = [&](const sim::Replication& rep) {
    sim::StrategyTimeline tl;
    tl.limit = 1000000;
    tl.checkpoint_mark_limit = 0;
    const auto m =
        rep.engine.run(strategy, p.checkpoint_interval(static_cast<size_t>(k)), rep.schedule, &tl);
    double worst = 1.0;
    for (const auto& seg : tl.segments) {
      const std::string_view st = seg.state;
      if ((st == "running" || st == "degraded") && seg.end_s > seg.t_s && seg.end_s > warmup_s) {
        worst = std::min(worst, seg.throughput);
      }
    }
    const auto u = static_cast<size_t>(rep.index);
    out.goodput[u] = sim::at(m, sim::Metric::kGoodput);
    out.per_gpu_goodput[u] = sim::at(m, sim::Metric::kPerGpuGoodput);
    out.failed_mean[u] = sim::at(m, sim::Metric::kFailedGpusMean);
    out.worst_throughput[u] = worst;
    out.metrics[u] = m;
    return rep.engine.events_processed();
  };
  sim::RunnerOptions options;
  options.threads = std::max(1, threads);
  auto ran = sim::run_replications(p, sim::ReplicationCount::exactly(reps), options, work);
  if (!ran.ok()) return ran.error();
  return out;
}

Result<RecoveryWindow> llama3_window(const std::string& file,
                                     const std::vector<std::string>& overrides, int reps,
                                     int threads) {
  std::vector<std::string> o = {"horizon=54d", "strategies=[checkpoint_restart]",
                                "cluster.spare_domains=256"};
  o.insert(o.end(), overrides.begin(), overrides.end());
  auto p = prepare(file, o);
  if (!p.ok()) return p.error();
  const sim::EngineConfig& ec = (*p)->engine_config();
  auto run = run_engine(**p, 0, reps, threads);
  if (!run.ok()) return run.error();
  const auto mean = [&](sim::Metric k) {
    double s = 0;
    for (const auto& m : run->metrics) s += sim::at(m, k);
    return s / static_cast<double>(run->metrics.size());
  };
  RecoveryWindow w;
  w.checkpoint_cost_s = ec.checkpoint_cost_s;
  w.restart_s = ec.restart.seconds();
  w.interval_s = (*p)->checkpoint_interval_s(0);
  w.interruptions = mean(sim::Metric::kInterruptions);
  w.goodput = mean(sim::Metric::kGoodput);
  w.effective_training = mean(sim::Metric::kEffectiveTrainingTime);
  w.rollback = mean(sim::Metric::kBadputRollback);
  w.recovery = mean(sim::Metric::kBadputRecovery);
  w.checkpoint = mean(sim::Metric::kBadputCheckpoint);
  w.seed = (*p)->scenario().seed;
  return w;
}

Result<StallPair> restart_vs_drop(const std::string& file,
                                  const std::vector<std::string>& overrides) {
  std::vector<std::string> o = {
      "cluster.domains=12288", "layout.dp=768", "cluster.spare_domains=256", "horizon=7d",
      "strategies=[checkpoint_restart, {name: dp_drop, resume: in_place}]"};
  o.insert(o.end(), overrides.begin(), overrides.end());
  auto p = prepare(file, o);
  if (!p.ok()) return p.error();
  const sim::EngineConfig& ec = (*p)->engine_config();
  StallPair out;
  out.job_gpus = static_cast<double>((*p)->layout().job_gpus);
  out.restart_s = ec.detection.seconds() + ec.restart.seconds();
  out.drop_s = ec.detection.seconds() + 2 * ec.reconfigure.seconds() + ec.state_transfer.seconds();
  return out;
}

Result<SparePoint> spare_point(const std::string& file, std::vector<std::string> overrides,
                               const std::string& label, int spares, int reps, double tolerance,
                               int threads, double warmup_s) {
  overrides.push_back("cluster.spare_domains=" + std::to_string(spares));
  auto p = prepare(file, overrides);
  if (!p.ok()) return p.error();
  const int k = (*p)->strategy_index(label);
  if (k < 0) return Error::bad_input("spare_point: no strategy labelled '" + label + "'");
  auto run = run_engine(**p, k, reps, threads, warmup_s);
  if (!run.ok()) return run.error();
  SparePoint out;
  out.spares = spares;
  out.per_gpu_goodput = run->mean(run->per_gpu_goodput);
  int met = 0;
  for (double w : run->worst_throughput) met += w >= 1.0 - tolerance - 1e-12 ? 1 : 0;
  out.met_share = static_cast<double>(met) / reps;
  return out;
}

Result<int> spares_needed(const std::string& file, const std::vector<std::string>& overrides,
                          const std::string& label, int hi, int reps, double tolerance, int threads,
                          double warmup_s) {
  auto met = [&](int s) -> Result<bool> {
    auto pt = spare_point(file, overrides, label, s, reps, tolerance, threads, warmup_s);
    if (!pt.ok()) return pt.error();
    return pt->met_share >= 0.5;
  };
  auto at0 = met(0);
  if (!at0.ok()) return at0.error();
  if (*at0) return 0;
  int lo = 0;  // not met
  int top = hi;
  auto at_hi = met(top);
  if (!at_hi.ok()) return at_hi.error();
  if (!*at_hi) return hi;
  while (top - lo > 1) {
    const int mid = lo + (top - lo) / 2;
    auto m = met(mid);
    if (!m.ok()) return m.error();
    (*m ? top : lo) = mid;
  }
  return top;
}

}  // namespace ntpsim::validate
