// The timeline replication as Chrome trace-event JSON (JSON Object Format), which
// ui.perfetto.dev and chrome://tracing open. Format as documented in the Trace Event Format
// (Google doc 1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU, mirrored in catapult's docs):
//   {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}
//   ph "X" complete slice (ts, dur), "i" instant (s: "t" thread, "p" process, "g" global),
//   ph "C" counter (per process; each args key is one series), ph "M" metadata
//   (process_name / thread_name with args.name, *_sort_index with args.sort_index);
//   ts and dur are microseconds.
// Layout: pid 1 "Cluster" holds the failures (instants) and the failed-GPU counter; pid 2+i
// is strategy i with a "job" track (one slice per job segment: running, checkpointing, ...),
// a "job events" track (instant marks), one track per domain that changed state, and counters
// for job throughput, usable GPUs and failed GPUs. Slices on one track never overlap (the format
// requires slices on a thread to nest), which contiguous segments guarantee.
// The document streams out event by event (a year of a 100K-GPU job is a few hundred thousand
// events); its bytes are those of nlohmann's compact dump of the same events.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "models/base/atomic_file.h"
#include "models/base/check.h"
#include "models/base/json_writer.h"
#include "reports/content.h"
#include "reports/report.h"

namespace ntpsim::reports {
namespace {

int64_t us(double seconds) {
  return std::llround(seconds * 1e6);
}

// The trace's events, each one object of the "traceEvents" array, keys in the order shown.
class TraceEvents {
 public:
  explicit TraceEvents(JsonWriter& w) : w_(w) {}

  // {"ph":"M","name":what,"pid":pid[,"tid":tid],"args":{arg_key:arg}}
  template <typename T>
  void meta(const char* what, int pid, int64_t tid, const char* arg_key, const T& arg) {
    w_.begin_object().field("ph", "M").field("name", what).field("pid", pid);
    if (tid >= 0) w_.field("tid", tid);
    w_.key("args").begin_object().field(arg_key, arg).end_object();
    w_.end_object();
  }

  // A complete slice, up to "args" (the caller writes the args object's fields, then
  // end_slice()).
  void begin_slice(std::string_view name, const char* cat, int pid, int64_t tid, double t0,
                   double t1) {
    const int64_t ts = us(t0);
    w_.begin_object().field("ph", "X").field("name", name).field("cat", cat).field("pid", pid);
    w_.field("tid", tid).field("ts", ts).field("dur", std::max<int64_t>(0, us(t1) - ts));
    w_.key("args").begin_object();
  }
  void end_slice() { w_.end_object().end_object(); }
  JsonWriter& args() { return w_; }

  // Perfetto names a counter track "<name> <series>" (one track per args key);
  // chrome://tracing shows the name with the series as its legend. Counters belong to the
  // process; the tid only has to resolve to it.
  void counter(const char* name, int pid, int64_t ts, const char* series, double value) {
    w_.begin_object().field("ph", "C").field("name", name).field("pid", pid).field("tid", 1);
    w_.field("ts", ts).key("args").begin_object().field(series, value).end_object();
    w_.end_object();
  }

  // A thread-scoped instant; the caller may add fields (then end_instant()).
  void begin_instant(std::string_view name, const char* cat, int pid, int64_t tid, int64_t ts) {
    w_.begin_object().field("ph", "i").field("name", name).field("cat", cat).field("pid", pid);
    w_.field("tid", tid).field("ts", ts).field("s", "t");
  }
  void end_instant() { w_.end_object(); }

 private:
  JsonWriter& w_;
};

std::string domain_slice_name(const DomainChange& d) {
  if (d.state == "degraded" && d.tp > 0) return fmt::format("degraded TP {}", d.tp);
  if (d.state == "boosted") {
    std::string s = d.tp > 0 ? fmt::format("boosted TP {}", d.tp) : "boosted";
    if (std::isfinite(d.power_ratio) && d.power_ratio != 1.0)
      s += fmt::format(" ×{:.2f} power", d.power_ratio);
    return s;
  }
  return d.state;
}

constexpr int64_t kJobTid = 1;
constexpr int64_t kMarkTid = 2;
constexpr int64_t kCheckpointTid = 3;
constexpr int64_t kDomainTidBase = 1000;

void add_strategy(TraceEvents& ev, const Results& r, const TimelineTrack& st, int pid,
                  double horizon) {
  const size_t idx = strategy_index(r, st.strategy);
  const std::string label = idx < r.strategies.size() ? r.strategies[idx].label : st.strategy;
  ev.meta("process_name", pid, -1, "name", "strategy " + label);
  ev.meta("process_sort_index", pid, -1, "sort_index", pid);
  ev.meta("thread_name", pid, kJobTid, "name", "job");
  ev.meta("thread_sort_index", pid, kJobTid, "sort_index", 0);
  ev.meta("thread_name", pid, kMarkTid, "name", "job events");
  ev.meta("thread_sort_index", pid, kMarkTid, "sort_index", 1);

  const JobSegment* prev = nullptr;
  for (const auto& g : st.segments) {
    if (g.end_s > g.t_s) {
      ev.begin_slice(g.state, "job", pid, kJobTid, g.t_s, g.end_s);
      ev.args()
          .field("throughput", g.throughput)
          .field("usable_gpus", g.usable_gpus)
          .field("failed_gpus", g.failed_gpus);
      ev.end_slice();
    }
    // Counters only where a value changes, plus the start.
    const int64_t ts = us(g.t_s);
    if (prev == nullptr || prev->throughput != g.throughput)
      ev.counter("job throughput", pid, ts, "(x ideal)", g.throughput);
    if (prev == nullptr || prev->usable_gpus != g.usable_gpus)
      ev.counter("usable", pid, ts, "GPUs", double(g.usable_gpus));
    if (prev == nullptr || prev->failed_gpus != g.failed_gpus)
      ev.counter("failed", pid, ts, "GPUs", double(g.failed_gpus));
    prev = &g;
  }
  // The recorded part ends at recorded_until_s; past it, one "not recorded" slice says so
  // instead of stretching the last state to the horizon.
  const double recorded_end = st.segments.empty() ? 0.0 : st.segments.back().end_s;
  if (st.truncated && horizon > recorded_end) {
    ev.begin_slice("not recorded", "job", pid, kJobTid, recorded_end, horizon);
    ev.args().field("reason", "timeline size cap: nothing recorded after this time");
    ev.end_slice();
  }
  const double domain_end = st.truncated ? std::min(horizon, recorded_end) : horizon;
  // Checkpoint pauses as slices on their own track (the marks carry their duration).
  bool checkpoint_track = false;
  for (const auto& m : st.marks) {
    if (m.type != "checkpoint" || !(m.duration_s > 0.0)) continue;
    if (!checkpoint_track) {
      ev.meta("thread_name", pid, kCheckpointTid, "name", "checkpoints");
      ev.meta("thread_sort_index", pid, kCheckpointTid, "sort_index", 2);
      checkpoint_track = true;
    }
    ev.begin_slice("checkpointing", "checkpoint", pid, kCheckpointTid, m.t_s, m.t_s + m.duration_s);
    ev.args().field("pause_s", m.duration_s);
    ev.end_slice();
  }
  for (const auto& m : st.marks) {
    ev.begin_instant(m.type, "mark", pid, kMarkTid, us(m.t_s));
    ev.end_instant();
  }
  // Per-domain state tracks: each change opens a slice that lasts to the next change.
  std::map<int64_t, std::vector<const DomainChange*>> by_domain;
  for (const auto& d : st.domains) by_domain[d.domain].push_back(&d);
  for (auto& [domain, changes] : by_domain) {
    std::stable_sort(changes.begin(), changes.end(),
                     [](const DomainChange* a, const DomainChange* b) { return a->t_s < b->t_s; });
    const int64_t tid = kDomainTidBase + domain;
    ev.meta("thread_name", pid, tid, "name", fmt::format("domain {}", domain));
    ev.meta("thread_sort_index", pid, tid, "sort_index", 10 + domain);
    for (size_t i = 0; i < changes.size(); ++i) {
      const DomainChange& d = *changes[i];
      const double end = i + 1 < changes.size() ? changes[i + 1]->t_s : domain_end;
      if (end <= d.t_s) continue;
      ev.begin_slice(domain_slice_name(d), "domain", pid, tid, d.t_s, end);
      ev.args().field("state", d.state).field("power_ratio", d.power_ratio);
      if (d.tp > 0) ev.args().field("tp", d.tp);
      ev.end_slice();
    }
  }
}

}  // namespace

std::string render_timeline(const Results& r) {
  NTPSIM_CHECK(r.timeline.has_value());
  const Timeline& tl = *r.timeline;
  double horizon = tl.horizon_s;
  for (const auto& st : tl.strategies) {
    if (!st.segments.empty()) horizon = std::max(horizon, st.segments.back().end_s);
  }
  std::string out;
  JsonWriter w(out);
  TraceEvents ev(w);
  w.begin_object().key("traceEvents").begin_array();
  constexpr int kClusterPid = 1;
  ev.meta("process_name", kClusterPid, -1, "name", "cluster");
  ev.meta("process_sort_index", kClusterPid, -1, "sort_index", 0);
  ev.meta("thread_name", kClusterPid, 1, "name", "failures");
  // Failed GPUs over time from the failure list: +gpus at the failure, -gpus at its repair.
  std::map<int64_t, double> delta;
  for (const auto& f : tl.failures) {
    delta[us(f.t_s)] += double(f.gpus);
    if (f.end_s < horizon) delta[us(f.end_s)] -= double(f.gpus);
    ev.begin_instant(fmt::format("{} failure", f.kind), "failure", kClusterPid, 1, us(f.t_s));
    w.key("args").begin_object();
    w.field("domain", f.domain).field("gpus", f.gpus).field("component", f.component);
    w.field("interrupts", f.interrupts).field("repaired_at_s", f.end_s);
    w.end_object();
    ev.end_instant();
  }
  double level = 0.0;
  ev.counter("failed", kClusterPid, 0, "GPUs", 0.0);
  for (const auto& [t, d] : delta) {
    level += d;
    ev.counter("failed", kClusterPid, t, "GPUs", std::max(0.0, level));
  }
  int pid = 2;
  for (const auto& st : tl.strategies) add_strategy(ev, r, st, pid++, horizon);
  w.end_array();

  const Context& c = r.context;
  w.field("displayTimeUnit", "ms").key("otherData").begin_object();
  w.field("tool", "ntpsim " + c.version).field("git_sha", c.git_sha);
  w.field("scenario", c.scenario_name).field("scenario_hash", c.scenario_hash);
  w.field("seed", c.seed).field("replication", tl.replication);
  w.end_object().end_object();
  NTPSIM_CHECK(w.complete());
  out += '\n';
  return out;
}

Status write_timeline(const Results& r, const std::string& path) {
  if (!r.timeline)
    return Error::bad_input(fmt::format(
        "{}: the results document has no \"timeline\" (write it with `ntpsim run`)", path));
  return write_file_atomic(path, render_timeline(r));
}

}  // namespace ntpsim::reports
