// The commands' output files, all or none, through models/base/atomic_file.h's OutputSet:
// options naming an output refuse an empty path, a scenario's files count as inputs no output may
// replace, and a report (with its charts and timeline) is staged with the command's other files.
// Thread safety: none (main thread).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "models/base/atomic_file.h"
#include "models/base/status.h"
#include "sim/scenario/scenario.h"

namespace ntpsim::cli {

// The check for options that name an output file: an empty path is refused (instead of meaning
// "no output"), so `--out ""` is an error, not a silent skip.
CLI::Validator output_path();

// The scenario file and the trace it reads, as inputs of `outputs`.
void add_scenario_inputs(OutputSet& outputs, const sim::Scenario& s);

// Declares `path` as an output named `what` when it is not empty.
Status declare_if_given(OutputSet& outputs, const std::string& path, const char* what);

// Stages the report at `report_path` and the timeline at `timeline_path` (either may be empty)
// made from `doc` (reports/report.h's rules; `source` names it in errors).
Status stage_report(OutputSet& outputs, const nlohmann::json& doc, const std::string& source,
                    const std::string& report_path, const std::string& timeline_path);

}  // namespace ntpsim::cli
