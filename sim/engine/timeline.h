// What one strategy run of replication 0 records for charts and the Perfetto trace
// (docs/results-schema.md, "timeline"): job-state segments, marks and per-domain state changes.
//
// Checkpoint pauses are shown as marks, not as segments, and only the first
// `checkpoint_mark_limit` of them, so a year of 10-minute checkpoints does not bloat the
// document. When any list reaches `limit` entries, recording stops for all three lists at that
// moment: `truncated` is set, `recorded_until_s` holds the time, and the last segment ends there.
// So everything recorded is true up to `recorded_until_s`, and nothing after it is invented.
// States and types are string literals with static storage.
// Ownership: a value owned by the caller of Engine::run. Thread safety: none.
#pragma once

#include <cstdint>
#include <vector>

namespace ntpsim::sim {

struct TimelineSegment {
  double t_s = 0, end_s = 0;
  const char* state = "running";  // running | degraded | recovering | stalled
  double throughput = 1.0;        // job throughput / ideal rate
  int64_t usable_gpus = 0;        // GPUs the job computes on
  int64_t failed_gpus = 0;        // down GPUs at the segment's start
};

struct TimelineMark {
  double t_s = 0;
  const char* type = "checkpoint";  // checkpoint | failure | repair | reconfigure | restart | rollback
  double duration_s = 0;            // checkpoints: the pause the job takes (exposed write time)
};

struct DomainChange {
  int domain = 0;
  double t_s = 0;
  const char* state = "healthy";  // healthy | degraded | boosted | failed | repaired | idle
  int tp = 0;                     // lowest TP degree among the domain's job groups (0 = none)
  double power_ratio = 1.0;
};

struct StrategyTimeline {
  size_t limit = 20000;                 // per list
  size_t checkpoint_mark_limit = 1000;  // checkpoint marks recorded (the rest are periodic)
  size_t checkpoint_marks = 0;
  bool truncated = false;
  double recorded_until_s = 0;  // when truncated: the time recording stopped
  std::vector<TimelineSegment> segments;
  std::vector<TimelineMark> marks;
  std::vector<DomainChange> domains;

  template <typename T>
  void add(std::vector<T>& list, const T& item) {
    if (truncated) return;
    if (list.size() >= limit) {
      truncated = true;
      recorded_until_s = item.t_s;
      if (!segments.empty()) segments.back().end_s = item.t_s;
      return;
    }
    list.push_back(item);
  }
  void add_checkpoint_mark(double t_s, double pause_s) {
    if (checkpoint_marks >= checkpoint_mark_limit) return;
    ++checkpoint_marks;
    add(marks, TimelineMark{t_s, "checkpoint", pause_s});
  }
};

}  // namespace ntpsim::sim
