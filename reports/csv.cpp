// The one CSV writer for results (`ntpsim run --csv` and `ntpsim report x.csv`), tidy so that a
// plain `pandas.read_csv(path)` gives numeric columns:
//   - no comment lines: the provenance travels as columns (scenario_hash, seed, profile_origin)
//     on every row, and the full context stays in the results JSON;
//   - `row` says what a row is: "replication" (one replication's values, `replication` = its
//     index) or "mean" / "ci95_lo" / "ci95_hi" (a summary over the replications, `replication`
//     empty), so the two never mix in one numeric column;
//   - sweep values are split into a number and a unit column ("5min" -> 5, "min"); a value that
//     does not start with a number is kept as written with an empty unit.
// Metric columns are the document's metric keys in its display order; their units are in the
// document's "metrics" list (docs/results-schema.md). NaN is an empty cell.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <set>

#include "models/base/atomic_file.h"
#include "reports/report.h"

namespace ntpsim::reports {
namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string csv_number(double v) {
  if (std::isnan(v)) return "";
  return fmt::format("{}", v);  // shortest text that reads back to the same double
}

// Metric columns: the listed metrics in order, then any other key found in the data, sorted.
std::vector<std::string> csv_columns(const Results& r) {
  std::vector<std::string> cols;
  std::set<std::string> seen;
  for (const auto& m : r.metrics) {
    if (seen.insert(m.key).second) cols.push_back(m.key);
  }
  std::set<std::string> extra;
  auto collect = [&](const StrategyResult& s) {
    for (const auto& [k, v] : s.summary)
      if (!seen.count(k)) extra.insert(k);
    for (const auto& rep : s.replications)
      for (const auto& [k, v] : rep)
        if (!seen.count(k)) extra.insert(k);
  };
  for (const auto& s : r.strategies) collect(s);
  if (r.sweep)
    for (const auto& p : r.sweep->points)
      for (const auto& s : p.strategies) collect(s);
  cols.insert(cols.end(), extra.begin(), extra.end());
  return cols;
}

void summary_rows(std::string& out, const std::string& prefix, const StrategyResult& s,
                  const std::vector<std::string>& cols) {
  const std::pair<const char*, double MetricSummary::*> rows[] = {
      {"mean", &MetricSummary::mean},
      {"ci95_lo", &MetricSummary::ci95_lo},
      {"ci95_hi", &MetricSummary::ci95_hi}};
  for (const auto& [name, field] : rows) {
    out += prefix + csv_field(s.name) + "," + name + ",";
    for (const auto& k : cols) {
      auto it = s.summary.find(k);
      out += ',';
      out += csv_number(it == s.summary.end() ? std::numeric_limits<double>::quiet_NaN()
                                              : it->second.*field);
    }
    out += "\n";
  }
}

}  // namespace

SweepValue split_sweep_value(const std::string& text) {
  SweepValue v;
  v.text = text;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  double number = 0.0;
  auto [ptr, ec] = std::from_chars(begin, end, number);
  if (ec != std::errc() || ptr == begin || !std::isfinite(number)) return v;
  v.numeric = true;
  v.value = number;
  v.unit.assign(ptr, end);
  return v;
}

std::string render_csv(const Results& r) {
  const Context& c = r.context;
  const std::string provenance =
      fmt::format("{},{},{},", csv_field(c.scenario_hash), c.seed, csv_field(c.profile_origin));
  const auto cols = csv_columns(r);
  std::string metric_header;
  for (const auto& k : cols) metric_header += "," + csv_field(k);
  std::string out = "scenario_hash,seed,profile_origin,";
  if (r.sweep) {
    // Each parameter is a value column and a unit column; a parameter with any value that is
    // not a number keeps its values as written in the value column.
    out += "point";
    for (const auto& p : r.sweep->parameters)
      out += "," + csv_field(p) + "," + csv_field(p + "_unit");
    out += ",strategy,row,replication" + metric_header + "\n";
    for (size_t i = 0; i < r.sweep->points.size(); ++i) {
      const SweepPoint& pt = r.sweep->points[i];
      std::string prefix = provenance + fmt::format("{}", i);
      for (const auto& p : r.sweep->parameters) {
        const SweepValue v = split_sweep_value(pt.values.at(p));
        prefix += v.numeric ? fmt::format(",{},{}", csv_number(v.value), csv_field(v.unit))
                            : fmt::format(",{},", csv_field(v.text));
      }
      for (const auto& s : pt.strategies) summary_rows(out, prefix + ",", s, cols);
    }
    return out;
  }
  out += "strategy,row,replication" + metric_header + "\n";
  for (const auto& s : r.strategies) {
    for (size_t i = 0; i < s.replications.size(); ++i) {
      out += provenance + csv_field(s.name) + fmt::format(",replication,{}", i);
      for (const auto& k : cols) {
        auto it = s.replications[i].find(k);
        out += ',';
        if (it != s.replications[i].end()) out += csv_number(it->second);
      }
      out += "\n";
    }
  }
  for (const auto& s : r.strategies) summary_rows(out, provenance, s, cols);
  return out;
}

Result<std::string> render_csv(const nlohmann::ordered_json& results_doc,
                               const std::string& source) {
  auto results = read_results(nlohmann::json(results_doc), source);
  if (!results.ok()) {
    // The document came from the engine, not the user: a mismatch is a bug, not bad input.
    return Error::runtime("results document does not follow docs/results-schema.md: " +
                          results.error().message);
  }
  return render_csv(*results);
}

Status write_csv(const Results& r, const std::string& path) {
  return write_file_atomic(path, render_csv(r));
}

}  // namespace ntpsim::reports
