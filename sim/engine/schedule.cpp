#include "sim/engine/schedule.h"

#include "models/base/check.h"

namespace ntpsim::sim {

void EventSchedule::build(const std::vector<FailureEvent>& failures, Time end) {
  NTPSIM_CHECK(failures.size() < static_cast<size_t>(INT32_MAX));
  queue_.clear();
  events_.clear();
  size_t next = 0;
  Time last = Time::start();
  auto push_failure = [&] {
    if (next >= failures.size() || failures[next].time >= end) return;
    NTPSIM_CHECK_MSG(failures[next].time >= last, "failure events out of time order");
    last = failures[next].time;
    queue_.push(failures[next].time, EventPriority::kFailure, EventType::kFailure,
                static_cast<int64_t>(next));
    ++next;
  };
  push_failure();
  while (!queue_.empty() && queue_.top().time < end) {
    const QueuedEvent ev = queue_.pop();
    events_.push_back(ScheduledEvent{ev.time, ev.type, static_cast<int32_t>(ev.payload)});
    if (ev.type == EventType::kFailure) {
      const FailureEvent& e = failures[static_cast<size_t>(ev.payload)];
      if (e.repair < Duration::max() && e.time + e.repair < end) {
        queue_.push(e.time + e.repair, EventPriority::kRepair, EventType::kRepair, ev.payload);
      }
      push_failure();
    }
  }
}

}  // namespace ntpsim::sim
