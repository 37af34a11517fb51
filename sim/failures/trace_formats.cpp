// The trace-format table (trace_formats.h).
#include "sim/failures/trace_formats.h"

#include "sim/failures/trace.h"
#include "sim/scenario/vocabulary.h"

namespace ntpsim::sim {

const std::vector<TraceFormat>& trace_formats() {
  static const std::vector<TraceFormat> kFormats = {
      {"infinitehbd", {".json"}, &parse_infinitehbd_trace},
      {"csv", {".csv"}, &parse_csv_trace},
  };
  return kFormats;
}

const TraceFormat* find_trace_format(std::string_view name) {
  for (const TraceFormat& f : trace_formats()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const TraceFormat* trace_format_for_file(std::string_view file) {
  for (const TraceFormat& f : trace_formats()) {
    for (const std::string_view ext : f.extensions) {
      if (file.size() >= ext.size() && file.substr(file.size() - ext.size()) == ext) return &f;
    }
  }
  return nullptr;
}

std::vector<std::string> trace_format_names() {
  std::vector<std::string> names;
  for (const TraceFormat& f : trace_formats()) names.emplace_back(f.name);
  return names;
}

std::string trace_format_list() {
  const std::vector<std::string> names = trace_format_names();
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

namespace {
// The scenario reader's choice list for failures.trace.format (sim/scenario/vocabulary.h).
[[maybe_unused]] const bool kVocabularyProvided =
    provide_trace_vocabulary({.format_names = &trace_format_names});
}  // namespace

}  // namespace ntpsim::sim

// Named by a `--undefined` link option of ntpsim_sim_failures (CMakeLists.txt): a static link
// keeps this file, and with it the vocabulary above, in every binary that links the failures,
// including those that only read scenarios.
extern "C" void ntpsim_trace_vocabulary_anchor() {}
