// Helpers shared by the trace parsers (internal to sim/failures; not a public header).
//
// Thread safety: plain functions; a TraceBuilder fills one TraceData on one thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "sim/failures/trace.h"

namespace ntpsim::sim {

struct LineColumn {
  int line = 1;    // 1-based
  int column = 1;  // 1-based, in bytes
};

// The line and column of byte `offset` in `text` (clamped to the text's end).
LineColumn line_column(std::string_view text, size_t offset);
// True when `text` holds only whitespace.
bool is_blank(std::string_view text);
// A short, exact-enough rendering of a number for messages ("3.8955", "1e+20").
std::string format_number(double v);

// Distinct fault kinds a trace may name (kinds are causes such as "Hardware Failure", not events).
inline constexpr int32_t kMaxTraceKinds = 4096;

// Numbers trace nodes and kinds in order of first appearance.
class TraceBuilder {
 public:
  explicit TraceBuilder(TraceData& out) : out_(&out) {}
  int32_t node(const std::string& name);
  bool has_node(const std::string& name) const { return nodes_.count(name) != 0; }
  // The kind's index, or -1 when the trace would exceed kMaxTraceKinds distinct kinds.
  int32_t kind(const std::string& name);

 private:
  TraceData* out_;
  std::unordered_map<std::string, int32_t> nodes_;
  std::unordered_map<std::string, uint16_t> kinds_;
};

}  // namespace ntpsim::sim
