// The event schedule of one replication: its failures and the repairs they schedule, merged in
// the event queue's order (time, priority, insertion sequence) once, then replayed by every
// strategy's run. Strategies never add events of their own (checkpoints and recovery ends are
// integrated analytically, engine.h), so the order does not depend on the strategy and building
// it once per replication saves the heap work of the other strategies.
// Ownership: a value that keeps its storage across build() calls (no allocation once grown).
// Thread safety: none; one per thread, read-only while runs replay it.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/engine/event_queue.h"
#include "sim/failures/failure_source.h"

namespace ntpsim::sim {

struct ScheduledEvent {
  Time time;
  EventType type = EventType::kFailure;
  int32_t failure = 0;  // index into the replication's failure list
};

class EventSchedule {
 public:
  // REQUIRES: failures sorted by time. Events at or after `end` are left out.
  void build(const std::vector<FailureEvent>& failures, Time end);
  const std::vector<ScheduledEvent>& events() const { return events_; }

 private:
  EventQueue queue_;
  std::vector<ScheduledEvent> events_;
};

}  // namespace ntpsim::sim
