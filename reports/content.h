// What a report says, independent of its format: the context rows, the warnings, and each chart
// with the table of the numbers behind it. html.cpp and markdown.cpp only lay this out, so both
// formats always carry the same numbers.
//
// Chart ids are stable ("goodput", "badput", ...): they are the SVG element ids in HTML, the SVG
// file names beside a Markdown report, and what the headless-browser test looks for.
// Ownership: plain values. Thread safety: pure functions of a const Results.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "models/base/status.h"
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

// The answer first: a headline ("ntp wins by +1.23 pts ..." or "Statistically tied: ...") and
// (label, value) rows (the winner's goodput, tokens/s/GPU, time to train, the setting that
// achieves it, the provenance of the step times). Empty headline when the document has no
// verdict (documents written before the verdict existed).
struct VerdictBox {
  std::string headline;
  bool tied = false;
  std::vector<std::pair<std::string, std::string>> rows;
};
VerdictBox verdict_box(const Results& r);

// A profile origin in words, e.g. "spec-derived (not measured)".
std::string origin_text(const std::string& origin);

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

// One page of the report family: a run, a sweep and a plan all render through this, so they
// share the layout, the verdict box first, the context block and the warnings.
struct Section {
  std::string id;     // [a-z-]+
  std::string title;  // heading
  Table table;
};
struct Page {
  std::string title;      // the <h1>
  std::string subtitle;   // one line under it
  std::string generator;  // "ntpsim 0.1.0 (abc123)"
  VerdictBox verdict;
  std::vector<std::pair<std::string, std::string>> context;
  std::vector<std::string> warnings;
  std::vector<Chart> charts;
  std::vector<Section> sections;  // tables after the charts
  std::string source_id;          // [a-z-]+ id of its section
  std::string source_summary;     // heading of the collapsed source document, or ""
  std::string source_json;        // that document, pretty-printed
  std::string footer;
};

// The page of a run or sweep results document.
Page results_page(const Results& r);
// The page of a plan document (kind "plan", docs/results-schema.md): verdict (the pick, its
// margin over the runner-up family with a CI and a tie flag), context, the cost breakdown, the
// per-family table, the frontier chart. Throws nlohmann::json::exception on a malformed document.
Page plan_page(const nlohmann::json& plan_doc);
// The page of a sensitivity document (kind "sensitivity", docs/sensitivity.md): verdict, context,
// notes, tornado, win probabilities, break-even lines, Sobol' indices, the inputs' sources.
// Throws nlohmann::json::exception on a malformed document.
Page sensitivity_page(const nlohmann::json& sensitivity_doc);

std::string render_page_html(const Page& page);
// Charts are linked as "<svg_stem>-<chart id>.svg".
std::string render_page_markdown(const Page& page, const std::string& svg_stem);
// The Markdown page at `path` and its charts' SVG files beside it, as (path, text) pairs.
std::vector<std::pair<std::string, std::string>> page_markdown_files(const Page& page,
                                                                     const std::string& path);
// Writes the Markdown page and its charts' SVG files beside it (all or none).
Status write_page_markdown(const Page& page, const std::string& path);

// The individual charts (each returns a chart with an empty svg when there is nothing to draw).
Chart goodput_chart(const Results& r);
Chart badput_chart(const Results& r);
Chart paired_chart(const Results& r);
Chart distribution_chart(const Results& r);
Chart timeline_chart(const Results& r);
Chart sweep_chart(const Results& r);
// A two-parameter sweep: one heatmap of mean goodput per strategy (ids "heatmap-<name>"), one
// colour scale for all, the strategy's best cell outlined and marked ★. Empty otherwise.
std::vector<Chart> sweep_heatmaps(const Results& r);
// A sweep's details: a copy of `r` whose strategies are each strategy's best point (highest
// mean goodput), labelled "label @ param = value", and whose pairs are those of the verdict's
// point. A run is returned unchanged.
Results best_point_results(const Results& r);
// Every pair of strategies, not only against the baseline: a table (no chart).
Table all_pairs_table(const Results& r);

// Index of a strategy by name in r.strategies (its colour), or r.strategies.size() when absent.
size_t strategy_index(const Results& r, const std::string& name);

}  // namespace ntpsim::reports
