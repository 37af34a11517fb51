// Rates by kind fitted from a fault log against Llama 3's published interruption table
// (docs/VALIDATION.md, "Rates by kind: the InfiniteHBD log against Llama 3's Table 5"), shared by
// `ntpsim validate` and tests/validation so their verdicts agree.
//
// The table (arXiv 2407.21783, §3.3.4, Table 5) is read from its transcription in
// ../shared/data/traces/llama3-405b-table5/interruptions.csv. Each of its 18 causes is mapped to
// one of the InfiniteHBD log's fault kinds (and, for hardware, to a component the log's classes
// also name) by the fixed tables in llama3_rates.cpp; a cause or class that no table names is an
// error, so the mapping is always complete and stated.
//
// Statistics: rates are events per unit-time of exposure with exact (chi-squared) Poisson 95%
// intervals (sim::poisson_rate); the log's rate times the Llama 3 cluster's exposure is the
// predicted count. Whether the two rates agree is judged by the exact conditional test of two
// Poisson rates: given n_table + n_log events, n_table is binomial with p = E_table / (E_table +
// E_log) when the rates are equal; the Clopper-Pearson 95% interval of p (Boost.Math) gives the
// interval of the rate ratio, and the rates agree when it contains 1.
// Thread safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/base/status.h"
#include "tools/validate/interruption_table.h"

namespace ntpsim::validate {

// The transcribed table, relative to the source tree.
inline constexpr const char* kLlama3Table =
    "../shared/data/traces/llama3-405b-table5/interruptions.csv";

// Two Poisson counts with their exposures (in the same unit-seconds) compared.
struct RateComparison {
  std::string group;         // "Hardware Failure", "hardware: GPU", ...
  std::string per;           // "node" or "GPU": the unit the rates are per
  std::string log_causes;    // the log's classes in the group
  std::string table_causes;  // the table's causes in the group
  int64_t log_events = 0;
  double log_exposure_s = 0;
  int64_t table_events = 0;
  double table_exposure_s = 0;
  double predicted = 0, predicted_lo = 0, predicted_hi = 0;  // log rate (95% CI) x table exposure
  double table_lo = 0, table_hi = 0;                         // exact 95% interval of the count
  double ratio = 0, ratio_lo = 0, ratio_hi = 0;  // table rate / log rate, exact 95% interval
  bool agrees = false;                           // ratio_lo <= 1 <= ratio_hi
};

// The exact conditional comparison of `a` events in exposure `ea` against `b` events in `eb`
// (rates a/ea over b/eb). REQUIRES: ea, eb > 0 and a + b > 0.
void compare_rates(int64_t a, double ea, int64_t b, double eb, RateComparison& out);

// The Llama 3 cluster the table was observed on (arXiv 2407.21783 §3.3.4 and Table 5: 16,384
// H100 on 2,048 hosts of 8, a 54-day snapshot).
inline constexpr int64_t kLlama3Hosts = 2048;
inline constexpr int64_t kLlama3GpusPerHost = 8;
inline constexpr double kLlama3Days = 54.0;

// The shipped Llama 3 failure profile, relative to the source tree, and the replications its
// check runs (shared by the document and tests/validation).
inline constexpr const char* kLlama3Profile = "scenarios/failures/llama3.yaml";
inline constexpr int kLlama3ProfileReps = 100;

struct Llama3RateStudy {
  std::string log_file;
  int64_t log_nodes = 0, log_gpus_per_node = 0;
  double log_span_s = 0;
  int64_t table_total = 0;
  std::vector<RateComparison> rows;  // by kind, all kinds, then hardware by component
};

// Fits the trace of `trace_scenario` (its rates only: sim::fit_trace with the scenario's node
// count; the laws do not enter) and compares its rates by kind and hardware component with the
// table at `table_csv`, scaled to the Llama 3 cluster. Errors: the scenario's or the table's,
// a table cause or log class the mapping does not name (file:line for the table), a mapped kind
// the log lacks.
Result<Llama3RateStudy> llama3_rate_study(const std::string& trace_scenario,
                                          const std::string& table_csv);

// The failure events by kind of a failure profile run by the failure source on a scenario:
// `base_scenario` with `profile` included over it (its failures replace the scenario's), over
// `horizon_days`, replications [0, reps). Means and the published counts' comparison are left to
// the caller.
struct ProfileCounts {
  std::vector<std::string> kinds;
  std::vector<double> mean;  // failure events per replication, by kind
  int reps = 0;
  uint64_t seed = 0;
};
Result<ProfileCounts> profile_event_counts(const std::string& base_scenario,
                                           const std::string& profile, double horizon_days,
                                           int reps);

}  // namespace ntpsim::validate
