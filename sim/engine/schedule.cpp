#include "sim/engine/schedule.h"

#include <array>

#include "models/base/check.h"

namespace ntpsim::sim {

void EventSchedule::build(const std::vector<FailureEvent>& failures, Time end) {
  NTPSIM_CHECK(failures.size() < static_cast<size_t>(INT32_MAX));
  events_.clear();
  merged_ = build_merged(failures, end);
  if (!merged_) build_with_queue(failures, end);
}

void EventSchedule::build_with_queue(const std::vector<FailureEvent>& failures, Time end) {
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
    const auto index = static_cast<int32_t>(ev.payload);
    events_.emplace_back(ev.time, ev.type, index, failures[static_cast<size_t>(index)]);
    if (ev.type == EventType::kFailure) {
      const FailureEvent& e = failures[static_cast<size_t>(ev.payload)];
      if (e.repair < Duration::max() && e.time + e.repair < end) {
        queue_.push(e.time + e.repair, EventPriority::kRepair, EventType::kRepair, ev.payload);
      }
      push_failure();
    }
  }
}

bool EventSchedule::build_merged(const std::vector<FailureEvent>& failures, Time end) {
  // The failures before `end` (a prefix: they are sorted) and, per distinct repair duration,
  // those whose repair falls before `end`, in index order.
  std::array<Duration, kMaxMergedDurations> durations{};
  int n_durations = 0;
  for (auto& s : streams_) s.clear();
  size_t n_failures = 0;
  Time last = Time::start();
  for (; n_failures < failures.size() && failures[n_failures].time < end; ++n_failures) {
    const FailureEvent& e = failures[n_failures];
    NTPSIM_CHECK_MSG(e.time >= last, "failure events out of time order");
    last = e.time;
    // A negative repair would precede its failure, which only the queue orders as it always did.
    if (e.repair < Duration::zero()) return false;
    if (!(e.repair < Duration::max() && e.time + e.repair < end)) continue;
    int s = 0;
    while (s < n_durations && durations[static_cast<size_t>(s)] != e.repair) ++s;
    if (s == n_durations) {
      if (n_durations == kMaxMergedDurations) return false;
      durations[static_cast<size_t>(n_durations++)] = e.repair;
      if (streams_.size() < static_cast<size_t>(n_durations)) streams_.emplace_back();
    }
    streams_[static_cast<size_t>(s)].push_back(static_cast<int32_t>(n_failures));
  }
  // Merge by (time, priority, failure index): the failures' stream first among equal times
  // (EventPriority::kFailure < kRepair), repairs of equal times by their failure's index. Each
  // stream's head is kept as its key (time; index), kNone when the stream is spent.
  constexpr int64_t kNone = INT64_MAX;
  std::array<size_t, kMaxMergedDurations> at{};
  std::array<int64_t, kMaxMergedDurations> head_us{};
  std::array<int32_t, kMaxMergedDurations> head_index{};
  auto load_head = [&](int s) {
    const auto k = static_cast<size_t>(s);
    const std::vector<int32_t>& stream = streams_[k];
    if (at[k] == stream.size()) {
      head_us[k] = kNone;
      return;
    }
    head_index[k] = stream[at[k]];
    head_us[k] = (failures[static_cast<size_t>(head_index[k])].time + durations[k]).us();
  };
  for (int s = 0; s < n_durations; ++s) load_head(s);
  size_t f = 0;
  for (;;) {
    int best = -1;  // the repair stream with the earliest head, -1 = none left
    int64_t best_us = kNone;
    for (int s = 0; s < n_durations; ++s) {
      const auto k = static_cast<size_t>(s);
      if (head_us[k] < best_us || (head_us[k] == best_us && best >= 0 &&
                                   head_index[k] < head_index[static_cast<size_t>(best)])) {
        best = s;
        best_us = head_us[k];
      }
    }
    if (f < n_failures && (best < 0 || failures[f].time.us() <= best_us)) {
      events_.emplace_back(failures[f].time, EventType::kFailure, static_cast<int32_t>(f),
                           failures[f]);
      ++f;
    } else if (best >= 0) {
      const auto k = static_cast<size_t>(best);
      events_.emplace_back(Time::at(Duration::micros(best_us)), EventType::kRepair,
                           head_index[k], failures[static_cast<size_t>(head_index[k])]);
      ++at[k];
      load_head(best);
    } else {
      break;
    }
  }
  return true;
}

}  // namespace ntpsim::sim
