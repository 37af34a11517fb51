// The engine's pending events: a binary min-heap keyed by (time, priority, insertion sequence).
//
// `priority` settles same-instant conflicts explicitly (a smaller value runs first: a failure
// before a repair at the same microsecond); the insertion sequence makes the order of equal
// (time, priority) events deterministic (first pushed, first popped), as in SimCpp20 and ns-3.
// The heap's storage is kept across `clear()`, so a queue reused over replications does not
// allocate once it has grown to its working size. Keys are unique (the sequence), so the pop
// order is the sorted order whatever the heap's layout: each node stores its key as two words,
// the time and (priority, sequence, type) packed with the priority highest, compared as a pair.
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

  // REQUIRES: fewer than 2^56 pushes since the last clear().
  void push(Time time, EventPriority priority, EventType type, int64_t payload);
  // REQUIRES: !empty()
  QueuedEvent top() const { return unpack(heap_.front()); }
  QueuedEvent pop();

 private:
  // (time, priority, sequence) as two words: `order` holds the priority in bits 58-63, the
  // sequence in bits 2-57 and the type in bits 0-1; the type never decides (sequences differ).
  struct Node {
    int64_t time_us;
    uint64_t order;
    int64_t payload;
  };
  static bool before(const Node& a, const Node& b) {
    return a.time_us < b.time_us || (a.time_us == b.time_us && a.order < b.order);
  }
  static QueuedEvent unpack(const Node& n) {
    return QueuedEvent{
        Time::at(Duration::micros(n.time_us)), static_cast<EventPriority>(n.order >> 58),
        static_cast<EventType>(n.order & 3), (n.order >> 2) & ((uint64_t{1} << 56) - 1), n.payload};
  }

  std::vector<Node> heap_;
  uint64_t next_sequence_ = 0;
};

}  // namespace ntpsim::sim
