#include "sim/engine/event_queue.h"

#include "models/base/check.h"

namespace ntpsim::sim {

void EventQueue::push(Time time, EventPriority priority, EventType type, int64_t payload) {
  NTPSIM_CHECK(next_sequence_ < (uint64_t{1} << 56));
  const Node node{
      time.us(),
      static_cast<uint64_t>(priority) << 58 | next_sequence_++ << 2 | static_cast<uint64_t>(type),
      payload};
  // Sift up: move parents down into the hole until the node's place is found.
  size_t i = heap_.size();
  heap_.push_back(node);
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!before(node, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = node;
}

QueuedEvent EventQueue::pop() {
  NTPSIM_CHECK(!heap_.empty());
  const QueuedEvent out = unpack(heap_.front());
  const Node last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n == 0) return out;
  // Sift down from the root: the smaller child moves up into the hole until `last` fits.
  size_t i = 0;
  while (true) {
    const size_t l = 2 * i + 1;
    if (l >= n) break;
    const size_t c = l + 1 < n && before(heap_[l + 1], heap_[l]) ? l + 1 : l;
    if (!before(heap_[c], last)) break;
    heap_[i] = heap_[c];
    i = c;
  }
  heap_[i] = last;
  return out;
}

}  // namespace ntpsim::sim
