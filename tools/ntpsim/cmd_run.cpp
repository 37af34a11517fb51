// `ntpsim run SCENARIO [--set k=v]... [--replications N] [--threads N] [--seed S]
//  [--out results.json] [--csv results.csv] [-q]`: simulate every strategy of the scenario over
// its replications and print the per-strategy table; write results JSON / CSV atomically
// (nothing is written when the run fails). Progress goes to stderr when it is a terminal
// (progress_display.h); "ntpsim: wrote FILE" lines (stderr) name the files written, unless -q.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>

#include "models/layout_search.h"
#include "reports/report.h"
#include "sim/io/results_json.h"
#include "sim/io/results_table.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/scenario/loader.h"
#include "tools/ntpsim/command.h"
#include "tools/ntpsim/interrupt.h"
#include "tools/ntpsim/mpi_world.h"
#include "tools/ntpsim/outputs.h"
#include "tools/ntpsim/progress_display.h"

namespace ntpsim::cli {
namespace {

class RunCommand final : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    CLI::App* sub = app.add_subcommand(
        "run", "Simulate the scenario's strategies over many failure realizations");
    sub->add_option("scenario", file_, "Scenario YAML file")->required();
    sub->add_option("--set", overrides_, "Override a scenario field, e.g. --set layout.dp=24");
    sub->add_option("--replications", replications_, "Replications (overrides the scenario)")
        ->check(CLI::Range(1, 1000000));
    sub->add_option("--threads", threads_, "Worker threads (default: all cores)")
        ->check(CLI::Range(1, 4096));
    sub->add_option("--seed", seed_, "Scenario seed (overrides the scenario)")
        ->transform(unsigned_decimal(std::numeric_limits<int64_t>::max()));  // the scenario's range
    sub->add_option("--out", out_, "Write the results JSON here")->check(output_path());
    sub->add_option("--csv", csv_, "Write the per-replication CSV here")->check(output_path());
    sub->add_flag("-q,--quiet", quiet_, "Print no table and no progress");
    sub->add_option("--report", report_,
                    "Write a report: .html (self-contained), .md (SVG charts beside it) or .csv")
        ->check(output_path());
    sub->add_option("--timeline", timeline_,
                    "Write replication 0 as Chrome trace-event JSON (open in ui.perfetto.dev)")
        ->check(output_path());
    return sub;
  }

  int run() override {
    auto scenario = sim::load_scenario(file_, overrides_);
    if (!scenario.ok()) return report_error(scenario.error());
    sim::Scenario& s = *scenario;
    if (seed_) s.seed = *seed_;
    const std::string out = !out_.empty() ? out_ : s.outputs.results_json;
    const std::string csv = !csv_.empty() ? csv_ : s.outputs.results_csv;
    const std::string report = !report_.empty() ? report_ : s.outputs.report;
    const std::string timeline = !timeline_.empty() ? timeline_ : s.outputs.timeline;
    // Every output or none, checked before the run: none may be an input or another output, and
    // files that were there before are replaced only once every output is ready.
    OutputSet outputs;
    add_scenario_inputs(outputs, s);
    // Messages name the option, or the scenario key the path came from.
    for (const auto& [path, what] :
         {std::pair{out, out_.empty() ? "outputs.results" : "--out"},
          std::pair{csv, csv_.empty() ? "outputs.csv" : "--csv"},
          std::pair{report, report_.empty() ? "outputs.report" : "--report"},
          std::pair{timeline, timeline_.empty() ? "outputs.timeline" : "--timeline"}}) {
      const auto st = declare_if_given(outputs, path, what);
      if (!st.ok()) return report_error(st.error());
    }
    sim::RunOptions opts;
    opts.replications = replications_;
    opts.threads = threads_;
    // The results JSON document (per-replication rows) counts in the memory budget only when
    // it will be built (docs/limits.md).
    opts.results_document = !out_.empty() || !s.outputs.results_json.empty() || !csv_.empty() ||
                            !s.outputs.results_csv.empty() || !report_.empty() ||
                            !s.outputs.report.empty() || !timeline_.empty() ||
                            !s.outputs.timeline.empty();
    // Under mpirun / srun: replications split across ranks, rank 0 alone prints and writes.
    const auto world = MpiWorld::join();
    if (world) opts.distribution = world->distribution();
    // Progress on a terminal only (progress_display.h); under MPI, rank 0's own replications.
    ProgressDisplay progress("run", "replications", progress_wanted(quiet_, is_root(world)));
    if (progress.enabled()) {
      opts.progress = [&progress](int done, int total) { progress.update(done, total); };
    }
    install_interrupt_handlers();  // Ctrl-C: finish running replications, write nothing
    opts.cancel = interrupt_flag();
    const auto t0 = std::chrono::steady_clock::now();
    auto result = sim::run_monte_carlo(s, opts);
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    progress.finish();
    if (!result.ok()) {
      if (!interrupt_flag()->load()) return report_error(result.error());
      return report_error(Error::runtime(result.error().message + "; no output file written"));
    }
    if (!is_root(world)) return 0;
    for (const auto& n : result->notices) fmt::print(stderr, "ntpsim: note: {}\n", n);
    // A profile fitted from synthetic (or partly synthetic) data: said on the terminal and
    // written with the results, so no output passes for a measurement.
    if (const std::string w = models::origin_warning(s.hardware); !w.empty()) {
      fmt::print(stderr, "ntpsim: warning: {}\n", w);
      result->warnings.push_back(w);
    }
    // A layout far slower per GPU than the fastest the analytic step model finds for the same
    // GPUs: said in the table, the results and the report, with both MFUs; the scenario's
    // layout is kept (the study may need it, e.g. TP spanning a rack for NTP).
    if (s.step_model == "analytic") {
      models::LayoutSearch search{s.layout.gpus(), s.cluster.gpus_per_domain, s.cluster.domains,
                                  s.layout.virtual_stages};
      search.cp = s.layout.cp;
      if (std::string note = models::layout_gap_note(s.workload, s.hardware, s.layout, search);
          !note.empty()) {
        result->warnings.push_back(std::move(note));
      }
    }
    if (!out.empty()) {
      const auto st = outputs.stage(out, sim::run_document_text(s, *result));
      if (!st.ok()) return report_error(st.error());
    }
    if (!csv.empty()) {
      // One CSV format for `run --csv` and `report x.csv`: both go through reports/csv.cpp.
      auto text = reports::render_csv(sim::run_document(s, *result, false), file_);
      if (!text.ok()) return report_error(text.error());
      const auto st = outputs.stage(csv, *text);
      if (!st.ok()) return report_error(st.error());
    }
    if (!report.empty() || !timeline.empty()) {
      const auto st =
          stage_report(outputs, sim::report_document(s, *result), file_, report, timeline);
      if (!st.ok()) return report_error(st.error());
    }
    if (const auto st = outputs.commit(); !st.ok()) return report_error(st.error());
    if (!quiet_) {
      std::fputs(sim::run_table(s, *result).c_str(), stdout);
      // Wall time goes to stderr only: stdout and the files stay identical across machines.
      fmt::print(stderr, "ntpsim: {} events in {:.2f} s ({:.3g} events/s)\n", result->events,
                 wall_s, static_cast<double>(result->events) / std::max(wall_s, 1e-9));
    }
    print_written({out, csv, report, timeline}, quiet_);
    return 0;
  }

 private:
  std::string file_;
  std::vector<std::string> overrides_;
  int replications_ = 0;
  int threads_ = 0;
  std::optional<uint64_t> seed_;
  std::string out_;
  std::string csv_;
  std::string report_;
  std::string timeline_;
  bool quiet_ = false;
};

NTPSIM_REGISTER_COMMAND("run", RunCommand)

}  // namespace
}  // namespace ntpsim::cli
