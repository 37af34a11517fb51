// Helpers for the failure tests: hand-built scenarios and event collection.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "models/base/check.h"
#include "sim/cluster/topology.h"
#include "sim/failures/failure_source.h"

namespace ntpsim::sim::testing {

inline constexpr double kDay = 86400.0;

inline Scenario scenario_with(int domains, int gpus_per_domain, int gpus_per_node) {
  Scenario s;
  s.cluster.domains = domains;
  s.cluster.gpus_per_domain = gpus_per_domain;
  s.cluster.gpus_per_node = gpus_per_node;
  return s;
}

// The topology of a scenario built in code (the test's own cluster, which must be valid).
inline Topology topo(const Scenario& s) {
  auto t = Topology::build(s.cluster);
  NTPSIM_CHECK(t.ok());
  return std::move(t).value();
}

inline FailureKind kind(std::string name, double share, std::string repair_dist, double repair_mean_s,
                        bool interrupts = true) {
  FailureKind k;
  k.name = std::move(name);
  k.share = share;
  k.repair.distribution = std::move(repair_dist);
  k.repair.mean_s = repair_mean_s;
  k.interrupts = interrupts;
  return k;
}

inline FailureProcess process(Component c, double rate_per_unit_s, std::string dist = "exponential",
                              double shape = 1.0) {
  FailureProcess p;
  p.component = c;
  p.rate_per_unit_s = rate_per_unit_s;
  p.distribution = std::move(dist);
  p.shape = shape;
  p.kinds = {kind("hard", 1.0, "fixed", 0.0)};
  return p;
}

// Every event strictly before `horizon_s` (and at most `limit` events).
inline std::vector<FailureEvent> collect(const Scenario& s, const Topology& t, uint64_t seed,
                                         uint64_t replication, double horizon_s,
                                         std::shared_ptr<const TraceData> trace = nullptr,
                                         size_t limit = 10'000'000) {
  auto src = FailureSource::make(s, t, std::move(trace), seed, replication);
  EXPECT_TRUE(src.ok()) << src.error().message;
  std::vector<FailureEvent> out;
  if (!src.ok()) return out;
  FailureEvent e;
  while (out.size() < limit && src->next(e) && e.time.seconds() < horizon_s) out.push_back(e);
  return out;
}

// |observed - expected| <= 5 standard deviations (the statistical tests' stated tolerance).
inline void expect_within_5_sigma(double observed, double expected, double sigma, const char* what) {
  EXPECT_LE(std::fabs(observed - expected), 5.0 * sigma)
      << what << ": observed " << observed << ", expected " << expected << " +- 5 x " << sigma;
}

}  // namespace ntpsim::sim::testing
