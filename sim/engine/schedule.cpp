#include "sim/engine/schedule.h"

#include <array>

#include "models/base/check.h"

namespace ntpsim::sim {
namespace {

// A ScheduledEvent holds GPU indices and counts below 2^24.
void check_packable(GpuRange gpus) {
  NTPSIM_CHECK_MSG(gpus.first >= 0 && gpus.count >= 0 && gpus.end() < ScheduledEvent::kGpuLimit,
                   "failure GPU range beyond the 2^24 GPUs an event schedule holds");
}

}  // namespace

void EventSchedule::build(const std::vector<FailureEvent>& failures, Time end) {
  NTPSIM_CHECK(failures.size() < static_cast<size_t>(INT32_MAX));
  // No clear: the merge overwrites every event it keeps, so resizing the last replication's
  // list constructs only the events beyond its length (the queue's build clears it).
  merged_ = build_merged(failures, end);
  if (!merged_) build_with_queue(failures, end);
}

void EventSchedule::build_with_queue(const std::vector<FailureEvent>& failures, Time end) {
  queue_.clear();
  events_.clear();
  unrepaired_.clear();
  size_t next = 0;
  Time last = Time::start();
  auto push_failure = [&] {
    if (next >= failures.size() || failures[next].time >= end) return;
    NTPSIM_CHECK_MSG(failures[next].time >= last, "failure events out of time order");
    check_packable(failures[next].gpus);
    last = failures[next].time;
    queue_.push(failures[next].time, EventPriority::kFailure, EventType::kFailure,
                static_cast<int64_t>(next));
    ++next;
  };
  push_failure();
  while (!queue_.empty() && queue_.top().time < end) {
    const QueuedEvent ev = queue_.pop();
    const auto index = static_cast<int32_t>(ev.payload);
    events_.emplace_back(ev.time, ev.type, failures[static_cast<size_t>(index)]);
    if (ev.type == EventType::kFailure) {
      const FailureEvent& e = failures[static_cast<size_t>(ev.payload)];
      if (e.repair < Duration::max() && e.time + e.repair < end) {
        queue_.push(e.time + e.repair, EventPriority::kRepair, EventType::kRepair, ev.payload);
      } else {
        unrepaired_.push_back(e.gpus);
      }
      push_failure();
    }
  }
}

bool EventSchedule::build_merged(const std::vector<FailureEvent>& failures, Time end) {
  // The failures before `end` (a prefix: they are sorted) and, per distinct repair duration,
  // those whose repair falls before `end`, in index order with the repair's time.
  std::array<Duration, kMaxMergedDurations> durations{};
  int n_durations = 0;
  for (auto& s : streams_) s.clear();
  unrepaired_.clear();
  size_t n_failures = 0;
  Time last = Time::start();
  for (; n_failures < failures.size() && failures[n_failures].time < end; ++n_failures) {
    const FailureEvent& e = failures[n_failures];
    NTPSIM_CHECK_MSG(e.time >= last, "failure events out of time order");
    check_packable(e.gpus);
    last = e.time;
    // A negative repair would precede its failure, which only the queue orders as it always did.
    if (e.repair < Duration::zero()) return false;
    const Time repaired = e.time + e.repair;  // never when the repair is Duration::max()
    if (!(repaired < end)) {
      unrepaired_.push_back(e.gpus);
      continue;
    }
    int s = 0;
    while (s < n_durations && durations[static_cast<size_t>(s)] != e.repair) ++s;
    if (s == n_durations) {
      if (n_durations == kMaxMergedDurations) return false;
      durations[static_cast<size_t>(n_durations++)] = e.repair;
      if (streams_.size() < static_cast<size_t>(n_durations)) streams_.emplace_back();
    }
    streams_[static_cast<size_t>(s)].push_back({repaired.us(), static_cast<int32_t>(n_failures)});
  }
  // The repairs in (time, failure index) order: the streams merged pairwise, each ending in a
  // sentinel that sorts after every repair. These merges and the last one below pick their next
  // element by a comparison whose outcome selects rather than branches: which stream goes next
  // is as good as random, and a branch on it would be mispredicted about every other event.
  for (int s = 0; s < n_durations; ++s) streams_[static_cast<size_t>(s)].push_back(kEnd);
  const std::vector<PendingRepair>* repairs = &repairs_;
  if (n_durations == 0) {
    repairs_.assign(1, kEnd);
  } else if (n_durations == 1) {
    repairs = &streams_[0];
  } else {
    merge_repairs(streams_[0], streams_[1], repairs_);
    for (int s = 2; s < n_durations; ++s) {
      repairs_.swap(merge_scratch_);
      merge_repairs(merge_scratch_, streams_[static_cast<size_t>(s)], repairs_);
    }
  }
  // Then with the failures, by (time, priority): a failure before a repair at its time
  // (EventPriority::kFailure < kRepair).
  // Once the failures are spent, the repairs left follow in their order (a repair is never
  // taken past kEnd: the events' count stops the loop first).
  const PendingRepair* r = repairs->data();
  events_.resize(n_failures + repairs->size() - 1);
  size_t f = 0;
  for (ScheduledEvent& out : events_) {
    const bool take_failure = f < n_failures && failures[f].time.us() <= r->us;
    const auto index = take_failure ? static_cast<int32_t>(f) : r->failure;
    const FailureEvent& e = failures[static_cast<size_t>(index)];
    out = ScheduledEvent(take_failure ? e.time : Time::at(Duration::micros(r->us)),
                         take_failure ? EventType::kFailure : EventType::kRepair, e);
    f += take_failure ? 1 : 0;
    r += take_failure ? 0 : 1;
  }
  return true;
}

void EventSchedule::merge_repairs(const std::vector<PendingRepair>& a,
                                  const std::vector<PendingRepair>& b,
                                  std::vector<PendingRepair>& out) {
  const size_t n = a.size() + b.size() - 2;  // both end in kEnd
  out.resize(n + 1);
  const PendingRepair* x = a.data();
  const PendingRepair* y = b.data();
  for (size_t k = 0; k < n; ++k) {
    const bool take_x = x->us < y->us || (x->us == y->us && x->failure < y->failure);
    out[k] = take_x ? *x : *y;
    x += take_x ? 1 : 0;
    y += take_x ? 0 : 1;
  }
  out[n] = kEnd;
}

}  // namespace ntpsim::sim
