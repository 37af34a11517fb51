// The pooled faults as incidents (PooledIncidents): a log of incidents that take several nodes of
// two kinds, their partners minutes apart, is fitted as the incidents' first faults with the
// log's sizes as the engine's burst law, and the engine running the model written takes as many
// nodes per incident, as often, as the log; a log of a Hawkes process is not read as incidents.
// Fixed seeds.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "failure_test_util.h"
#include "fit_test_util.h"
#include "models/base/random.h"
#include "sim/failures/fit.h"

namespace ntpsim::sim {
namespace {

using testing::kDay;

constexpr int kLogNodes = 400;
constexpr double kIncidentWindow = 3600.0;

// Incidents at a Poisson rate of `per_day` over 400 nodes for `days`: each takes a size from
// {1, 1, 1, 1, 2, 3, 12} (uniformly) of distinct random nodes, each node after the first
// `delay_s` on average (exponential, at most 50 min) after the one before, of kind a or b at
// random; repairs exponential, mean 2 d. A node in repair takes no fault.
std::string incident_log(double per_day, double days, uint64_t seed) {
  const std::vector<int> sizes = {1, 1, 1, 1, 2, 3, 12};
  Stream rng(seed, 0, "test.incidents");
  std::vector<double> up(kLogNodes, 0.0);
  std::string csv = fmt::format("#! time_unit: h\n#! span: {}\nstart,end,unit,kind\n", days * 24);
  std::vector<std::tuple<double, double, int, char>> rows;
  double t = 0.0;
  for (;;) {
    t += rng.exponential(kDay / per_day);
    if (t >= days * kDay) break;
    const int size = sizes[rng.uniform_int(sizes.size())];
    std::set<int> taken;
    double at = t;
    for (int i = 0; i < size; ++i) {
      if (i > 0) at += std::min(3000.0, rng.exponential(600.0));
      int node = static_cast<int>(rng.uniform_int(kLogNodes));
      while (taken.count(node) > 0) node = static_cast<int>(rng.uniform_int(kLogNodes));
      taken.insert(node);
      const double repair = rng.exponential(2 * kDay);
      const char kind = rng.uniform01() < 0.5 ? 'a' : 'b';
      if (at < up[static_cast<size_t>(node)] || at >= days * kDay) continue;
      up[static_cast<size_t>(node)] = at + repair;
      rows.emplace_back(at, std::min(days * kDay, at + repair), node, kind);
    }
  }
  std::sort(rows.begin(), rows.end());
  for (const auto& [start, end, node, kind] : rows) {
    csv += fmt::format("{:.9f},{:.9f},n{},{}\n", start / 3600.0, end / 3600.0, node, kind);
  }
  return csv;
}

// Runs of events each within the window of the previous on distinct units (the fit's rule):
// their sizes.
std::vector<int> runs(const std::vector<FailureEvent>& ev) {
  std::vector<int> out;
  size_t i = 0;
  while (i < ev.size()) {
    std::set<int64_t> units = {ev[i].unit};
    size_t j = i + 1;
    while (j < ev.size() && ev[j].time >= ev[j - 1].time &&
           ev[j].time.seconds() - ev[j - 1].time.seconds() <= kIncidentWindow &&
           units.insert(ev[j].unit).second) {
      ++j;
    }
    out.push_back(static_cast<int>(units.size()));
    i = j;
  }
  return out;
}

TEST(PooledIncidents, ALogOfIncidentsIsFittedAsIncidentsWithTheirSizes) {
  constexpr double kDays = 700;
  const TraceFit f = testing::fit_csv(incident_log(1.0, kDays, 3), kLogNodes, 19,
                                      /*max_regime_faults=*/0);
  const PooledIncidents& inc = f.pooled.incidents;
  ASSERT_TRUE(inc.fitted);
  EXPECT_TRUE(inc.chosen) << "incidents " << inc.best_leaders_gain << ", every fault "
                          << inc.best_faults_gain;
  EXPECT_LT(inc.marks.gain, 0.0);
  ASSERT_GT(f.pooled.chosen_scales, 0) << "kinds apart " << f.pooled.apart_gain;
  EXPECT_EQ(inc.sizes.size(), static_cast<size_t>(inc.multi));
  EXPECT_GE(inc.sizes.back(), 12);
  // Delays exponential of mean 600 s: 1 - e^(-0.1) of them within the 60 s resolution, the
  // others 60 + 600 s after the fault before them on average (the 50 min cap aside).
  EXPECT_DOUBLE_EQ(inc.marks.resolution_s, 60.0);
  EXPECT_NEAR(inc.marks.at_once_share, -std::expm1(-0.1), 0.04);
  EXPECT_NEAR(inc.marks.later_mean_s, 660.0, 100.0);
  // The kinds are drawn per incident: each about half.
  ASSERT_EQ(f.pooled.shares.size(), 2u);
  EXPECT_NEAR(f.pooled.shares[0], 0.5, 0.1);

  const std::string yaml = fitted_failures_yaml(f);
  auto model = testing::load_fitted_round_trip("incidents", yaml, kLogNodes, "sizes: [2,");
  ASSERT_TRUE(model.ok()) << model.error().message << "\n" << yaml;
  ASSERT_EQ(model->failures.processes.size(), 1u);
  const FailureProcess& p = model->failures.processes[0];
  EXPECT_EQ(p.distribution, "hawkes");
  EXPECT_EQ(p.largest_burst_size(), inc.sizes.back());
  // The partners' delays as measured: the share at once, and the later ones' mean past 60 s.
  ASSERT_TRUE(p.has_partner_delays());
  EXPECT_NEAR(p.partner_at_once_share, inc.marks.at_once_share, 1e-6);
  EXPECT_DOUBLE_EQ(p.partner_delay_after_s, 60.0);
  EXPECT_NEAR(p.partner_delay_mean_s, inc.marks.later_mean_s, 1e-3);
  // The engine on the model: incidents (each burst is one, its partners minutes apart) as often as
  // the log's (within 10%), of as many nodes on average (within 10%), with large ones as often
  // (5 sigma of the log's share of incidents of 8 or more).
  std::vector<FailureEvent> sampled;
  constexpr int kReplications = 4;
  for (uint64_t rep = 0; rep < kReplications; ++rep) {
    const auto one = testing::events(*model, 11, rep, kDays);
    sampled.insert(sampled.end(), one.begin(), one.end());
  }
  const std::vector<int> model_runs = runs(sampled);
  const double model_incidents = static_cast<double>(model_runs.size()) / kReplications;
  EXPECT_NEAR(model_incidents / static_cast<double>(inc.incidents), 1.0, 0.1);
  const double log_mean = static_cast<double>(inc.incidents + inc.partners) /
                          static_cast<double>(inc.incidents);
  const double model_mean = static_cast<double>(sampled.size()) / kReplications / model_incidents;
  EXPECT_NEAR(model_mean / log_mean, 1.0, 0.1);
  const auto large = [](const std::vector<int>& v) {
    return static_cast<double>(std::count_if(v.begin(), v.end(), [](int s) { return s >= 8; }));
  };
  const double log_share = large(inc.sizes) / static_cast<double>(inc.incidents);
  const double n = static_cast<double>(model_runs.size());
  testing::expect_within_5_sigma(large(model_runs) / n, log_share,
                                 std::sqrt(log_share * (1 - log_share) / n),
                                 "share of incidents of 8 or more nodes");
}

// A Hawkes process of every fault (its triggered faults minutes after their parents) is read as
// every fault, not as incidents.
TEST(PooledIncidents, AHawkesLogIsNotReadAsIncidents) {
  constexpr double kDays = 700;
  Scenario s = testing::scenario_with(kLogNodes, 8, 8);
  FailureProcess p = testing::process(Component::kNode, 1.0 / (200 * kDay), "hawkes");
  p.branching = 0.6;
  p.excitation_mean_s = 600.0;
  FailureKind k = testing::kind("a", 1.0, "exponential", 2 * kDay);
  p.kinds = {k};
  s.failures.processes = {p};
  const auto ev = testing::events(s, 7, 0, kDays);
  const TraceFit f = testing::fit_csv(testing::csv_log_with_kinds(ev, kDays), kLogNodes, 19,
                                      /*max_regime_faults=*/0);
  const PooledIncidents& inc = f.pooled.incidents;
  ASSERT_TRUE(inc.fitted);
  EXPECT_FALSE(inc.chosen) << "incidents " << inc.best_leaders_gain << ", every fault "
                           << inc.best_faults_gain;
  EXPECT_EQ(fitted_failures_yaml(f).find("burst: {"), std::string::npos);
}

}  // namespace
}  // namespace ntpsim::sim
