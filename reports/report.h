// The public face of reports/: turn a results document (docs/results-schema.md) into files.
//
//   write_html      one self-contained HTML page: inline CSS and SVG, no scripts, fonts or
//                   links to fetch; prints on A4/Letter.
//   write_markdown  the same tables as Markdown, each chart as an SVG file beside it, named
//                   "<stem>-<chart id>.svg" and linked relatively.
//   write_csv       the one CSV of results (reports/csv.cpp): one row per strategy × replication
//                   and mean/ci95_lo/ci95_hi rows told apart by a `row` column, no comment
//                   lines, loadable with a plain pandas.read_csv (docs/results-schema.md).
//   write_timeline  Chrome trace-event JSON of the timeline replication, for ui.perfetto.dev.
//
// Every writer is atomic and all or none (models/base/atomic_file.h): a reader never sees a
// half-written file, and a failure leaves the files that were there before. Errors are Status
// values: bad input (2) for a document without the needed data or an unusable output path,
// runtime (1) for I/O.
// Thread safety: the functions share no state; concurrent calls must use different paths.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "models/base/status.h"
#include "reports/results.h"

namespace ntpsim::reports {

enum class Format { kHtml, kMarkdown, kCsv };

// The format a path's extension implies: .md -> Markdown, .csv -> CSV, anything else HTML.
Format format_for_path(const std::string& path);

// The documents as strings (the writers below save them; tests compare them to goldens).
std::string render_html(const Results& r);
std::string render_markdown(const Results& r, const std::string& svg_stem);
std::string render_csv(const Results& r);
// The same CSV from the document `ntpsim run` builds (`run --csv`), so both commands write one
// format; a document the reader refuses is an internal error (runtime, 1).
Result<std::string> render_csv(const nlohmann::ordered_json& results_doc,
                               const std::string& source);

// A sweep value split into its number and unit ("5min" -> 5, "min"; "1.97e-5/h" -> 1.97e-5,
// "/h"); `numeric` is false when the text does not start with a finite number ("auto").
struct SweepValue {
  std::string text;
  bool numeric = false;
  double value = 0.0;
  std::string unit;
};
SweepValue split_sweep_value(const std::string& text);
// REQUIRES: r.timeline has a value.
std::string render_timeline(const Results& r);

// The files a report in `format` at `report_path` and a timeline at `timeline_path` consist of, as
// (path, text) pairs: the timeline, the Markdown report's SVG charts, the report. An empty path
// asks for nothing. Bad input when a timeline is asked of results without one.
using OutputFiles = std::vector<std::pair<std::string, std::string>>;
Result<OutputFiles> report_files(const Results& r, Format format, const std::string& report_path,
                                 const std::string& timeline_path);

Status write_html(const Results& r, const std::string& path);
Status write_markdown(const Results& r, const std::string& path);
Status write_csv(const Results& r, const std::string& path);
Status write_timeline(const Results& r, const std::string& path);  // bad input without timeline

// For `ntpsim run/sweep --report PATH --timeline PATH`: reads the results document the command
// just built (`source` names it in errors) and writes the report (format from the extension;
// skipped when `report_path` is empty) and the timeline (skipped when empty). A bad document is
// an internal error of the writer, reported as runtime (1).
Status write_report_files(const nlohmann::json& results_doc, const std::string& source,
                          const std::string& report_path, const std::string& timeline_path);

// The same for the insertion-ordered document the engine builds.
Status write_report_files(const nlohmann::ordered_json& results_doc, const std::string& source,
                          const std::string& report_path, const std::string& timeline_path);

// The files write_report_files writes, for a caller that writes them with its other outputs.
Result<OutputFiles> render_report_files(const nlohmann::json& results_doc,
                                        const std::string& source, const std::string& report_path,
                                        const std::string& timeline_path);

// The plan page (kind "plan"; reports/planner_section.cpp), in the run report's style. Throws
// nlohmann::json::exception on a malformed document.
std::string render_plan_html(const nlohmann::json& plan_doc);

// Whether a parsed document is a plan document (kind "plan").
bool is_plan_document(const nlohmann::json& doc);

// The files of a plan report as HTML or Markdown (charts as SVG files beside it). A CSV is
// refused (bad input: `ntpsim plan --csv` writes the candidates' CSV); a malformed document is
// bad input naming `source` (for `ntpsim report`, the user's file).
Result<OutputFiles> plan_report_files(const nlohmann::json& plan_doc, const std::string& source,
                                      const std::string& path, Format format);

// Writes the files of plan_report_files, all or none.
Status write_plan_report(const nlohmann::json& plan_doc, const std::string& source,
                         const std::string& path, Format format);

// Whether a parsed document is a sensitivity document (kind "sensitivity",
// reports/sensitivity_section.cpp).
bool is_sensitivity_document(const nlohmann::json& doc);

// The files of a sensitivity report as HTML or Markdown (charts as SVG files beside it): the
// tornado, win probabilities, break-even lines and Sobol' indices in the run report's style. A
// CSV is refused (bad input: `ntpsim sensitivity --csv` writes the tornado CSV); a malformed
// document is bad input naming `source`.
Result<OutputFiles> sensitivity_report_files(const nlohmann::json& doc, const std::string& source,
                                             const std::string& path, Format format);

}  // namespace ntpsim::reports
