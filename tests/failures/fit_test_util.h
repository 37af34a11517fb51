// Helpers for the failure-model fit tests (fit_test.cpp, regime_test.cpp, regime_repairs_test.cpp):
// fitting an ntpsim CSV log, writing events as one, loading a scenario that includes a fitted
// model, gap statistics.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "failure_test_util.h"
#include "sim/failures/failure_source.h"
#include "sim/failures/fit.h"
#include "sim/failures/trace.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"

namespace ntpsim::sim::testing {

inline TraceFit fit_csv(const std::string& csv, int64_t nodes, int bootstrap = 19,
                        int64_t max_regime_faults = FitOptions{}.max_regime_faults,
                        int threads = 1) {
  auto t = parse_csv_trace(csv, "log.csv");
  EXPECT_TRUE(t.ok()) << t.error().message;
  FitOptions o;
  o.nodes = nodes;
  o.bootstrap = bootstrap;
  o.max_regime_faults = max_regime_faults;
  o.threads = threads;
  auto f = fit_trace(*t, o);
  EXPECT_TRUE(f.ok()) << f.error().message;
  return *f;
}

// Writes `fitted_yaml` into `dir` (created) as fitted.yaml with s.yaml, a scenario of `nodes`
// servers of 8 GPUs (TP 8 x PP 4) that includes it, and loads s.yaml. The caller removes `dir`.
inline Result<Scenario> load_with_fitted(const std::string& dir, const std::string& fitted_yaml,
                                         int nodes) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/fitted.yaml") << fitted_yaml;
  std::ofstream(dir + "/s.yaml") << "include: fitted.yaml\n"
                                    "name: fitted\n"
                                    "cluster: {domains: "
                                 << nodes
                                 << ", gpus_per_domain: 8, gpus_per_node: 8}\n"
                                    "workload: llama3-70b\n"
                                    "layout: {tp: 8, pp: 4, dp: "
                                 << nodes / 4
                                 << "}\n"
                                    "hardware: h100-sxm\n"
                                    "strategies: [dp_drop]\n"
                                    "horizon: 365d\n"
                                    "replications: 1\n";
  return load_scenario(dir + "/s.yaml");
}

inline std::vector<double> times_of(const std::vector<FailureEvent>& ev) {
  std::vector<double> t;
  for (const FailureEvent& e : ev) t.push_back(e.time.seconds());
  return t;
}

// Coefficient of variation of the gaps between consecutive times.
inline double gap_cv(const std::vector<double>& t) {
  double s = 0, s2 = 0;
  for (size_t i = 1; i < t.size(); ++i) {
    const double g = t[i] - t[i - 1];
    s += g;
    s2 += g * g;
  }
  const auto n = static_cast<double>(t.size() - 1);
  const double mean = s / n;
  return std::sqrt(std::max(0.0, s2 / n - mean * mean)) / mean;
}

// The events as an ntpsim CSV log with each event's kind name ("k<index>").
inline std::string csv_log_with_kinds(const std::vector<FailureEvent>& ev, double days) {
  std::string csv =
      "#! time_unit: h\n#! span: " + std::to_string(days * 24) + "\nstart,end,unit,kind\n";
  for (const FailureEvent& e : ev) {
    const double start_h = e.time.seconds() / 3600.0;
    const double end_h = std::min(days * 24, (e.time + e.repair).seconds() / 3600.0);
    csv += fmt::format("{:.9f},{:.9f},n{},k{}\n", start_h, end_h, e.unit, e.kind);
  }
  return csv;
}

// Loads the fitted model `fitted_yaml` as load_with_fitted does (in a fresh directory named
// `name` under the test's temp dir, removed afterwards), checks that the printed scenario names
// `printed_key` and that loading the printed text again gives the same scenario hash.
inline Result<Scenario> load_fitted_round_trip(const std::string& name,
                                               const std::string& fitted_yaml, int nodes,
                                               const std::string& printed_key) {
  const std::string dir = ::testing::TempDir() + name + "_" + std::to_string(::getpid());
  auto s = load_with_fitted(dir, fitted_yaml, nodes);
  if (s.ok()) {
    const std::string text = to_yaml_text(*s);
    EXPECT_NE(text.find(printed_key), std::string::npos) << text;
    std::ofstream(dir + "/again.yaml") << text;
    auto again = load_scenario(dir + "/again.yaml");
    EXPECT_TRUE(again.ok()) << again.error().message;
    if (again.ok()) {
      EXPECT_EQ(scenario_hash(*again), scenario_hash(*s));
    }
  }
  std::filesystem::remove_all(dir);
  return s;
}

// The failure source's events over `days` on the scenario's own topology.
inline std::vector<FailureEvent> events(const Scenario& s, uint64_t seed, uint64_t rep,
                                        double days) {
  auto topo = Topology::build(s.cluster);
  EXPECT_TRUE(topo.ok());
  return collect(s, *topo, seed, rep, days * kDay);
}

// The events' repairs as intervals, censored at the span.
inline std::vector<Interval> repairs_of(const std::vector<FailureEvent>& ev, double span_s) {
  std::vector<Interval> out;
  for (const FailureEvent& e : ev) {
    const double start = e.time.seconds(), r = std::max(1.0, e.repair.seconds());
    const bool open = start + r > span_s;
    out.push_back({open ? std::max(1.0, span_s - start) : r, !open, open ? span_s - start : 1e300});
  }
  return out;
}

}  // namespace ntpsim::sim::testing
