// Atomic file writing for every report output, and the path -> format rule.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "models/base/atomic_file.h"
#include "reports/content.h"
#include "reports/report.h"

namespace ntpsim::reports {

Format format_for_path(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".md" || ext == ".markdown") return Format::kMarkdown;
  if (ext == ".csv") return Format::kCsv;
  return Format::kHtml;
}

Status write_report_files(const nlohmann::json& results_doc, const std::string& source,
                          const std::string& report_path, const std::string& timeline_path) {
  if (report_path.empty() && timeline_path.empty()) return Status::Ok();
  if (is_plan_document(results_doc)) {
    if (!timeline_path.empty())
      return Error::bad_input(source + ": a plan has no timeline (a plan runs many scenarios)");
    if (report_path.empty()) return Status::Ok();
    Status st = write_plan_report(results_doc, source, report_path, format_for_path(report_path));
    // The document came from the planner, not the user: a mismatch is a bug, not bad input.
    if (!st.ok() && st.error().exit_code == ExitCode::kBadInput &&
        st.error().message.find("does not follow") != std::string::npos)
      return Error::runtime(st.error().message);
    return st;
  }
  auto results = read_results(results_doc, source);
  if (!results.ok()) {
    // The document came from the engine, not the user: a mismatch is a bug, not bad input.
    return Error::runtime("results document does not follow docs/results-schema.md: " +
                          results.error().message);
  }
  // The timeline (one file) first, so that a failed report can take it back: both or neither.
  if (!timeline_path.empty()) NTPSIM_RETURN_IF_ERROR(write_timeline(*results, timeline_path));
  if (!report_path.empty()) {
    Status st;
    switch (format_for_path(report_path)) {
      case Format::kMarkdown:
        st = write_markdown(*results, report_path);
        break;
      case Format::kCsv:
        st = write_csv(*results, report_path);
        break;
      case Format::kHtml:
        st = write_html(*results, report_path);
        break;
    }
    if (!st.ok()) {
      if (!timeline_path.empty()) std::remove(timeline_path.c_str());
      return st;
    }
  }
  return Status::Ok();
}

bool is_plan_document(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("kind") && doc.at("kind") == "plan";
}

Status write_plan_report(const nlohmann::json& plan_doc, const std::string& source,
                         const std::string& path, Format format) {
  if (format == Format::kCsv) {
    return Error::bad_input(fmt::format(
        "{}: a plan report is .html or .md; `ntpsim plan PLAN --csv FILE` writes the candidates' "
        "CSV",
        path));
  }
  Page page;
  try {
    page = plan_page(plan_doc);
  } catch (const nlohmann::json::exception& e) {
    return Error::bad_input(fmt::format(
        "{}: plan document does not follow docs/results-schema.md: {}", source, e.what()));
  }
  if (format == Format::kMarkdown) return write_page_markdown(page, path);
  return write_file_atomic(path, render_page_html(page));
}

Status write_report_files(const nlohmann::ordered_json& results_doc, const std::string& source,
                          const std::string& report_path, const std::string& timeline_path) {
  if (report_path.empty() && timeline_path.empty()) return Status::Ok();
  return write_report_files(nlohmann::json(results_doc), source, report_path, timeline_path);
}

Status write_file_atomic(const std::string& path, const std::string& text) {
  return ntpsim::write_file_atomic(path, std::string_view(text));  // models/base/atomic_file.h
}

}  // namespace ntpsim::reports
