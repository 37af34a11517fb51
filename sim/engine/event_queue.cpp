#include "sim/engine/event_queue.h"

#include <utility>

#include "models/base/check.h"

namespace ntpsim::sim {

void EventQueue::push(Time time, EventPriority priority, EventType type, int64_t payload) {
  heap_.push_back(QueuedEvent{time, priority, type, next_sequence_++, payload});
  // Sift up.
  size_t i = heap_.size() - 1;
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!before(heap_[i], heap_[parent])) break;
    std::swap(heap_[i], heap_[parent]);
    i = parent;
  }
}

QueuedEvent EventQueue::pop() {
  NTPSIM_CHECK(!heap_.empty());
  QueuedEvent out = heap_.front();
  heap_.front() = heap_.back();
  heap_.pop_back();
  // Sift down.
  const size_t n = heap_.size();
  size_t i = 0;
  while (true) {
    const size_t l = 2 * i + 1, r = l + 1;
    size_t best = i;
    if (l < n && before(heap_[l], heap_[best])) best = l;
    if (r < n && before(heap_[r], heap_[best])) best = r;
    if (best == i) break;
    std::swap(heap_[i], heap_[best]);
    i = best;
  }
  return out;
}

}  // namespace ntpsim::sim
