// The event queue pops in (time, priority, insertion sequence) order.
#include "sim/engine/event_queue.h"

#include <gtest/gtest.h>

#include "tests/sim/lcg.h"

namespace ntpsim::sim {
namespace {

Time at_s(int64_t s) { return Time::at(Duration::seconds_i(s)); }

TEST(EventQueue, OrdersByTimeThenPriorityThenSequence) {
  EventQueue q;
  q.push(at_s(5), EventPriority::kRepair, EventType::kRepair, 1);
  q.push(at_s(3), EventPriority::kRepair, EventType::kRepair, 2);
  q.push(at_s(5), EventPriority::kFailure, EventType::kFailure, 3);
  q.push(at_s(5), EventPriority::kRepair, EventType::kRepair, 4);
  q.push(at_s(1), EventPriority::kRepair, EventType::kRepair, 5);
  q.push(at_s(5), EventPriority::kFailure, EventType::kFailure, 6);
  std::vector<int64_t> order;
  while (!q.empty()) order.push_back(q.pop().payload);
  EXPECT_EQ(order, (std::vector<int64_t>{5, 2, 3, 6, 1, 4}));
}

TEST(EventQueue, ManyEqualKeysKeepInsertionOrderAndClearRestartsSequence) {
  EventQueue q;
  for (int i = 0; i < 100; ++i) q.push(at_s(7), EventPriority::kFailure, EventType::kFailure, i);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(q.pop().payload, i);
  q.push(at_s(1), EventPriority::kFailure, EventType::kFailure, 0);
  q.clear();
  EXPECT_TRUE(q.empty());
  q.push(at_s(1), EventPriority::kFailure, EventType::kFailure, 9);
  EXPECT_EQ(q.top().sequence, 0u);
}

TEST(EventQueue, RandomInsertionsComeOutSorted) {
  EventQueue q;
  testing::Lcg rng{12345};
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = rng.next();
    q.push(at_s(static_cast<int64_t>(x >> 54)), static_cast<EventPriority>((x >> 20) & 1),
           EventType::kFailure, i);
  }
  QueuedEvent prev = q.pop();
  while (!q.empty()) {
    const QueuedEvent e = q.pop();
    const bool ordered = prev.time < e.time ||
                         (prev.time == e.time && (prev.priority < e.priority ||
                                                  (prev.priority == e.priority &&
                                                   prev.sequence < e.sequence)));
    ASSERT_TRUE(ordered);
    prev = e;
  }
}

}  // namespace
}  // namespace ntpsim::sim
