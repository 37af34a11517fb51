// The reader of Llama 3's transcribed interruption table (arXiv 2407.21783, Table 5, in
// ../shared/data/traces/llama3-405b-table5/interruptions.csv): one cause per row with its count.
// Used by the rates-by-kind study (llama3_rates.h); fuzzed by
// tests/fuzz/interruption_table_fuzz.cpp. Thread safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/base/status.h"

namespace ntpsim::validate {

struct InterruptionCause {
  std::string component;  // the table's "Component" column, e.g. "Faulty GPU"
  std::string category;   // e.g. "GPU", "Host", "Dependency"
  int64_t count = 0;
  int line = 0;  // 1-based line in the file
};

// The CSV: a header whose first three fields are component,category,count (further columns are
// ignored), then one row per cause; blank lines are skipped. Errors (bad input, "file:line: ..."):
// a missing or wrong header, a row with fewer than three fields, an empty component, a quoted
// field, a count that is not a non-negative integer, a component named twice, no rows.
Result<std::vector<InterruptionCause>> parse_interruption_table(std::string_view text,
                                                                const std::string& file);
Result<std::vector<InterruptionCause>> read_interruption_table(const std::string& path);

}  // namespace ntpsim::validate
