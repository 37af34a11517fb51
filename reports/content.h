// What a report says, independent of its format: the context rows, the warnings, and each chart
// with the table of the numbers behind it. html.cpp and markdown.cpp only lay this out, so both
// formats always carry the same numbers.
//
// Chart ids are stable ("goodput", "badput", ...): they are the SVG element ids in HTML, the SVG
// file names beside a Markdown report, and what the headless-browser test looks for.
// Ownership: plain values. Thread safety: pure functions of a const Results.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "reports/results.h"

namespace ntpsim::reports {

struct Table {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;  // each as long as headers
  std::string note;                            // e.g. "first 200 of 1234 failures", or ""
};

// Whether every cell of column `col` reads as a number ("97.30", "-0.5 pts", "–"), so the
// renderers right-align it; text columns are left-aligned.
bool numeric_column(const Table& t, size_t col);

struct Chart {
  std::string id;       // stable id, [a-z-]+
  std::string title;    // heading
  std::string caption;  // how to read it, one or two sentences
  std::string svg;      // the <svg> document
  Table table;          // the numbers behind the chart
};

// (label, value) rows of the context block: version, git SHA, build, scenario and hash, seed,
// replications, hardware profile and whether it is spec-derived or measured, ...
std::vector<std::pair<std::string, std::string>> context_rows(const Results& r);

// The engine's warnings plus the report's own checks (few replications, wide goodput CI, debug
// or sanitizer build, modified source tree), without duplicates, in that order.
std::vector<std::string> report_warnings(const Results& r);

// Every metric (rows, display order) × strategy (columns): "mean [ci95_lo, ci95_hi]", fractions
// in percent. The summary table at the end of each report.
Table metrics_table(const Results& r);

// Every chart that the document has data for, in report order. A run: goodput, badput, paired
// differences, timeline of replication 0, distribution. A sweep: goodput against the varied
// parameter, then goodput and badput at the first sweep point (titled so).
std::vector<Chart> build_charts(const Results& r);

// The individual charts (each returns a chart with an empty svg when there is nothing to draw).
Chart goodput_chart(const Results& r);
Chart badput_chart(const Results& r);
Chart paired_chart(const Results& r);
Chart distribution_chart(const Results& r);
Chart timeline_chart(const Results& r);
Chart sweep_chart(const Results& r);

// Index of a strategy by name in r.strategies (its colour), or r.strategies.size() when absent.
size_t strategy_index(const Results& r, const std::string& name);

}  // namespace ntpsim::reports
