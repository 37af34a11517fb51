#include "tools/ntpsim/outputs.h"

#include "reports/report.h"

namespace ntpsim::cli {

CLI::Validator output_path() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? std::string("an output path must not be empty") : std::string();
      },
      "PATH");
}

void add_scenario_inputs(OutputSet& outputs, const sim::Scenario& s) {
  outputs.add_input(s.file, "scenario");
  if (s.failures.trace) outputs.add_input(s.failures.trace->file, "trace");
}

Status declare_if_given(OutputSet& outputs, const std::string& path, const char* what) {
  if (path.empty()) return Status::Ok();
  return outputs.declare(path, what);
}

Status stage_report(OutputSet& outputs, const nlohmann::json& doc, const std::string& source,
                    const std::string& report_path, const std::string& timeline_path) {
  auto files = reports::render_report_files(doc, source, report_path, timeline_path);
  if (!files.ok()) return files.error();
  for (const auto& [path, text] : *files) NTPSIM_RETURN_IF_ERROR(outputs.stage(path, text));
  return Status::Ok();
}

}  // namespace ntpsim::cli
