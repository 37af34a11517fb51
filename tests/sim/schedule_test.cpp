// The event schedule replays the event queue's order (time, priority, insertion sequence) for
// any failure list, whether it merges per-duration repair streams or falls back to the queue.
#include "sim/engine/schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "tests/sim/lcg.h"

namespace ntpsim::sim {
namespace {

// The order as the queue gives it: failure i pushed once failure i - 1 is popped, each repair
// pushed when its failure is popped (the schedule's definition).
std::vector<ScheduledEvent> queue_order(const std::vector<FailureEvent>& failures, Time end) {
  EventQueue q;
  std::vector<ScheduledEvent> out;
  size_t next = 0;
  auto push_failure = [&] {
    if (next < failures.size() && failures[next].time < end) {
      q.push(failures[next].time, EventPriority::kFailure, EventType::kFailure,
             static_cast<int64_t>(next));
      ++next;
    }
  };
  push_failure();
  while (!q.empty()) {
    const QueuedEvent ev = q.pop();
    const auto index = static_cast<int32_t>(ev.payload);
    out.push_back(ScheduledEvent(ev.time, ev.type, failures[static_cast<size_t>(index)]));
    if (ev.type == EventType::kFailure) {
      const FailureEvent& e = failures[static_cast<size_t>(ev.payload)];
      if (e.repair < Duration::max() && e.time + e.repair < end) {
        q.push(e.time + e.repair, EventPriority::kRepair, EventType::kRepair, ev.payload);
      }
      push_failure();
    }
  }
  return out;
}

// Sorted failure times on a coarse grid (many equal times, bursts), each repair one of
// `durations` (in seconds; -1 = never repaired), chosen by a fixed pseudo-random sequence; GPU
// ranges (failure i's start at GPU i, so an event's GPUs name its failure), components and the
// interrupt flag vary too.
std::vector<FailureEvent> failures_with(const std::vector<int64_t>& durations, int n,
                                        uint64_t seed) {
  std::vector<FailureEvent> out;
  testing::Lcg rng{seed};
  int64_t t = 0;
  for (int i = 0; i < n; ++i) {
    const uint64_t x = rng.next();
    t += static_cast<int64_t>((x >> 40) % 4);  // 0: a failure at the same second as the last
    FailureEvent e;
    e.time = Time::at(Duration::seconds_i(t));
    e.gpus = GpuRange{i, 1 + static_cast<int32_t>((x >> 50) % 4)};
    e.component = e.gpus.count == 1 ? Component::kGpu : Component::kNode;
    e.interrupts = (x >> 33) % 3 != 0;
    const int64_t d = durations[static_cast<size_t>((x >> 20) % durations.size())];
    e.repair = d < 0 ? Duration::max() : Duration::seconds_i(d);
    out.push_back(e);
  }
  return out;
}

void expect_same(const std::vector<ScheduledEvent>& a, const std::vector<ScheduledEvent>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].time, b[i].time) << "event " << i;
    ASSERT_EQ(a[i].type, b[i].type) << "event " << i;
    ASSERT_EQ(a[i].gpus(), b[i].gpus()) << "event " << i;
    ASSERT_EQ(a[i].interrupts, b[i].interrupts) << "event " << i;
    ASSERT_EQ(a[i].beyond_gpus, b[i].beyond_gpus) << "event " << i;
  }
}

// Each event carries its failure's GPUs and flags, for failures and repairs alike, whichever way
// the schedule was built.
void expect_fields_of_failures(const EventSchedule& schedule,
                               const std::vector<FailureEvent>& failures) {
  ASSERT_FALSE(schedule.events().empty());
  std::map<int64_t, const FailureEvent*> by_first_gpu;  // failures_with: one failure per first GPU
  for (const FailureEvent& e : failures) by_first_gpu[e.gpus.first] = &e;
  ASSERT_EQ(by_first_gpu.size(), failures.size());
  for (const ScheduledEvent& ev : schedule.events()) {
    ASSERT_TRUE(by_first_gpu.count(ev.gpus().first));
    const FailureEvent& e = *by_first_gpu[ev.gpus().first];
    ASSERT_EQ(ev.gpus(), e.gpus);
    ASSERT_EQ(ev.interrupts, e.interrupts);
    ASSERT_EQ(ev.beyond_gpus, e.component != Component::kGpu);
  }
}

TEST(EventSchedule, EventsCarryTheirFailuresGpusAndFlags) {
  EventSchedule schedule;
  auto failures = failures_with({3, 5}, 500, 3);
  failures[7].gpus = GpuRange{9'999'000, 72};  // a domain near the 10^7-GPU limit
  failures[7].component = Component::kDomain;
  schedule.build(failures, Time::never());
  EXPECT_TRUE(schedule.merged());
  expect_fields_of_failures(schedule, failures);
  const auto many = failures_with({1, 2, 3, 4, 5, 6, 7, 8, 9}, 500, 4);
  schedule.build(many, Time::never());
  EXPECT_FALSE(schedule.merged());
  expect_fields_of_failures(schedule, many);
}

// Events hold GPU indices below 2^24 (ScheduledEvent): a range past that is refused, not cut.
TEST(EventScheduleDeathTest, GpuRangesPastTheEventsLimitAreRefused) {
  auto failures = failures_with({3}, 10, 2);
  failures[4].gpus = GpuRange{ScheduledEvent::kGpuLimit - 1, 2};
  EventSchedule schedule;
  EXPECT_DEATH(schedule.build(failures, Time::never()), "2\\^24 GPUs");
  failures[4].gpus = GpuRange{ScheduledEvent::kGpuLimit - 2, 1};  // the highest index accepted
  schedule.build(failures, Time::never());
  EXPECT_EQ(std::count_if(schedule.events().begin(), schedule.events().end(),
                          [&](const ScheduledEvent& ev) { return ev.gpus() == failures[4].gpus; }),
            2);  // its failure and its repair
}

TEST(EventSchedule, FewFixedDurationsMergeInTheQueuesOrder) {
  // Two durations (as two failure kinds with fixed repairs), zero-length repairs (a repair at
  // its failure's time comes after the failures of that time), unrepaired failures, and repairs
  // that fall after the end; equal repair times from different streams go by failure index.
  const std::vector<std::vector<int64_t>> cases = {
      {3}, {3, 5}, {0, 2, 7}, {4, 4, 9, -1}, {1, 2, 3, 4, 5, 6, 7, 8}};
  EventSchedule schedule;
  for (size_t c = 0; c < cases.size(); ++c) {
    const auto failures = failures_with(cases[c], 2000, 17 + c);
    for (const Time end : {failures.back().time, failures.back().time + Duration::seconds_i(5),
                           Time::at(Duration::seconds_i(200))}) {
      schedule.build(failures, end);
      EXPECT_TRUE(schedule.merged()) << "case " << c;
      expect_same(schedule.events(), queue_order(failures, end));
    }
  }
}

TEST(EventSchedule, ManyDurationsFallBackToTheQueue) {
  const auto failures = failures_with({1, 2, 3, 4, 5, 6, 7, 8, 9}, 2000, 5);
  EventSchedule schedule;
  const Time end = failures.back().time;
  schedule.build(failures, end);
  EXPECT_FALSE(schedule.merged());
  expect_same(schedule.events(), queue_order(failures, end));
  // The same schedule value builds a merged schedule afterwards, from scratch.
  const auto two = failures_with({3, 11}, 500, 9);
  schedule.build(two, Time::never());
  EXPECT_TRUE(schedule.merged());
  expect_same(schedule.events(), queue_order(two, Time::never()));
}

TEST(EventSchedule, EmptyAndAllAfterEnd) {
  EventSchedule schedule;
  schedule.build({}, Time::at(Duration::seconds_i(10)));
  EXPECT_TRUE(schedule.events().empty());
  const auto failures = failures_with({3}, 10, 1);
  schedule.build(failures, Time::start());
  EXPECT_TRUE(schedule.events().empty());
}

}  // namespace
}  // namespace ntpsim::sim
