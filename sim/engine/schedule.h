// The event schedule of one replication: its failures and the repairs they schedule, merged in
// the event queue's order (time, priority, insertion sequence) once, then replayed by every
// strategy's run. Strategies never add events of their own (checkpoints and recovery ends are
// integrated analytically, engine.h), so the order does not depend on the strategy and building
// it once per replication saves the heap work of the other strategies.
//
// Two ways to the same order. The queue receives failure i, then (once it is popped) its repair
// and failure i + 1, so its insertion sequence orders repairs by their failure's index, and the
// order is (time, priority, failure index) for any list. When the repairs take few distinct
// durations (fixed repair times: typically one per failure kind), the repairs of one duration
// come in failure order, already sorted (failure times are sorted); the schedule is then a merge
// of those sorted streams and the failures, with no heap. Otherwise the queue builds it.
// Ownership: a value that keeps its storage across build() calls (no allocation once grown).
// Thread safety: none; one per thread, read-only while runs replay it.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/engine/event_queue.h"
#include "sim/failures/failure_source.h"

namespace ntpsim::sim {

// An event with the fields of its failure that a run reads (the GPUs, whether it interrupts,
// whether it takes more than GPUs), copied once per replication so that every strategy's run
// streams through this list alone instead of also reading the failure list out of order (a
// repair's failure is far behind). Packed in 16 bytes: every strategy's run streams the whole
// list, so its size is memory traffic per event. GPU indices and counts are below 2^24 (a
// cluster has at most 10^7 GPUs, docs/limits.md; EventSchedule::build checks it).
struct ScheduledEvent {
  static constexpr int64_t kGpuLimit = int64_t{1} << 24;

  Time time;
  uint32_t first_gpu : 24 = 0;
  EventType type = EventType::kFailure;
  uint32_t gpu_count : 24 = 0;
  bool interrupts : 1 = true;
  bool beyond_gpus : 1 = false;  // a node, domain or pod failure (it takes its hosts' memory)

  ScheduledEvent() = default;
  // REQUIRES: e.gpus within [0, kGpuLimit).
  ScheduledEvent(Time t, EventType ty, const FailureEvent& e)
      : time(t),
        first_gpu(static_cast<uint32_t>(e.gpus.first)),
        type(ty),
        gpu_count(static_cast<uint32_t>(e.gpus.count)),
        interrupts(e.interrupts),
        beyond_gpus(e.component != Component::kGpu) {}
  GpuRange gpus() const {
    return GpuRange{static_cast<int64_t>(first_gpu), static_cast<int32_t>(gpu_count)};
  }
};
static_assert(sizeof(ScheduledEvent) == 16);

class EventSchedule {
 public:
  // Repair durations a merge handles; more distinct ones take the queue.
  static constexpr int kMaxMergedDurations = 8;

  // REQUIRES: failures sorted by time. Events at or after `end` are left out.
  void build(const std::vector<FailureEvent>& failures, Time end);
  const std::vector<ScheduledEvent>& events() const { return events_; }
  // The GPUs of the failures in the schedule whose repair is not (never repaired, or at or after
  // the end): after a run through every event, the only GPUs down (JobState::clean_up).
  const std::vector<GpuRange>& unrepaired() const { return unrepaired_; }
  // How the last build ran: true = the merge of per-duration streams, false = the queue.
  bool merged() const { return merged_; }

 private:
  // The queue's build, for any repair durations.
  void build_with_queue(const std::vector<FailureEvent>& failures, Time end);
  // The merge; false (nothing built) when the repairs take over kMaxMergedDurations durations.
  bool build_merged(const std::vector<FailureEvent>& failures, Time end);

  EventQueue queue_;
  std::vector<ScheduledEvent> events_;
  std::vector<GpuRange> unrepaired_;
  // A repair in the merge: its time and its failure. kEnd ends a stream: it sorts after every
  // repair (whose time is before the schedule's end, so below INT64_MAX).
  struct PendingRepair {
    int64_t us;
    int32_t failure;
  };
  static constexpr PendingRepair kEnd{INT64_MAX, INT32_MAX};
  // Repair streams `a` and `b` (each in (time, failure) order, ending in kEnd) merged into
  // `out`, which ends in kEnd too.
  static void merge_repairs(const std::vector<PendingRepair>& a,
                            const std::vector<PendingRepair>& b, std::vector<PendingRepair>& out);
  // Per distinct repair duration: the failures whose repair it is, in index order, with the
  // repair's time.
  std::vector<std::vector<PendingRepair>> streams_;
  std::vector<PendingRepair> repairs_, merge_scratch_;  // the repairs of every duration, merged
  bool merged_ = false;
};

}  // namespace ntpsim::sim
