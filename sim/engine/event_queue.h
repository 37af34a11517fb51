// The engine's pending events: a binary min-heap keyed by (time, priority, insertion sequence).
//
// `priority` settles same-instant conflicts explicitly (a smaller value runs first: a failure
// before a repair at the same microsecond); the insertion sequence makes the order of equal
// (time, priority) events deterministic (first pushed, first popped), as in SimCpp20 and ns-3.
// The heap's storage is kept across `clear()`, so a queue reused over replications does not
// allocate once it has grown to its working size.
// Ownership: a value; each engine owns one. Thread safety: none (one queue per thread).
#pragma once

#include <cstdint>
#include <vector>

#include "models/base/time.h"

namespace ntpsim::sim {

// What a queued event is; the engine's loop dispatches on it.
enum class EventType : uint8_t { kFailure, kRepair };

// Same-instant order: failures first (the job is hit before a repair or a checkpoint completion
// at the same microsecond is credited), then repairs.
enum class EventPriority : uint8_t { kFailure = 0, kRepair = 1 };

struct QueuedEvent {
  Time time;
  EventPriority priority = EventPriority::kFailure;
  EventType type = EventType::kFailure;
  uint64_t sequence = 0;  // insertion counter, set by push()
  int64_t payload = 0;    // index into the engine's event list
};

class EventQueue {
 public:
  void reserve(size_t n) { heap_.reserve(n); }
  // Empties the queue and restarts the sequence counter; keeps the storage.
  void clear() {
    heap_.clear();
    next_sequence_ = 0;
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }

  void push(Time time, EventPriority priority, EventType type, int64_t payload);
  // REQUIRES: !empty()
  const QueuedEvent& top() const { return heap_.front(); }
  QueuedEvent pop();

 private:
  static bool before(const QueuedEvent& a, const QueuedEvent& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.priority != b.priority) return a.priority < b.priority;
    return a.sequence < b.sequence;
  }

  std::vector<QueuedEvent> heap_;
  uint64_t next_sequence_ = 0;
};

}  // namespace ntpsim::sim
