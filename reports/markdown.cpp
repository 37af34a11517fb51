// The Markdown report (charts as SVG files beside it).
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>

#include "models/base/atomic_file.h"
#include "reports/content.h"
#include "reports/report.h"
#include "reports/svg.h"

namespace ntpsim::reports {
namespace {

namespace fs = std::filesystem;

std::string md_cell(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|')
      out += "\\|";
    else if (ch == '\n')
      out += ' ';
    else
      out += ch;
  }
  return out;
}

std::string md_table(const Table& t) {
  std::string out = "|";
  for (const auto& h : t.headers) out += fmt::format(" {} |", md_cell(h));
  out += "\n|";
  for (size_t i = 0; i < t.headers.size(); ++i)
    out += i > 0 && numeric_column(t, i) ? " ---: |" : " :--- |";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& cell : row) out += fmt::format(" {} |", md_cell(cell));
    out += "\n";
  }
  if (!t.note.empty()) out += fmt::format("\n_{}_\n", md_cell(t.note));
  return out;
}

std::string svg_name(const std::string& stem, const std::string& id) {
  return fmt::format("{}-{}.svg", stem, id);
}

}  // namespace

std::string render_page_markdown(const Page& page, const std::string& svg_stem) {
  std::string out = fmt::format("# {}\n\n{}\n\n", page.title, page.subtitle);
  const VerdictBox& box = page.verdict;
  if (!box.headline.empty()) {
    out += fmt::format("## Verdict\n\n**{}**\n\n", md_cell(box.headline));
    Table verdict;
    verdict.headers = {"", ""};
    for (const auto& [label, value] : box.rows) verdict.rows.push_back({label, value});
    out += md_table(verdict) + "\n";
  }
  out += "## Context\n\n";
  Table context;
  context.headers = {"Field", "Value"};
  for (const auto& [label, value] : page.context) context.rows.push_back({label, value});
  out += md_table(context) + "\n";
  if (!page.warnings.empty()) {
    out += "## Warnings\n\n";
    for (const auto& w : page.warnings) out += fmt::format("- {}\n", w);
    out += "\n";
  }
  for (const Chart& ch : page.charts) {
    out += fmt::format("## {}\n\n{}\n\n", ch.title, ch.caption);
    out += fmt::format("![{}]({})\n\n", ch.title, svg_name(svg_stem, ch.id));
    out += md_table(ch.table) + "\n";
  }
  for (const Section& sec : page.sections) {
    out += fmt::format("## {}\n\n", sec.title);
    out += md_table(sec.table) + "\n";
  }
  if (!page.source_json.empty()) {
    out += fmt::format("<details><summary>{}</summary>\n\n```json\n", page.source_summary);
    out += page.source_json;
    out += "\n```\n\n</details>\n\n";
  }
  out += fmt::format("_{}_\n", page.footer);
  return out;
}

std::string render_markdown(const Results& r, const std::string& svg_stem) {
  return render_page_markdown(results_page(r), svg_stem);
}

OutputFiles page_markdown_files(const Page& page, const std::string& path) {
  const fs::path p(path);
  const std::string stem = p.stem().string();
  OutputFiles files;
  for (const Chart& ch : page.charts) {
    files.emplace_back((p.parent_path() / svg_name(stem, ch.id)).string(), ch.svg);
  }
  files.emplace_back(path, render_page_markdown(page, stem));
  return files;
}

Status write_page_markdown(const Page& page, const std::string& path) {
  OutputSet outputs;  // the page and its charts, all or none
  for (const auto& [p, text] : page_markdown_files(page, path)) {
    NTPSIM_RETURN_IF_ERROR(outputs.stage(p, text));
  }
  return outputs.commit();
}

Result<OutputFiles> report_files(const Results& r, Format format, const std::string& report_path,
                                 const std::string& timeline_path) {
  OutputFiles files;
  if (!timeline_path.empty()) {
    if (!r.timeline) {
      return Error::bad_input(
          fmt::format("{}: the results document has no \"timeline\" (write it with `ntpsim run`)",
                      timeline_path));
    }
    files.emplace_back(timeline_path, render_timeline(r));
  }
  if (report_path.empty()) return files;
  switch (format) {
    case Format::kMarkdown: {
      OutputFiles page = page_markdown_files(results_page(r), report_path);
      files.insert(files.end(), page.begin(), page.end());
      break;
    }
    case Format::kCsv:
      files.emplace_back(report_path, render_csv(r));
      break;
    case Format::kHtml:
      files.emplace_back(report_path, render_html(r));
      break;
  }
  return files;
}

Status write_markdown(const Results& r, const std::string& path) {
  auto files = report_files(r, Format::kMarkdown, path, "");
  if (!files.ok()) return files.error();
  OutputSet outputs;  // the page and its charts, all or none
  for (const auto& [p, text] : *files) NTPSIM_RETURN_IF_ERROR(outputs.stage(p, text));
  return outputs.commit();
}

}  // namespace ntpsim::reports
