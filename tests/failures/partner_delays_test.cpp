// Burst partners that start later (`partner_delays`): each partner after the one before it, at
// once with the stated chance, else `after` plus an exponential delay; each a failure event of its
// own, in time order, of its burst's kind, on the units taken with the burst, which no other
// failure takes first; the expected interruption rate counts each group that starts together
// once; without the map nothing changes; bad values are refused. Fixed seeds, 5-sigma tolerances.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "failure_test_util.h"
#include "models/base/check.h"

namespace ntpsim::sim {
namespace {

using testing::collect;
using testing::expect_within_5_sigma;
using testing::topo;

// A node process of 100 nodes whose every failure is a burst of `size` with delayed partners.
FailureProcess delayed_bursts(const std::string& dist, int size) {
  FailureProcess p = testing::process(Component::kNode, 1e-7, dist, dist == "weibull" ? 1.5 : 1.0);
  if (dist == "hawkes") {
    p.branching = 0.3;
    p.excitation_mean_s = 3600.0;
  }
  p.kinds = {testing::kind("a", 0.5, "fixed", 7200.0), testing::kind("b", 0.5, "fixed", 7200.0)};
  p.burst_probability = 1.0;
  p.burst_size = size;
  p.partner_at_once_share = 0.4;
  p.partner_delay_after_s = 60.0;
  p.partner_delay_mean_s = 600.0;
  return p;
}

TEST(PartnerDelaysTest, PartnersStartAfterTheirDelaysOnTheUnitsOfTheirBurst) {
  for (const char* dist : {"exponential", "hawkes", "weibull"}) {
    SCOPED_TRACE(dist);
    Scenario s = testing::scenario_with(10, 40, 4);  // 100 nodes of 4 GPUs
    const int size = 3;
    s.failures.processes = {delayed_bursts(dist, size)};
    const Topology t = topo(s);
    const double horizon = 2e9;
    const auto events = collect(s, t, 17, 0, horizon);
    ASSERT_GT(events.size(), 30000u);

    // Replayed from the events alone: each unit's repair end, and the units a burst took for
    // partners still to come (the engine promises no other failure takes them first).
    struct Burst {
      std::vector<int64_t> units;  // partners in the order taken
      size_t next = 0;             // the next partner to start
      double last_s = 0.0;         // the start of the member before it
      uint16_t kind = 0;
    };
    std::vector<Burst> bursts;
    std::map<int64_t, size_t> reserved;  // unit -> its burst
    std::vector<double> up_at(100, 0.0);
    int64_t at_once = 0, later = 0;
    double excess_sum = 0.0, shortest_later = 1e300;
    for (size_t i = 0; i < events.size(); ++i) {
      const FailureEvent& e = events[i];
      const double now = e.time.seconds();
      if (i > 0) {
        ASSERT_LE(events[i - 1].time, e.time);
      }
      ASSERT_LE(up_at[static_cast<size_t>(e.unit)], now) << "a unit failed again while down";
      up_at[static_cast<size_t>(e.unit)] = now + e.repair.seconds();
      if (auto r = reserved.find(e.unit); r != reserved.end()) {
        Burst& b = bursts[r->second];
        ASSERT_LT(b.next, b.units.size());
        ASSERT_EQ(b.units[b.next], e.unit) << "partners of a burst start in the order taken";
        EXPECT_EQ(e.kind, b.kind);
        const double d = now - b.last_s;
        if (d == 0.0) {
          ++at_once;
        } else {
          ++later;
          excess_sum += d - 60.0;
          shortest_later = std::min(shortest_later, d);
        }
        b.last_s = now;
        ++b.next;
        reserved.erase(r);
        continue;
      }
      // A burst's first failure: its partners are the next units up and not taken.
      Burst b;
      b.last_s = now;
      b.kind = e.kind;
      int64_t v = e.unit;
      for (int scanned = 1; static_cast<int>(b.units.size()) < size - 1 && scanned < 100;
           ++scanned) {
        v = (v + 1) % 100;
        if (up_at[static_cast<size_t>(v)] > now || reserved.count(v) != 0) continue;
        b.units.push_back(v);
        reserved[v] = bursts.size();
      }
      bursts.push_back(b);
    }
    // Every burst but those cut by the horizon brought all its partners.
    size_t complete = 0;
    for (const Burst& b : bursts) complete += b.next == b.units.size() ? 1 : 0;
    EXPECT_GE(complete + 5, bursts.size());
    const double n = static_cast<double>(at_once + later);
    expect_within_5_sigma(static_cast<double>(at_once) / n, 0.4, std::sqrt(0.24 / n), "at once");
    EXPECT_GE(shortest_later, 60.0 - 1e-6);
    const double m = static_cast<double>(later);
    expect_within_5_sigma(excess_sum / m, 540.0, 540.0 / std::sqrt(m), "mean delay past after");
  }
}

// With every partner at once (at_once 1) a burst's partners share its instant, as without the map.
TEST(PartnerDelaysTest, AllAtOnceKeepsPartnersWithTheirBurst) {
  Scenario s = testing::scenario_with(10, 40, 4);
  FailureProcess p = delayed_bursts("exponential", 3);
  p.burst_probability = 0.3;
  p.partner_at_once_share = 1.0;
  s.failures.processes = {p};
  const Topology t = topo(s);
  const auto events = collect(s, t, 5, 0, 2e8);
  std::map<int64_t, int> per_instant;
  for (const FailureEvent& e : events) ++per_instant[e.time.us()];
  for (const auto& [us, count] : per_instant) ASSERT_TRUE(count == 1 || count == 3) << count;
}

// The closed form counts the groups of a burst that start together, each meeting the job with the
// chance a run of that many units starting anywhere has: at_once 1 is the burst as one event;
// at_once 0 makes every unit its own event; in between, the engine's groups that meet the job
// come as often as the closed form says.
TEST(PartnerDelaysTest, ExpectedInterruptionsCountEachGroupOnce) {
  Scenario s = testing::scenario_with(10, 10, 0);  // 100 GPUs
  FailureProcess p = testing::process(Component::kGpu, 1e-6);
  p.burst_probability = 0.5;
  p.burst_sizes = {2, 4};
  s.failures.processes = {p};
  const Topology t = topo(s);
  const int64_t job = 30;
  const double as_one = expected_interruption_rate_per_s(s, t, job);
  s.failures.processes[0].partner_delay_after_s = 60.0;
  s.failures.processes[0].partner_delay_mean_s = 600.0;
  s.failures.processes[0].partner_at_once_share = 1.0;
  EXPECT_NEAR(expected_interruption_rate_per_s(s, t, job), as_one, 1e-15);
  s.failures.processes[0].partner_at_once_share = 0.0;
  // Every unit its own event: 1e-6 x 100 x (1 + 0.5 x 2 extra units) x 30 / 100.
  EXPECT_NEAR(expected_interruption_rate_per_s(s, t, job), 1e-6 * 2.0 * 30.0, 1e-15);

  s.failures.processes[0].partner_at_once_share = 0.5;
  const double rate = expected_interruption_rate_per_s(s, t, job);
  EXPECT_GT(rate, as_one);
  EXPECT_LT(rate, 1e-6 * 2.0 * 30.0);
  const double horizon = 2e9;
  const auto events = collect(s, t, 23, 0, horizon);
  std::set<int64_t> hit_times;  // one interruption per instant
  for (const FailureEvent& e : events) {
    if (e.interrupts && e.gpus.first < job) hit_times.insert(e.time.us());
  }
  const double expected = rate * horizon;
  expect_within_5_sigma(static_cast<double>(hit_times.size()), expected, std::sqrt(expected),
                        "interruptions");
}

TEST(PartnerDelaysTest, BadValuesAreRefusedNamingTheField) {
  Scenario s = testing::scenario_with(2, 8, 0);
  const Topology t = topo(s);
  auto expect_error = [&](FailureProcess p, const std::string& needle) {
    Scenario bad = s;
    bad.failures.processes = {std::move(p)};
    auto r = FailureSource::make(bad, t, nullptr, 1, 0);
    ASSERT_FALSE(r.ok()) << needle;
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
    // check() refuses it with make()'s message, without building a source.
    const Status checked = FailureSource::check(bad, t, nullptr);
    ASSERT_FALSE(checked.ok()) << needle;
    EXPECT_EQ(checked.error().message, r.error().message);
  };
  FailureProcess p = testing::process(Component::kGpu, 1e-6);
  p.partner_delay_mean_s = 600.0;
  expect_error(p, "failures.processes[0].partner_delays: partner delays need a burst");
  p.burst_probability = 0.5;
  p.burst_size = 2;
  p.partner_at_once_share = 1.5;
  expect_error(p, "failures.processes[0].partner_delays.at_once");
  p.partner_at_once_share = 0.5;
  p.partner_delay_after_s = 600.0;
  expect_error(p, "failures.processes[0].partner_delays.mean");
  p.partner_delay_after_s = 0.0;
  Scenario good = s;
  good.failures.processes = {p};
  EXPECT_TRUE(FailureSource::make(good, t, nullptr, 1, 0).ok());
  EXPECT_TRUE(FailureSource::check(good, t, nullptr).ok());
}

}  // namespace
}  // namespace ntpsim::sim
