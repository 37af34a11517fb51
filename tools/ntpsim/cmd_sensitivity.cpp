// `ntpsim sensitivity SCENARIO [--set k=v]... [--replications N] [--threads N] [--seed S]
//  [--samples N] [--no-indices] [--bisection-steps N] [--max-evaluations N]
//  [--out sensitivity.json] [--csv tornado.csv] [--report sensitivity.html|.md] [-q]`: which
// uncertain input decides which strategy wins (sim/sensitivity/sensitivity.h,
// docs/sensitivity.md). Prints the summary verdict first; writes the JSON (kind "sensitivity"),
// the tornado CSV and the report page (reports/sensitivity_section.cpp), all or none; progress on
// a terminal's stderr (progress_display.h); "ntpsim: wrote FILE" lines unless -q. Under mpirun
// each evaluation's replications are split across the ranks and rank 0 alone prints and writes.
// Ctrl-C stops after the running replications and writes nothing.
#include <fmt/format.h>

#include <cstdio>
#include <limits>
#include <optional>
#include <utility>

#include "reports/report.h"
#include "sim/scenario/loader.h"
#include "sim/sensitivity/sensitivity.h"
#include "tools/ntpsim/command.h"
#include "tools/ntpsim/interrupt.h"
#include "tools/ntpsim/mpi_world.h"
#include "tools/ntpsim/outputs.h"
#include "tools/ntpsim/progress_display.h"

namespace ntpsim::cli {
namespace {

class SensitivityCommand final : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    CLI::App* sub = app.add_subcommand(
        "sensitivity",
        "Which uncertain input decides the winner: one-at-a-time tornado, break-even values, "
        "win probabilities and first-order and total Sobol' indices over Latin hypercubes");
    sub->add_option("scenario", file_, "Scenario YAML file (its `uncertain:` section, if any)")
        ->required();
    sub->add_option("--set", overrides_, "Override a scenario field (every evaluation)");
    sub->add_option("--replications", replications_, "Replications per evaluation")
        ->check(CLI::Range(1, 1000000));
    sub->add_option("--threads", threads_, "Worker threads (default: all cores)")
        ->check(CLI::Range(1, 4096));
    sub->add_option("--seed", seed_, "Scenario seed (overrides the scenario)")
        ->transform(unsigned_decimal(std::numeric_limits<int64_t>::max()));
    sub->add_option("--samples", options_.samples,
                    "Rows N of each of the two Latin hypercubes of the global analysis (0 = none; "
                    "default 64): N (k + 2) evaluations for k inputs, 2N with --no-indices")
        ->check(CLI::Range(0, 100000));
    sub->add_flag("--no-indices", no_indices_,
                  "Win probabilities only: skip the N k evaluations of the Sobol' indices");
    sub->add_option("--bisection-steps", options_.bisection_steps,
                    "Bisections per break-even (default 10)")
        ->check(CLI::Range(1, 60));
    sub->add_option("--max-evaluations", options_.max_evaluations,
                    "Refuse a plan of more scenario evaluations than this (default 2000)")
        ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
    sub->add_option("--out", out_, "Write the sensitivity JSON here")->check(output_path());
    sub->add_option("--csv", csv_, "Write the tornado CSV here")->check(output_path());
    sub->add_option("--report", report_,
                    "Write the report here: HTML (tornado, win probabilities, break-even lines, "
                    "indices), or Markdown for a .md path")
        ->check(output_path());
    sub->add_flag("-q,--quiet", quiet_, "Print no summary");
    return sub;
  }

  int run() override {
    std::vector<std::string> overrides = overrides_;
    if (seed_) overrides.push_back(fmt::format("seed={}", *seed_));
    options_.replications = replications_;
    options_.threads = threads_;
    options_.indices = !no_indices_;
    // Under mpirun / srun: each evaluation's replications split across ranks, rank 0 alone
    // prints and writes.
    const auto world = MpiWorld::join();
    if (world) options_.distribution = world->distribution();
    install_interrupt_handlers();  // Ctrl-C: stop after the running replications, write nothing
    options_.cancel = interrupt_flag();
    // Every output or none, checked before the analysis: none may be the scenario or another
    // output.
    auto base = sim::load_scenario(file_, overrides);
    if (!base.ok()) return report_error(base.error());
    OutputSet outputs;
    add_scenario_inputs(outputs, *base);
    if (!report_.empty() && reports::format_for_path(report_) == reports::Format::kCsv) {
      return report_error(Error::bad_input(
          fmt::format("--report {}: a sensitivity report is .html or .md (--csv writes the "
                      "tornado CSV)",
                      report_)));
    }
    for (const auto& [path, what] :
         {std::pair{out_, "--out"}, std::pair{csv_, "--csv"}, std::pair{report_, "--report"}}) {
      const auto st = declare_if_given(outputs, path, what);
      if (!st.ok()) return report_error(st.error());
    }
    // Progress on a terminal only (progress_display.h): evaluations, the planned count a bound.
    ProgressDisplay progress("sensitivity", "evaluations", progress_wanted(quiet_, is_root(world)));
    if (progress.enabled()) {
      options_.progress = [&progress](int done, int planned) {
        progress.set_total(planned, /*is_bound=*/true);
        progress.set_done(done);
      };
    }
    auto result = sim::run_sensitivity(file_, overrides, options_);
    progress.finish();
    if (!result.ok()) {
      if (interrupt_flag()->load()) {
        return report_error(Error::runtime(result.error().message + "; no output file written"));
      }
      return report_error(result.error());
    }
    if (!is_root(world)) return 0;
    if (!out_.empty()) {
      const auto st = outputs.stage(out_, sim::sensitivity_json(*result).dump(1) + "\n");
      if (!st.ok()) return report_error(st.error());
    }
    if (!csv_.empty()) {
      const auto st = outputs.stage(csv_, sim::sensitivity_csv(*result));
      if (!st.ok()) return report_error(st.error());
    }
    if (!report_.empty()) {
      const auto doc = nlohmann::json::parse(sim::sensitivity_json(*result).dump());
      const auto st = stage_report(outputs, doc, "sensitivity results", report_, "");
      if (!st.ok()) return report_error(st.error());
    }
    if (const auto st = outputs.commit(); !st.ok()) return report_error(st.error());
    if (!quiet_) std::fputs(sim::sensitivity_summary(*result).c_str(), stdout);
    print_written({out_, csv_, report_}, quiet_);
    return 0;
  }

 private:
  std::string file_;
  std::vector<std::string> overrides_;
  int replications_ = 0;
  int threads_ = 0;
  std::optional<uint64_t> seed_;
  sim::SensitivityOptions options_;
  std::string out_;
  std::string csv_;
  std::string report_;
  bool quiet_ = false;
  bool no_indices_ = false;
};

NTPSIM_REGISTER_COMMAND("sensitivity", SensitivityCommand)

}  // namespace
}  // namespace ntpsim::cli
