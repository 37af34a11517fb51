#include "sim/montecarlo/sweep.h"

#include <cmath>

#include <fmt/format.h>

#include "models/base/units.h"
#include "sim/metrics/aggregate.h"
#include "sim/scenario/loader.h"

namespace ntpsim::sim {
namespace {

constexpr size_t kMaxValues = 1000;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

}  // namespace

Result<VarySpec> parse_vary(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Error::bad_input(
        fmt::format("--vary '{}': expected path=v1,v2,... or path=start:stop:step", text));
  }
  VarySpec v;
  v.path = text.substr(0, eq);
  const std::string rhs = text.substr(eq + 1);
  if (rhs.find(':') != std::string::npos && rhs.find(',') == std::string::npos) {
    const auto parts = split(rhs, ':');
    if (parts.size() != 3) {
      return Error::bad_input(fmt::format("--vary '{}': a range is start:stop:step", text));
    }
    double x[3];
    for (int i = 0; i < 3; ++i) {
      auto n = units::parse_number(parts[static_cast<size_t>(i)]);
      if (!n.ok()) {
        return Error::bad_input(fmt::format("--vary '{}': '{}' is not a number ({})", text,
                                            parts[static_cast<size_t>(i)], n.error().message));
      }
      x[i] = *n;
    }
    if (!(x[2] > 0) || x[1] < x[0]) {
      return Error::bad_input(
          fmt::format("--vary '{}': a range needs step > 0 and stop >= start", text));
    }
    const double count = std::floor((x[1] - x[0]) / x[2] + 1e-9) + 1;
    if (count > static_cast<double>(kMaxValues)) {
      return Error::bad_input(fmt::format("--vary '{}': more than {} values", text, kMaxValues));
    }
    for (int i = 0; i < static_cast<int>(count); ++i) {
      v.values.push_back(fmt::format("{}", x[0] + i * x[2]));
    }
  } else {
    for (auto& s : split(rhs, ',')) {
      if (s.empty()) {
        return Error::bad_input(fmt::format("--vary '{}': empty value in the list", text));
      }
      v.values.push_back(s);
    }
  }
  if (v.values.empty() || v.values.size() > kMaxValues) {
    return Error::bad_input(fmt::format("--vary '{}': between 1 and {} values", text, kMaxValues));
  }
  return v;
}

Result<SweepRun> run_sweep(const std::string& file, const std::vector<std::string>& overrides,
                           const std::vector<VarySpec>& vary, const RunOptions& options,
                           const SweepHooks& hooks) {
  if (vary.empty() || vary.size() > 2) {
    return Error::bad_input("sweep: give one or two --vary parameters");
  }
  SweepRun out;
  auto base = load_scenario(file, overrides);
  if (!base.ok()) return base.error();
  out.base = std::move(base.value());
  for (const auto& v : vary) out.parameters.push_back(v.path);
  const size_t n0 = vary[0].values.size();
  const size_t n1 = vary.size() > 1 ? vary[1].values.size() : 1;
  if (n0 * n1 > kMaxSweepPoints) {
    return Error::bad_input(fmt::format(
        "sweep: {} x {} = {} points, more than the {} a sweep may have (each point is a whole "
        "Monte Carlo run and stays in memory until the sweep is written)",
        n0, n1, n0 * n1, kMaxSweepPoints));
  }
  std::vector<SweepPoint> points;
  double metric_bytes = 0;
  for (size_t i = 0; i < n0; ++i) {
    for (size_t j = 0; j < n1; ++j) {
      SweepPoint p;
      std::vector<std::string> o = overrides;
      p.values.emplace_back(vary[0].path, vary[0].values[i]);
      if (vary.size() > 1) p.values.emplace_back(vary[1].path, vary[1].values[j]);
      for (const auto& [k, v] : p.values) o.push_back(k + "=" + v);
      auto sc = load_scenario(file, o);
      if (!sc.ok()) {
        // The loader names an override "--set path=value"; here the user wrote --vary.
        Error e = sc.error();
        for (const auto& [k, v] : p.values) {
          const std::string set = "--set " + k + "=" + v;
          if (e.message.rfind(set, 0) == 0) e.message = "--vary " + e.message.substr(6);
        }
        return e;
      }
      p.scenario = std::move(sc.value());
      const auto& rc = p.scenario.replications;
      const int reps = options.replications > 0 ? options.replications
                                                : (rc.fixed > 0 ? rc.fixed : rc.max);
      metric_bytes += static_cast<double>(reps) * static_cast<double>(p.scenario.strategies.size()) *
                      sizeof(ReplicationMetrics);
      points.push_back(std::move(p));
    }
  }
  if (metric_bytes > static_cast<double>(kMaxSweepMetricBytes)) {
    return Error::bad_input(fmt::format(
        "sweep: {} points would keep {:.1f} GiB of per-replication metrics in memory, more than "
        "the {} GiB a sweep may use; vary fewer values or run fewer replications per point",
        points.size(), metric_bytes / (1 << 30), kMaxSweepMetricBytes >> 30));
  }
  const size_t total = points.size();
  for (size_t index = 0; index < total; ++index) {
    SweepPoint& p = points[index];
    if (hooks.recorded) {
      auto rec = hooks.recorded(index, p.scenario);
      if (!rec.ok()) return rec.error();
      if (rec->has_value()) {
        p.result = std::move(**rec);
        out.points.push_back(std::move(p));
        continue;
      }
    }
    auto r = run_monte_carlo(p.scenario, options);
    if (!r.ok()) {
      if (options.cancel == nullptr || !options.cancel->load()) return r.error();
      return Error::runtime(fmt::format("{} of {} sweep points finished; the point being run: {}",
                                        out.points.size(), total, r.error().message));
    }
    p.result = std::move(r.value());
    if (hooks.finished) NTPSIM_RETURN_IF_ERROR(hooks.finished(index, p));
    out.points.push_back(std::move(p));
  }
  return out;
}

std::vector<BestPoint> best_point_per_strategy(const SweepRun& sweep) {
  std::vector<BestPoint> out;
  if (sweep.points.empty()) return out;
  for (const auto& st : sweep.points.front().result.strategies) {
    BestPoint best{st.name, st.label, 0, -1.0};
    for (size_t i = 0; i < sweep.points.size(); ++i) {
      for (const auto& other : sweep.points[i].result.strategies) {
        if (other.label != st.label || other.replications.empty()) continue;
        std::vector<double> g;
        g.reserve(other.replications.size());
        for (const auto& rep : other.replications) g.push_back(at(rep, Metric::kGoodput));
        const double mean = summarize(g).mean;
        if (mean > best.goodput) best.point = i, best.goodput = mean;
      }
    }
    out.push_back(std::move(best));
  }
  return out;
}

}  // namespace ntpsim::sim
