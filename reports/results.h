// The results document (docs/results-schema.md) as plain structs, and its reader.
//
// This is the whole contract between the engine and reports/: everything a report shows comes
// from a `Results` value read here, never from the engine's internals. The reader is tolerant of
// keys it does not know (the schema says new keys may be added) and strict about the ones it
// uses: a missing or mistyped field is a bad-input Error naming the file, and the field path
// ("strategies[1].summary.goodput.mean"); a JSON syntax error names file:line:col.
// Numbers that the writer could not represent (NaN, written by nlohmann as null) read as NaN.
//
// Ownership: plain values. Thread safety: immutable after reading; share const references freely.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/base/status.h"

namespace ntpsim::reports {

// Summary statistics of one metric over the replications; fields absent from the document are NaN.
struct MetricSummary {
  double mean = 0.0;
  double sd = 0.0;
  double ci95_lo = 0.0;  // Student-t 95% confidence interval on the mean
  double ci95_hi = 0.0;
  double p5 = 0.0;
  double p50 = 0.0;
  double p95 = 0.0;
  double min = 0.0;
  double max = 0.0;
  int64_t n = 0;  // replications behind the numbers
};

struct MetricColumn {
  std::string key;    // "goodput", "badput_checkpoint", ...
  std::string label;  // display name
  std::string unit;   // "fraction", "MWh", "days", "GPUs", "" ...
};

struct StrategyResult {
  std::string name;                     // registered strategy name
  std::string label;                    // display name
  double checkpoint_interval_s = 0.0;   // the interval it ran at; NaN when absent
  std::string resume;                   // its resume mechanism; "" when absent (older files)
  std::map<std::string, MetricSummary> summary;  // metric key -> statistics
  // One map per replication (index = replication): metric key -> value. Empty in sweep points.
  std::vector<std::map<std::string, double>> replications;
};

// A paired difference strategy - baseline of one metric over common replications.
struct PairedComparison {
  std::string strategy;  // the strategies' labels (unique), or their names in documents that
  std::string baseline;  // carry no labels
  std::string metric;
  double mean = 0.0;
  double ci95_lo = 0.0;
  double ci95_hi = 0.0;
  int64_t n = 0;
};

struct FailureSpan {
  double t_s = 0.0;    // when the failure happened
  double end_s = 0.0;  // when the failed part was back (repair done); >= t_s
  int64_t domain = 0;
  int64_t gpus = 0;       // GPUs taken out by this failure
  std::string kind;       // failure kind name ("hardware", "software", ...)
  std::string component;  // gpu | node | domain | pod
  bool interrupts = true;
};

// One piece of the job's piecewise-constant state.
struct JobSegment {
  double t_s = 0.0;
  double end_s = 0.0;
  std::string state;        // running | checkpointing | recovering | stalled | degraded
  double throughput = 0.0;  // relative to the ideal rate, 0..1 (boosting may exceed 1 slightly)
  int64_t usable_gpus = 0;
  int64_t failed_gpus = 0;
};

struct JobMark {
  double t_s = 0.0;
  std::string type;         // checkpoint | failure | repair | reconfigure | restart | rollback
  double duration_s = 0.0;  // checkpoints: the job's pause (0 when not given)
};

struct DomainChange {
  int64_t domain = 0;
  double t_s = 0.0;
  std::string state;  // healthy | degraded | boosted | failed | repaired | idle
  int64_t tp = 0;     // tensor-parallel degree after the change (0 when not given)
  double power_ratio = 1.0;
};

struct TimelineTrack {
  std::string strategy;  // strategy name (key in the document)
  std::vector<JobSegment> segments;
  std::vector<JobMark> marks;
  std::vector<DomainChange> domains;
  bool truncated = false;  // the engine stopped recording before the horizon (size cap)
  // Where the recording ends: the cap's time when truncated, else the last segment's end.
  // Nothing after it is known; reports show [recorded_until_s, horizon] as not recorded.
  double recorded_until_s = 0.0;
};

// Replication 0's trajectory, for the over-time chart and the Perfetto trace.
struct Timeline {
  int64_t replication = 0;
  double horizon_s = 0.0;
  int64_t domains = 0;
  int64_t gpus_per_domain = 0;
  std::vector<FailureSpan> failures;
  // In the order of Results::strategies (then any others by name).
  std::vector<TimelineTrack> strategies;
};

// The answer first (docs/results-schema.md, "verdict"): the strategy with the highest mean
// goodput, its paired margin over the runner-up and whether that margin's 95% CI contains 0.
struct Verdict {
  std::string metric;  // "goodput"
  std::string winner, winner_label;
  double winner_mean = 0.0, winner_ci95_lo = 0.0, winner_ci95_hi = 0.0;
  std::string runner_up, runner_up_label;  // empty with a single strategy
  double margin_mean = 0.0, margin_ci95_lo = 0.0, margin_ci95_hi = 0.0;
  int64_t margin_n = 0;
  bool tied = false;
  std::vector<std::string> tied_with;
  // Their labels (older results files: absent, then the names).
  std::vector<std::string> tied_with_labels;
  double tokens_per_s_per_gpu = 0.0;  // NaN when unknown
  double time_to_train_days = 0.0;    // NaN without a token budget
  std::string setting;
  std::optional<int64_t> point;               // sweeps: the index of the point
  std::map<std::string, std::string> values;  // sweeps: that point's values
};

struct SweepPoint {
  std::map<std::string, std::string> values;  // parameter path -> value as written ("1.97e-5/h")
  std::vector<StrategyResult> strategies;     // summaries only
  std::vector<PairedComparison> paired;       // every pair at this point (may be empty)
  std::optional<Verdict> verdict;
};

struct Sweep {
  std::vector<std::string> parameters;  // varied parameter paths, in order
  std::vector<SweepPoint> points;
};

struct Context {
  std::string tool;
  std::string version;
  std::string git_sha;
  std::string build_type;
  std::string scenario_name;
  std::string scenario_file;
  std::string scenario_hash;
  uint64_t seed = 0;
  int64_t replications = 0;
  std::string hardware_profile;
  std::string profile_origin;  // "synthetic" | "spec" | "measured" | "mixed"
  std::string step_model;
  std::string failures_during_pause;  // "restart" | "ignore"; empty when absent
  int64_t gpus = 0;
  double horizon_s = 0.0;
  double train_tokens = 0.0;
  int64_t job_gpus = 0;                // 0 when absent
  double checkpoint_interval_s = 0.0;  // shared by all strategies; NaN when absent or per strategy
  double ideal_tokens_per_s = 0.0;     // NaN when absent
};

struct Results {
  std::string schema;  // "ntpsim-results/1"
  std::string kind;    // "run" | "sweep"
  Context context;
  std::vector<std::string> warnings;       // as written by the engine
  nlohmann::json scenario;                 // the resolved scenario (null when absent)
  std::vector<MetricColumn> metrics;       // display order
  std::vector<StrategyResult> strategies;  // the first is the baseline
  std::vector<PairedComparison> paired;
  std::optional<Timeline> timeline;
  std::optional<Sweep> sweep;
  std::optional<Verdict> verdict;

  // The metric's display info; a made-up one (label = key) when the document does not list it.
  MetricColumn metric(std::string_view key) const;
};

// Reads a results document already parsed (what `ntpsim run` holds in memory before writing it).
Result<Results> read_results(const nlohmann::json& doc, const std::string& source);

// Reads a results document from JSON text. `source` names it in error messages (a file path).
Result<Results> parse_results(std::string_view json_text, const std::string& source);

// Reads a JSON document of any kind (results or plan) from a file: bad input naming the file when
// it cannot be read, file:line:col for a syntax error.
Result<nlohmann::json> load_document(const std::string& path);

// Reads a results document from a file (bad input when it cannot be read).
Result<Results> load_results(const std::string& path);

// The six badput parts, in stacking order; with goodput they sum to 1.
const std::vector<std::string>& badput_keys();

}  // namespace ntpsim::reports
