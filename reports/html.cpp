// The self-contained HTML report: inline CSS, inline SVG, no scripts, no external resources.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

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

std::string render_html(const Results& r) {
  const Context& c = r.context;
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<meta name=\"generator\" content=\"ntpsim {} ({})\">\n", escape(c.version),
                     escape(c.git_sha));
  out += fmt::format("<title>ntpsim report: {}</title>\n", escape(c.scenario_name));
  out += fmt::format("<style>{}</style>\n</head>\n<body>\n<main>\n", kCss);
  out += fmt::format("<header>\n<h1>Goodput report: {}</h1>\n", escape(c.scenario_name));
  out += fmt::format(
      "<p class=\"sub\">{} of {} strateg{} · {} replications · seed {} · scenario {}</p>\n"
      "</header>\n",
      r.kind == "sweep" ? "Sweep" : "Run", r.strategies.size(),
      r.strategies.size() == 1 ? "y" : "ies", c.replications, c.seed, escape(c.scenario_hash));

  // The context in two side-by-side tables, so the charts start higher on a laptop screen.
  const auto rows = context_rows(r);
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

  const auto warnings = report_warnings(r);
  if (!warnings.empty()) {
    out += "<section id=\"warnings\" class=\"warnings\" role=\"note\">\n<h2>Warnings</h2>\n<ul>\n";
    for (const auto& w : warnings) out += fmt::format("<li>{}</li>\n", escape(w));
    out += "</ul>\n</section>\n";
  }

  for (const Chart& ch : build_charts(r)) {
    out += fmt::format("<figure id=\"fig-{}\" class=\"chart-figure\">\n<h2>{}</h2>\n", ch.id,
                       escape(ch.title));
    out += fmt::format("<p class=\"caption\">{}</p>\n", escape(ch.caption));
    out += ch.svg;
    out += html_table(ch.table, "data", "The numbers behind the chart");
    out += "</figure>\n";
  }

  out += fmt::format("<section id=\"metrics\">\n<h2>All metrics{}</h2>\n",
                     r.sweep ? " at the first sweep point" : "");
  out += html_table(metrics_table(r), "data", "");
  out += "</section>\n";

  if (!r.scenario.is_null()) {
    out +=
        "<section id=\"scenario\">\n<details>\n<summary>Resolved scenario (as `ntpsim check "
        "--json` prints it)</summary>\n<pre>";
    out += escape(r.scenario.dump(2));
    out += "</pre>\n</details>\n</section>\n";
  }
  out += fmt::format(
      "<footer>Generated by ntpsim {} (git {}, {} build) from an {} document. Colours: "
      "Okabe–Ito palette; every chart's numbers are in the table beneath it.</footer>\n",
      escape(c.version), escape(c.git_sha), escape(c.build_type), escape(r.schema));
  out += "</main>\n</body>\n</html>\n";
  return out;
}

Status write_html(const Results& r, const std::string& path) {
  return write_file_atomic(path, render_html(r));
}

}  // namespace ntpsim::reports
