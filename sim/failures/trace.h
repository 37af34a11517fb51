// Parsed failure traces: what load_trace (failure_source.h) produces and trace replay consumes.
//
// Two formats: the InfiniteHBD JSON as published (node-level fault_start/fault_end events, times in
// days, kind = fault_type.Level) and the ntpsim CSV trace format (docs/trace-format.md). Both parse
// into the same TraceData: faults sorted by start time, trace nodes numbered in order of first
// appearance, each fault with its repair (unavailability) duration.
//
// Ownership: TraceData is immutable after parsing and shared (shared_ptr<const>) by every
// replication. Thread safety: const access from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/base/status.h"
#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

// Traces larger than this are refused (bad input) before reading: the published InfiniteHBD trace
// is 0.34 MB, so 64 MiB is about 190x that; the JSON parser's in-memory tree of a trace at the
// limit stays in the hundreds of MB.
inline constexpr int64_t kMaxTraceBytes = int64_t{64} << 20;

struct TraceFault {
  double start_s = 0.0;    // seconds since the trace origin (unscaled)
  double repair_s = 0.0;   // unavailability: end - start, >= 0
  int32_t node = 0;        // trace node index, in order of first appearance
  uint16_t kind = 0;       // index into TraceData::kind_names
  bool has_component = false;  // CSV rows may name their own component class
  Component component = Component::kNode;
  uint16_t cause = 0;  // index into TraceData::cause_names (InfiniteHBD: fault_type.Class)
  int32_t source = 0;  // 1-based CSV line or InfiniteHBD entry of the fault's start
  bool open = false;   // no end in the trace: repair_s runs to the span (a lower bound)
};

struct TraceData {
  std::string file;                     // where it came from, for messages
  std::vector<TraceFault> faults;       // sorted by start_s (stable in file order)
  std::vector<std::string> node_names;  // trace node ids, index = TraceFault::node
  std::vector<std::string> kind_names;  // index = TraceFault::kind
  std::vector<std::string>
      cause_names;                      // index = TraceFault::cause; empty when the format has none
  bool numbered_entries = false;        // TraceFault::source is a JSON entry, not a line
  double span_s = 0.0;                  // trace length: loop period; >= every start and end
  int64_t open_faults = 0;              // faults without an end (repair runs to span_s)
  int64_t duplicates = 0;               // faults identical to an earlier one (load_trace counts)
  std::vector<std::string> warnings;    // load_trace's findings that are not errors
};

// Trace times beyond this are refused (bad input): the scenario's longest horizon
// (sim/scenario/sections.h kMaxHorizonS, 1000 years); no replay can reach them.
inline constexpr double kMaxTraceTimeS = 1000.0 * 365 * 86400;

// "file:line" or "file: entry N" for the fault's start, for messages about one fault.
std::string trace_location(const TraceData& trace, const TraceFault& f);

// Parsers behind load_trace; `file` is used in messages only. Exposed for tests and tools.
Result<TraceData> parse_infinitehbd_trace(std::string_view text, const std::string& file);
Result<TraceData> parse_csv_trace(std::string_view text, const std::string& file);

// The checks load_trace applies to every format after parsing: times past kMaxTraceTimeS are an
// error naming the fault's line or entry; exact duplicate faults are counted in `duplicates` with
// one warning (O(n log n): each run of equal starts is sorted by the other fields).
Status check_trace(TraceData& trace);

// The trace in the ntpsim CSV format (time unit s, the span as a directive, times printed so they
// parse back exactly; a component column only when some fault names its own class). Open faults
// are written with their end at the span, which parses back to the same repair. Errors (bad
// input) when a node or kind name is empty or holds a comma, a line break or surrounding spaces,
// which the format cannot carry.
Result<std::string> to_csv_trace(const TraceData& trace);

}  // namespace ntpsim::sim
