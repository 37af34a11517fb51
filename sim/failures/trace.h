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
};

struct TraceData {
  std::string file;                     // where it came from, for messages
  std::vector<TraceFault> faults;       // sorted by start_s (stable in file order)
  std::vector<std::string> node_names;  // trace node ids, index = TraceFault::node
  std::vector<std::string> kind_names;  // index = TraceFault::kind
  double span_s = 0.0;                  // trace length: loop period; >= every start and end
  int64_t open_faults = 0;              // faults without an end (repair runs to span_s)
};

// Parsers behind load_trace; `file` is used in messages only. Exposed for tests and tools.
Result<TraceData> parse_infinitehbd_trace(std::string_view text, const std::string& file);
Result<TraceData> parse_csv_trace(std::string_view text, const std::string& file);

// The trace in the ntpsim CSV format (time unit s, the span as a directive, times printed so they
// parse back exactly; a component column only when some fault names its own class). Open faults
// are written with their end at the span, which parses back to the same repair. Errors (bad
// input) when a node or kind name is empty or holds a comma, a line break or surrounding spaces,
// which the format cannot carry.
Result<std::string> to_csv_trace(const TraceData& trace);

}  // namespace ntpsim::sim
