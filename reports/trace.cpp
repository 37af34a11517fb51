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
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "models/base/atomic_file.h"
#include "models/base/check.h"
#include "reports/content.h"
#include "reports/report.h"

namespace ntpsim::reports {
namespace {

using ojson = nlohmann::ordered_json;

int64_t us(double seconds) {
  return std::llround(seconds * 1e6);
}

ojson meta(const char* what, int pid, int64_t tid, const ojson& args) {
  ojson e = {{"ph", "M"}, {"name", what}, {"pid", pid}};
  if (tid >= 0) e["tid"] = tid;
  e["args"] = args;
  return e;
}

ojson slice(const std::string& name, const char* cat, int pid, int64_t tid, double t0, double t1,
            ojson args) {
  const int64_t ts = us(t0);
  return {{"ph", "X"},
          {"name", name},
          {"cat", cat},
          {"pid", pid},
          {"tid", tid},
          {"ts", ts},
          {"dur", std::max<int64_t>(0, us(t1) - ts)},
          {"args", std::move(args)}};
}

// Perfetto names a counter track "<name> <series>" (one track per args key); chrome://tracing
// shows the name with the series as its legend. Counters belong to the process; the tid only
// has to resolve to it.
ojson counter(const std::string& name, int pid, int64_t ts, const char* series, double value) {
  return {{"ph", "C"}, {"name", name}, {"pid", pid},
          {"tid", 1},  {"ts", ts},     {"args", {{series, value}}}};
}

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

void add_strategy(ojson& events, const Results& r, const TimelineTrack& st, int pid,
                  double horizon) {
  const size_t idx = strategy_index(r, st.strategy);
  const std::string label = idx < r.strategies.size() ? r.strategies[idx].label : st.strategy;
  events.push_back(meta("process_name", pid, -1, {{"name", "strategy " + label}}));
  events.push_back(meta("process_sort_index", pid, -1, {{"sort_index", pid}}));
  events.push_back(meta("thread_name", pid, kJobTid, {{"name", "job"}}));
  events.push_back(meta("thread_sort_index", pid, kJobTid, {{"sort_index", 0}}));
  events.push_back(meta("thread_name", pid, kMarkTid, {{"name", "job events"}}));
  events.push_back(meta("thread_sort_index", pid, kMarkTid, {{"sort_index", 1}}));

  const JobSegment* prev = nullptr;
  for (const auto& g : st.segments) {
    if (g.end_s > g.t_s) {
      events.push_back(slice(g.state, "job", pid, kJobTid, g.t_s, g.end_s,
                             {{"throughput", g.throughput},
                              {"usable_gpus", g.usable_gpus},
                              {"failed_gpus", g.failed_gpus}}));
    }
    // Counters only where a value changes, plus the start.
    const int64_t ts = us(g.t_s);
    if (prev == nullptr || prev->throughput != g.throughput)
      events.push_back(counter("job throughput", pid, ts, "(x ideal)", g.throughput));
    if (prev == nullptr || prev->usable_gpus != g.usable_gpus)
      events.push_back(counter("usable", pid, ts, "GPUs", double(g.usable_gpus)));
    if (prev == nullptr || prev->failed_gpus != g.failed_gpus)
      events.push_back(counter("failed", pid, ts, "GPUs", double(g.failed_gpus)));
    prev = &g;
  }
  // The recorded part ends at recorded_until_s; past it, one "not recorded" slice says so
  // instead of stretching the last state to the horizon.
  const double recorded_end = st.segments.empty() ? 0.0 : st.segments.back().end_s;
  if (st.truncated && horizon > recorded_end) {
    events.push_back(slice("not recorded", "job", pid, kJobTid, recorded_end, horizon,
                           {{"reason", "timeline size cap: nothing recorded after this time"}}));
  }
  const double domain_end = st.truncated ? std::min(horizon, recorded_end) : horizon;
  // Checkpoint pauses as slices on their own track (the marks carry their duration).
  bool checkpoint_track = false;
  for (const auto& m : st.marks) {
    if (m.type != "checkpoint" || !(m.duration_s > 0.0)) continue;
    if (!checkpoint_track) {
      events.push_back(meta("thread_name", pid, kCheckpointTid, {{"name", "checkpoints"}}));
      events.push_back(meta("thread_sort_index", pid, kCheckpointTid, {{"sort_index", 2}}));
      checkpoint_track = true;
    }
    events.push_back(slice("checkpointing", "checkpoint", pid, kCheckpointTid, m.t_s,
                           m.t_s + m.duration_s, {{"pause_s", m.duration_s}}));
  }
  for (const auto& m : st.marks) {
    events.push_back({{"ph", "i"},
                      {"name", m.type},
                      {"cat", "mark"},
                      {"pid", pid},
                      {"tid", kMarkTid},
                      {"ts", us(m.t_s)},
                      {"s", "t"}});
  }
  // Per-domain state tracks: each change opens a slice that lasts to the next change.
  std::map<int64_t, std::vector<DomainChange>> by_domain;
  for (const auto& d : st.domains) by_domain[d.domain].push_back(d);
  for (auto& [domain, changes] : by_domain) {
    std::stable_sort(changes.begin(), changes.end(),
                     [](const DomainChange& a, const DomainChange& b) { return a.t_s < b.t_s; });
    const int64_t tid = kDomainTidBase + domain;
    events.push_back(meta("thread_name", pid, tid, {{"name", fmt::format("domain {}", domain)}}));
    events.push_back(meta("thread_sort_index", pid, tid, {{"sort_index", 10 + domain}}));
    for (size_t i = 0; i < changes.size(); ++i) {
      const DomainChange& d = changes[i];
      const double end = i + 1 < changes.size() ? changes[i + 1].t_s : domain_end;
      if (end <= d.t_s) continue;
      ojson args = {{"state", d.state}, {"power_ratio", d.power_ratio}};
      if (d.tp > 0) args["tp"] = d.tp;
      events.push_back(slice(domain_slice_name(d), "domain", pid, tid, d.t_s, end, args));
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
  ojson events = ojson::array();
  constexpr int kClusterPid = 1;
  events.push_back(meta("process_name", kClusterPid, -1, {{"name", "cluster"}}));
  events.push_back(meta("process_sort_index", kClusterPid, -1, {{"sort_index", 0}}));
  events.push_back(meta("thread_name", kClusterPid, 1, {{"name", "failures"}}));
  // Failed GPUs over time from the failure list: +gpus at the failure, -gpus at its repair.
  std::map<int64_t, double> delta;
  for (const auto& f : tl.failures) {
    delta[us(f.t_s)] += double(f.gpus);
    if (f.end_s < horizon) delta[us(f.end_s)] -= double(f.gpus);
    events.push_back({{"ph", "i"},
                      {"name", fmt::format("{} failure", f.kind)},
                      {"cat", "failure"},
                      {"pid", kClusterPid},
                      {"tid", 1},
                      {"ts", us(f.t_s)},
                      {"s", "t"},
                      {"args",
                       {{"domain", f.domain},
                        {"gpus", f.gpus},
                        {"component", f.component},
                        {"interrupts", f.interrupts},
                        {"repaired_at_s", f.end_s}}}});
  }
  double level = 0.0;
  events.push_back(counter("failed", kClusterPid, 0, "GPUs", 0.0));
  for (const auto& [t, d] : delta) {
    level += d;
    events.push_back(counter("failed", kClusterPid, t, "GPUs", std::max(0.0, level)));
  }
  int pid = 2;
  for (const auto& st : tl.strategies) add_strategy(events, r, st, pid++, horizon);

  const Context& c = r.context;
  ojson doc = {{"traceEvents", std::move(events)},
               {"displayTimeUnit", "ms"},
               {"otherData",
                {{"tool", "ntpsim " + c.version},
                 {"git_sha", c.git_sha},
                 {"scenario", c.scenario_name},
                 {"scenario_hash", c.scenario_hash},
                 {"seed", c.seed},
                 {"replication", tl.replication}}}};
  return doc.dump() + "\n";
}

Status write_timeline(const Results& r, const std::string& path) {
  if (!r.timeline)
    return Error::bad_input(fmt::format(
        "{}: the results document has no \"timeline\" (write it with `ntpsim run`)", path));
  return write_file_atomic(path, render_timeline(r));
}

}  // namespace ntpsim::reports
