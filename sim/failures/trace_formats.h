// The trace formats ntpsim reads, as one table {name, extensions, parser} (docs/trace-format.md).
//
// Every place that names or picks a trace format reads this table: the scenario reader's choice
// list for `failures.trace.format` (provided to it as a TraceVocabulary,
// sim/scenario/vocabulary.h), load_trace's parser choice and `ntpsim trace`'s guess from the file
// extension. Adding a format is one parser file, its line in sim/failures/CMakeLists.txt and its
// row in trace_formats.cpp.
//
// This header names TraceData only by declaration, so readers of format names (the scenario
// reader) do not pull in the trace types. Thread safety: the table is immutable.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/base/status.h"

namespace ntpsim::sim {

struct TraceData;

// Parses a whole trace file's text; `file` is used in messages only.
using TraceParser = Result<TraceData> (*)(std::string_view text, const std::string& file);

struct TraceFormat {
  std::string_view name;                     // the value of failures.trace.format
  std::vector<std::string_view> extensions;  // file name endings that imply it, with the dot
  TraceParser parse = nullptr;
};

// Every format, in the order they are listed to users.
const std::vector<TraceFormat>& trace_formats();
// The format called `name`, or nullptr.
const TraceFormat* find_trace_format(std::string_view name);
// The format whose extension ends `file`, or nullptr when none does.
const TraceFormat* trace_format_for_file(std::string_view file);
// The format names in table order, for choice lists.
std::vector<std::string> trace_format_names();
// "a, b or c": the names for messages.
std::string trace_format_list();

}  // namespace ntpsim::sim
