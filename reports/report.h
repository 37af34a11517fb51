// The public face of reports/: turn a results document (docs/results-schema.md) into files.
//
//   write_html      one self-contained HTML page: inline CSS and SVG, no scripts, fonts or
//                   links to fetch; prints on A4/Letter.
//   write_markdown  the same tables as Markdown, each chart as an SVG file beside it, named
//                   "<stem>-<chart id>.svg" and linked relatively.
//   write_csv       one row per strategy × replication, then mean/ci95_lo/ci95_hi rows, with a
//                   "# key: value" context block (the format the README documents).
//   write_timeline  Chrome trace-event JSON of the timeline replication, for ui.perfetto.dev.
//
// Every writer is atomic: it writes "<path>.tmp-<pid>" and renames it over `path`, and on any
// error removes what it wrote, so a reader never sees a half-written file. Errors are Status
// values: bad input (2) for a document without the needed data, runtime (1) for I/O.
// Thread safety: the functions share no state; concurrent calls must use different paths.
#pragma once

#include <string>

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
// REQUIRES: r.timeline has a value.
std::string render_timeline(const Results& r);

Status write_html(const Results& r, const std::string& path);
Status write_markdown(const Results& r, const std::string& path);
Status write_csv(const Results& r, const std::string& path);
Status write_timeline(const Results& r, const std::string& path);  // bad input without timeline

// Writes `text` to `path` atomically (see above).
Status write_file_atomic(const std::string& path, const std::string& text);

}  // namespace ntpsim::reports
