// `ntpsim report RESULTS.json -o report.html [--format html|md|csv] [--timeline trace.json]`:
// turns a results document written by `ntpsim run`/`sweep`, or a plan document written by
// `ntpsim plan --out`, or a sensitivity document written by `ntpsim sensitivity --out`, into a
// report (reports/report.h). The document's numbers are checked for range before anything is
// written (file and field named on error).
#include <fmt/format.h>

#include <cstdio>
#include <map>

#include "reports/report.h"
#include "tools/ntpsim/command.h"
#include "tools/ntpsim/outputs.h"

namespace ntpsim::cli {
namespace {

class ReportCommand final : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    CLI::App* sub = app.add_subcommand(
        "report", "Write an HTML or Markdown report (and a Perfetto timeline) from results JSON");
    sub->add_option("results", results_,
                    "Results JSON written by `ntpsim run` or `sweep`, or the plan or sensitivity "
                    "JSON that `ntpsim plan` or `sensitivity` writes (reports .html or .md)")
        ->required();
    sub->add_option("-o,--output", output_,
                    "Report file; .md gives Markdown (charts as SVG files beside it), .csv the "
                    "CSV export, anything else one self-contained HTML file")
        ->check(output_path());
    sub->add_option("--format", format_, "html | md | csv (default: from the output's extension)")
        ->check(CLI::IsMember({"html", "md", "csv"}));
    sub->add_option("--timeline", timeline_,
                    "Also write the Chrome trace-event JSON of replication 0 (ui.perfetto.dev)")
        ->check(output_path());
    return sub;
  }

  int run() override {
    if (output_.empty() && timeline_.empty())
      return report_error(Error::bad_input("report: give -o REPORT and/or --timeline TRACE.json"));
    // Report, its charts and the timeline: all or none, and none may be the results read.
    OutputSet outputs;
    outputs.add_input(results_, "results file");
    for (const auto& [path, what] :
         {std::pair{output_, "-o"}, std::pair{timeline_, "--timeline"}}) {
      const auto st = declare_if_given(outputs, path, what);
      if (!st.ok()) return report_error(st.error());
    }
    static const std::map<std::string, reports::Format> kFormats = {
        {"html", reports::Format::kHtml},
        {"md", reports::Format::kMarkdown},
        {"csv", reports::Format::kCsv}};
    const reports::Format format =
        format_.empty() ? reports::format_for_path(output_) : kFormats.at(format_);
    auto doc = reports::load_document(results_);
    if (!doc.ok()) return report_error(doc.error());
    Result<reports::OutputFiles> files = reports::OutputFiles{};
    if (reports::is_plan_document(*doc)) {
      if (!timeline_.empty())
        return report_error(Error::bad_input(
            fmt::format("{}: a plan has no timeline (a plan runs many scenarios)", results_)));
      files = reports::plan_report_files(*doc, results_, output_, format);
    } else if (reports::is_sensitivity_document(*doc)) {
      if (!timeline_.empty())
        return report_error(
            Error::bad_input(fmt::format("{}: a sensitivity analysis has no timeline", results_)));
      files = reports::sensitivity_report_files(*doc, results_, output_, format);
    } else {
      auto results = reports::read_results(*doc, results_);
      if (!results.ok()) return report_error(results.error());
      files = reports::report_files(*results, format, output_, timeline_);
    }
    if (!files.ok()) return report_error(files.error());
    Status st;
    for (const auto& [path, text] : *files) {
      if (st.ok()) st = outputs.stage(path, text);
    }
    if (st.ok()) st = outputs.commit();
    if (!st.ok()) return report_error(st.error());
    if (!output_.empty()) fmt::print(stderr, "ntpsim: wrote {}\n", output_);
    if (!timeline_.empty()) {
      fmt::print(stderr, "ntpsim: wrote {} (open in ui.perfetto.dev)\n", timeline_);
    }
    return 0;
  }

 private:
  std::string results_;
  std::string output_;
  std::string format_;
  std::string timeline_;
};

NTPSIM_REGISTER_COMMAND("report", ReportCommand)

}  // namespace
}  // namespace ntpsim::cli
