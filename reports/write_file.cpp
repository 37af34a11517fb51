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

Result<OutputFiles> render_report_files(const nlohmann::json& results_doc,
                                        const std::string& source, const std::string& report_path,
                                        const std::string& timeline_path) {
  if (report_path.empty() && timeline_path.empty()) return OutputFiles{};
  if (is_plan_document(results_doc)) {
    if (!timeline_path.empty())
      return Error::bad_input(source + ": a plan has no timeline (a plan runs many scenarios)");
    if (report_path.empty()) return OutputFiles{};
    auto files = plan_report_files(results_doc, source, report_path, format_for_path(report_path));
    // The document came from the planner, not the user: a mismatch is a bug, not bad input.
    if (!files.ok() && files.error().exit_code == ExitCode::kBadInput &&
        files.error().message.find("does not follow") != std::string::npos)
      return Error::runtime(files.error().message);
    return files;
  }
  if (is_sensitivity_document(results_doc)) {
    if (!timeline_path.empty())
      return Error::bad_input(source + ": a sensitivity analysis has no timeline");
    if (report_path.empty()) return OutputFiles{};
    auto files =
        sensitivity_report_files(results_doc, source, report_path, format_for_path(report_path));
    // The document came from `ntpsim sensitivity`, not the user: a mismatch is a bug.
    if (!files.ok() && files.error().exit_code == ExitCode::kBadInput &&
        files.error().message.find("does not follow") != std::string::npos)
      return Error::runtime(files.error().message);
    return files;
  }
  auto results = read_results(results_doc, source);
  if (!results.ok()) {
    // The document came from the engine, not the user: a mismatch is a bug, not bad input.
    return Error::runtime("results document does not follow docs/results-schema.md: " +
                          results.error().message);
  }
  return report_files(*results, format_for_path(report_path), report_path, timeline_path);
}

Status write_report_files(const nlohmann::json& results_doc, const std::string& source,
                          const std::string& report_path, const std::string& timeline_path) {
  auto files = render_report_files(results_doc, source, report_path, timeline_path);
  if (!files.ok()) return files.error();
  OutputSet outputs;  // report, charts and timeline: all or none
  for (const auto& [p, text] : *files) NTPSIM_RETURN_IF_ERROR(outputs.stage(p, text));
  return outputs.commit();
}

bool is_plan_document(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("kind") && doc.at("kind") == "plan";
}

Result<OutputFiles> plan_report_files(const nlohmann::json& plan_doc, const std::string& source,
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
  if (format == Format::kMarkdown) return page_markdown_files(page, path);
  return OutputFiles{{path, render_page_html(page)}};
}

Status write_plan_report(const nlohmann::json& plan_doc, const std::string& source,
                         const std::string& path, Format format) {
  auto files = plan_report_files(plan_doc, source, path, format);
  if (!files.ok()) return files.error();
  OutputSet outputs;  // the page and its charts, all or none
  for (const auto& [p, text] : *files) NTPSIM_RETURN_IF_ERROR(outputs.stage(p, text));
  return outputs.commit();
}

Status write_report_files(const nlohmann::ordered_json& results_doc, const std::string& source,
                          const std::string& report_path, const std::string& timeline_path) {
  if (report_path.empty() && timeline_path.empty()) return Status::Ok();
  return write_report_files(nlohmann::json(results_doc), source, report_path, timeline_path);
}

}  // namespace ntpsim::reports
