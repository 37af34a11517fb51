// The self-contained HTML report: inline CSS, inline SVG, no scripts, no external resources.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "models/base/atomic_file.h"
#include "reports/content.h"
#include "reports/report.h"
#include "reports/svg.h"

namespace ntpsim::reports {
namespace {

using svg::escape;

// Laptop-first layout that also prints: one column, max 1000 px, tables scroll sideways on
// narrow screens, figures do not break across pages.
constexpr const char* kCss = R"CSS(
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f6f7f9; color: #1d1f23;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1000px; margin: 0 auto; padding: 24px 28px 48px; background: #fff; }
h1 { font-size: 1.6rem; margin: 0 0 4px; }
h2 { font-size: 1.2rem; margin: 0 0 6px; }
.sub { color: #555; margin: 0 0 18px; }
section, figure { margin: 0 0 28px; }
figure { padding-top: 8px; border-top: 1px solid #e4e6ea; }
.caption { color: #444; margin: 0 0 10px; max-width: 75ch; }
svg.chart { display: block; max-width: 100%; height: auto; margin: 0 0 10px; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 10px; border-bottom: 1px solid #e4e6ea; text-align: right; white-space: nowrap; }
thead th { white-space: normal; vertical-align: bottom; min-width: 4.5em; }
caption { text-align: left; }
th.text, td.text { text-align: left; }
th:first-child, td:first-child { text-align: left; }
thead th { background: #f1f3f6; font-weight: 600; }
.context-grid { display: flex; flex-wrap: wrap; gap: 0 32px; }
.context-grid table { flex: 1 1 380px; }
table.context td:first-child { color: #555; padding-right: 18px; white-space: nowrap; }
table.context td { text-align: left; white-space: normal; }
.note { color: #555; font-size: 13px; margin: 4px 0 0; }
.verdict { background: #eef6ee; border-left: 6px solid #009E73; padding: 12px 18px; }
.verdict.tied { background: #f3f0fa; border-left-color: #CC79A7; }
.verdict .headline { font-size: 1.25rem; font-weight: 700; margin: 0 0 8px; }
.verdict table td { text-align: left; white-space: normal; }
.verdict table td:first-child { color: #444; padding-right: 18px; white-space: nowrap; }
.warnings { background: #fff6e0; border-left: 4px solid #E69F00; padding: 10px 16px; }
.warnings ul { margin: 4px 0 0; padding-left: 20px; }
details { border: 1px solid #e4e6ea; padding: 8px 12px; }
summary { cursor: pointer; font-weight: 600; }
pre { font-size: 12px; overflow-x: auto; max-height: 60vh; }
footer { color: #666; font-size: 12px; border-top: 1px solid #e4e6ea; padding-top: 10px; }
@media print {
  body { background: #fff; font-size: 11pt; }
  main { max-width: none; padding: 0; }
  figure, section, table { break-inside: avoid; page-break-inside: avoid; }
  pre { max-height: none; white-space: pre-wrap; }
  .table-wrap { overflow: visible; }
}
)CSS";

std::string html_table(const Table& t, const std::string& cls, const std::string& caption) {
  std::string out = fmt::format("<div class=\"table-wrap\"><table class=\"{}\">", cls);
  if (!caption.empty()) out += fmt::format("<caption class=\"note\">{}</caption>", escape(caption));
  std::vector<bool> text(t.headers.size());
  for (size_t i = 0; i < text.size(); ++i) text[i] = i > 0 && !numeric_column(t, i);
  out += "<thead><tr>";
  for (size_t i = 0; i < t.headers.size(); ++i) {
    out += fmt::format("<th scope=\"col\"{}>{}</th>", text[i] ? " class=\"text\"" : "",
                       escape(t.headers[i]));
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      out += i == 0
                 ? fmt::format("<th scope=\"row\">{}</th>", escape(row[i]))
                 : fmt::format("<td{}>{}</td>", i < text.size() && text[i] ? " class=\"text\"" : "",
                               escape(row[i]));
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div>\n";
  if (!t.note.empty()) out += fmt::format("<p class=\"note\">{}</p>\n", escape(t.note));
  return out;
}

}  // namespace

std::string render_page_html(const Page& page) {
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<meta name=\"generator\" content=\"{}\">\n", escape(page.generator));
  out += fmt::format("<title>ntpsim report: {}</title>\n", escape(page.title));
  out += fmt::format("<style>{}</style>\n</head>\n<body>\n<main>\n", kCss);
  out += fmt::format("<header>\n<h1>{}</h1>\n", escape(page.title));
  out += fmt::format("<p class=\"sub\">{}</p>\n</header>\n", escape(page.subtitle));

  // The answer first: the verdict box leads the page.
  const VerdictBox& box = page.verdict;
  if (!box.headline.empty()) {
    out += fmt::format(
        "<section id=\"verdict\" class=\"verdict{}\" role=\"status\">\n<h2>Verdict</h2>\n"
        "<p class=\"headline\">{}</p>\n<table><tbody>\n",
        box.tied ? " tied" : "", escape(box.headline));
    for (const auto& [label, value] : box.rows)
      out += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", escape(label), escape(value));
    out += "</tbody></table>\n</section>\n";
  }

  // The context in two side-by-side tables, so the charts start higher on a laptop screen.
  const auto& rows = page.context;
  const size_t half = (rows.size() + 1) / 2;
  out += "<section id=\"context\">\n<h2>Context</h2>\n<div class=\"context-grid\">\n";
  for (size_t part = 0; part < 2; ++part) {
    out += "<table class=\"context\"><tbody>\n";
    for (size_t i = part * half; i < std::min(rows.size(), (part + 1) * half); ++i) {
      out += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", escape(rows[i].first),
                         escape(rows[i].second));
    }
    out += "</tbody></table>\n";
  }
  out += "</div>\n</section>\n";

  if (!page.warnings.empty()) {
    out += "<section id=\"warnings\" class=\"warnings\" role=\"note\">\n<h2>Warnings</h2>\n<ul>\n";
    for (const auto& w : page.warnings) out += fmt::format("<li>{}</li>\n", escape(w));
    out += "</ul>\n</section>\n";
  }

  for (const Chart& ch : page.charts) {
    out += fmt::format("<figure id=\"fig-{}\" class=\"chart-figure\">\n<h2>{}</h2>\n", ch.id,
                       escape(ch.title));
    out += fmt::format("<p class=\"caption\">{}</p>\n", escape(ch.caption));
    out += ch.svg;
    out += html_table(ch.table, "data", "The numbers behind the chart");
    out += "</figure>\n";
  }
  for (const Section& sec : page.sections) {
    out += fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n", sec.id, escape(sec.title));
    out += html_table(sec.table, "data", "");
    out += "</section>\n";
  }
  if (!page.source_json.empty()) {
    out += fmt::format("<section id=\"{}\">\n<details>\n<summary>{}</summary>\n<pre>",
                       page.source_id, escape(page.source_summary));
    out += escape(page.source_json);
    out += "</pre>\n</details>\n</section>\n";
  }
  out += fmt::format("<footer>{}</footer>\n", escape(page.footer));
  out += "</main>\n</body>\n</html>\n";
  return out;
}

std::string render_html(const Results& r) {
  return render_page_html(results_page(r));
}

Status write_html(const Results& r, const std::string& path) {
  return write_file_atomic(path, render_html(r));
}

}  // namespace ntpsim::reports
