// `ntpsim sweep SCENARIO --vary path=v1,v2,... [--vary path2=a:b:step] [--set k=v]...
//  [--replications N] [--threads N] [--seed S] [--out sweep.json] [--resume FILE] [-q]`: run the
// scenario at every point of one or two varied fields and print one table; write one JSON (kind
// "sweep"). With --resume, every finished point is appended to FILE (sim/io/progress.h) and a
// rerun of the same command takes the recorded points instead of running them again, so an
// interrupted sweep continues where it stopped with identical final results; FILE is removed once
// the outputs are written. Progress (points, and replications of the point being run) goes to
// stderr when it is a terminal (progress_display.h); "ntpsim: wrote FILE" lines unless -q.
#include <fmt/format.h>

#include <cstdio>
#include <limits>
#include <set>

#include "sim/io/progress.h"
#include "sim/io/results_json.h"
#include "sim/io/results_table.h"
#include "sim/io/run_record.h"
#include "sim/montecarlo/sweep.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"
#include "tools/ntpsim/command.h"
#include "tools/ntpsim/interrupt.h"
#include "tools/ntpsim/mpi_world.h"
#include "tools/ntpsim/outputs.h"
#include "tools/ntpsim/progress_cli.h"
#include "tools/ntpsim/progress_display.h"

namespace ntpsim::cli {
namespace {

class SweepCommand final : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    CLI::App* sub = app.add_subcommand(
        "sweep", "Run the scenario over one or two varied fields (lists or start:stop:step)");
    sub->add_option("scenario", file_, "Scenario YAML file")->required();
    sub->add_option("--vary", vary_,
                    "path=v1,v2,... or path=start:stop:step, e.g. "
                    "--vary cluster.spare_domains=0:4:1 (once or twice)")
        ->required();
    sub->add_option("--set", overrides_, "Override a scenario field (every point)");
    sub->add_option("--replications", replications_, "Replications per point")
        ->check(CLI::Range(1, 1000000));
    sub->add_option("--threads", threads_, "Worker threads (default: all cores)")
        ->check(CLI::Range(1, 4096));
    sub->add_option("--seed", seed_, "Scenario seed (overrides the scenario)")
        ->transform(unsigned_decimal(std::numeric_limits<int64_t>::max()));  // the scenario's range
    sub->add_option("--out", out_, "Write the sweep JSON here")->check(output_path());
    sub->add_flag("-q,--quiet", quiet_, "Print no table");
    sub->add_option("--resume", resume_,
                    "Progress file: record each finished point there, and continue from it "
                    "when it exists (removed once the outputs are written)")
        ->check(output_path());
    sub->add_option("--report", report_,
                    "Write a report: .html (self-contained), .md (SVG charts beside it) or .csv")
        ->check(output_path());
    return sub;
  }

  int run() override {
    if (vary_.size() > 2) return report_error(Error::bad_input("sweep: at most two --vary"));
    std::vector<sim::VarySpec> specs;
    for (const auto& v : vary_) {
      auto spec = sim::parse_vary(v);
      if (!spec.ok()) return report_error(spec.error());
      specs.push_back(std::move(spec.value()));
    }
    std::vector<std::string> overrides = overrides_;
    if (seed_) overrides.push_back(fmt::format("seed={}", *seed_));
    sim::RunOptions opts;
    opts.replications = replications_;
    opts.threads = threads_;
    opts.timeline = false;
    // Under mpirun / srun: each point's replications split across ranks, rank 0 writes.
    const auto world = MpiWorld::join();
    if (world) opts.distribution = world->distribution();
    install_interrupt_handlers();  // Ctrl-C: stop after the running replications, write nothing
    opts.cancel = interrupt_flag();
    // Every output or none, checked before the sweep: none may be the scenario, the progress
    // file or another output.
    auto base = sim::load_scenario(file_, overrides);
    if (!base.ok()) return report_error(base.error());
    const std::string out = !out_.empty() ? out_ : base->outputs.results_json;
    const std::string report = !report_.empty() ? report_ : base->outputs.report;
    OutputSet outputs;
    add_scenario_inputs(outputs, *base);
    outputs.add_input(resume_, "--resume progress file");
    for (const auto& [path, what] :
         {std::pair{out, out_.empty() ? "outputs.results" : "--out"},
          std::pair{report, report_.empty() ? "outputs.report" : "--report"}}) {
      const auto st = declare_if_given(outputs, path, what);
      if (!st.ok()) return report_error(st.error());
    }
    // Progress on a terminal only (progress_display.h): points, and replications of the current.
    ProgressDisplay progress("sweep", "points", progress_wanted(quiet_, is_root(world)));
    if (progress.enabled()) {
      opts.progress = [&progress](int done, int total) { progress.set_inner(done, total); };
    }
    std::unique_ptr<sim::ProgressJournal> journal;
    sim::SweepHooks hooks;
    hooks.finished = [&](size_t, const sim::SweepPoint&) {
      progress.advance();
      progress.reset_inner("replication");
      return Status::Ok();
    };
    if (!resume_.empty()) {
      auto identity = progress_identity("sweep");
      identity["scenario_file"] = file_;
      identity["overrides"] = overrides;
      nlohmann::ordered_json vary = nlohmann::ordered_json::array();
      for (const auto& v : specs) vary.push_back({{"path", v.path}, {"values", v.values}});
      identity["vary"] = std::move(vary);
      identity["replications"] = replications_;
      identity["scenario_hash"] = sim::scenario_hash(*base);  // catches edited files
      auto opened = open_progress(resume_, identity, world.get());
      if (!opened.ok()) return report_error(opened.error());
      journal = std::move(*opened);
      if (is_root(world) && !quiet_) {
        if (journal->dropped_torn_line()) {
          fmt::print(stderr,
                     "ntpsim sweep: {}: dropped a torn last record (the writer crashed); that "
                     "point runs again\n",
                     resume_);
        }
        if (journal->size() > 0) {
          fmt::print(stderr, "ntpsim sweep: resuming: {} finished point{} recorded in {}\n",
                     journal->size(), journal->size() == 1 ? "" : "s", resume_);
        }
      }
      hooks.recorded = [&](size_t index, const sim::Scenario& sc)
          -> Result<std::optional<sim::RunResult>> {
        const auto* rec = journal->find(point_key(index));
        if (rec == nullptr) return std::optional<sim::RunResult>();
        auto r = sim::read_run_record(*rec, sc, fmt::format("{}: point {}", resume_, index));
        if (!r.ok()) return r.error();
        progress.advance(/*skipped=*/true);
        return std::optional<sim::RunResult>(std::move(*r));
      };
      hooks.finished = [&](size_t index, const sim::SweepPoint& p) {
        progress.advance();
        progress.reset_inner("replication");
        if (!is_root(world)) return Status::Ok();
        return append_progress(*journal, point_key(index), sim::run_record(p.scenario, p.result),
                               world.get());  // rank 0 alone writes
      };
    }
    size_t points = 1;
    for (const auto& v : specs) points *= v.values.size();
    progress.reset_inner("replication");
    progress.set_total(static_cast<int64_t>(points));  // the first drawing, after the messages above
    auto sweep = sim::run_sweep(file_, overrides, specs, opts, hooks);
    progress.finish();
    if (!sweep.ok()) {
      if (!interrupt_flag()->load()) {
        // Nothing was recorded: leave no progress file behind a failure.
        if (journal && journal->size() == 0 && is_root(world)) (void)journal->remove();
        return report_error(sweep.error());
      }
      if (journal) {
        return report_error(Error::runtime(fmt::format(
            "{}; no output file written; the finished points are kept in {}: run the same "
            "command again to continue",
            sweep.error().message, resume_)));
      }
      return report_error(Error::runtime(
          sweep.error().message +
          "; no output file written (with --resume FILE finished points survive an interruption)"));
    }
    if (!is_root(world)) return 0;
    std::set<std::string> notices;  // once each, not per point
    for (const auto& p : sweep->points) notices.insert(p.result.notices.begin(), p.result.notices.end());
    for (const auto& n : notices) fmt::print(stderr, "ntpsim: note: {}\n", n);
    if (!out.empty()) {
      const auto st = outputs.stage(out, sim::sweep_document(*sweep).dump(1) + "\n");
      if (!st.ok()) return report_error(st.error());
    }
    if (!report.empty()) {
      const auto st =
          stage_report(outputs, nlohmann::json(sim::sweep_document(*sweep)), file_, report, "");
      if (!st.ok()) return report_error(st.error());
    }
    if (const auto st = outputs.commit(); !st.ok()) return report_error(st.error());
    if (journal) {
      const auto st = journal->remove();
      if (!st.ok()) return report_error(st.error());
    }
    if (!quiet_) std::fputs(sim::sweep_table(*sweep).c_str(), stdout);
    print_written({out, report}, quiet_);
    return 0;
  }

 private:
  std::string file_;
  std::vector<std::string> vary_;
  std::vector<std::string> overrides_;
  int replications_ = 0;
  int threads_ = 0;
  std::optional<uint64_t> seed_;
  std::string out_;
  std::string report_;
  bool quiet_ = false;
  std::string resume_;

  static std::string point_key(size_t index) { return fmt::format("point/{}", index); }
};

NTPSIM_REGISTER_COMMAND("sweep", SweepCommand)

}  // namespace
}  // namespace ntpsim::cli
