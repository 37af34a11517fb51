// `ntpsim plan PLAN [--threads N] [--seed S] [--out plan.json] [--csv plan.csv]
//  [--report plan.html] [--resume FILE] [-q]`: the capacity planner (DESIGN.md §6,
// sim/planner/planner.h). Prints the recommendation table; writes the plan JSON / CSV / report
// atomically (nothing is written when the plan fails). Progress goes to stderr when it is a
// terminal (progress_display.h); each finalist's outcome with -v; "ntpsim: wrote FILE" unless -q.
// With --resume, every finished finalist confirmation is appended to FILE (sim/io/progress.h) and
// a rerun of the same command takes the recorded ones instead of running them again, so an
// interrupted plan continues where it stopped with identical final results; FILE is removed once
// the outputs are written.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <limits>

#include "reports/report.h"
#include "sim/io/results_json.h"
#include "sim/planner/plan.h"
#include "sim/planner/plan_output.h"
#include "sim/planner/plan_progress.h"
#include "sim/planner/planner.h"
#include "tools/ntpsim/command.h"
#include "tools/ntpsim/interrupt.h"
#include "tools/ntpsim/mpi_world.h"
#include "tools/ntpsim/outputs.h"
#include "tools/ntpsim/progress_cli.h"
#include "tools/ntpsim/progress_display.h"

namespace ntpsim::cli {
namespace {

class PlanCommand final : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    CLI::App* sub = app.add_subcommand(
        "plan", "Capacity planner: the cheapest cluster meeting a time-to-train or goodput target");
    sub->add_option("plan", file_, "Plan YAML file")->required();
    sub->add_option("--threads", threads_,
                    "worker threads of the screen and the Monte Carlo (default: all cores)")
        ->check(CLI::Range(1, 4096));
    sub->add_option("--seed", seed_, "Seed (overrides the plan and the base scenario)")
        ->transform(unsigned_decimal(std::numeric_limits<int64_t>::max()));  // the scenario's range
    sub->add_option("--out", out_, "Write the plan results JSON here")->check(output_path());
    sub->add_option("--csv", csv_, "Write one CSV row per candidate here")->check(output_path());
    sub->add_option("--report", report_,
                    "Write the plan report: .md gives Markdown (charts as SVG files beside it), "
                    "anything else one self-contained HTML file")
        ->check(output_path());
    sub->add_option("--resume", resume_,
                    "Progress file: record each finished finalist confirmation there, and "
                    "continue from it when it exists (removed once the outputs are written)")
        ->check(output_path());
    sub->add_flag("-q,--quiet", quiet_, "Print no table and no progress");
    sub->add_flag("-v,--verbose", verbose_,
                  "Print each finalist's Monte Carlo outcome as it finishes (stderr)");
    return sub;
  }

  int run() override {
    // Refused before any work: the one report format a plan does not have.
    if (!report_.empty() && reports::format_for_path(report_) == reports::Format::kCsv) {
      return report_error(Error::bad_input(
          "--report: a plan report is .html or .md; the candidates' CSV is --csv FILE"));
    }
    auto plan = sim::read_plan(file_);
    if (!plan.ok()) return report_error(plan.error());
    if (seed_) plan->seed = *seed_;
    // Every output or none, checked before the search: none may be the plan, its base scenario,
    // the progress file or another output.
    OutputSet outputs;
    outputs.add_input(file_, "plan");
    outputs.add_input(plan->base, "base scenario");
    outputs.add_input(resume_, "--resume progress file");
    for (const auto& [path, what] :
         {std::pair{out_, "--out"}, std::pair{csv_, "--csv"}, std::pair{report_, "--report"}}) {
      const auto st = declare_if_given(outputs, path, what);
      if (!st.ok()) return report_error(st.error());
    }
    sim::PlanOptions opts;
    opts.threads = threads_;
    install_interrupt_handlers();
    opts.cancel = interrupt_flag();
    // Under mpirun / srun: replications split across ranks, rank 0 alone prints and writes.
    const auto world = MpiWorld::join();
    if (world) opts.distribution = world->distribution();
    // Progress on a terminal only (progress_display.h): finalist confirmations (their total is an
    // upper bound), replications of the current one. Notes always print (unless -q); the line of
    // each finished finalist only with --verbose.
    ProgressDisplay progress("plan", "finalists", progress_wanted(quiet_, is_root(world)));
    if (!quiet_ && is_root(world)) {
      opts.progress = [this, &progress](const std::string& line) {
        if (verbose_ || line.rfind("note: ", 0) == 0) progress.print_line("ntpsim plan: " + line);
      };
    }
    if (progress.enabled()) {
      opts.counts = [&progress](const sim::PlanCounts& c) {
        progress.reset_inner("replication");
        progress.set_total(c.bound, /*is_bound=*/true);
        progress.set_skipped(c.recorded);
        progress.set_done(c.finished);
        progress.set_detail(c.current);
      };
      opts.replications = [&progress](int done, int total) { progress.set_inner(done, total); };
    }
    std::unique_ptr<sim::ProgressJournal> journal;
    if (!resume_.empty()) {
      auto opened = open_journal(*plan, world.get());
      if (!opened.ok()) return report_error(opened.error());
      journal = std::move(*opened);
      opts.resume.source = resume_;
      opts.resume.find = [&](const std::string& key) { return journal->find(key); };
      opts.resume.record = [&](const std::string& key, const nlohmann::ordered_json& data) {
        return append_progress(*journal, key, data, world.get());  // rank 0 alone writes
      };
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto result = sim::run_plan(*plan, opts);
    progress.finish();
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!result.ok()) {
      if (!opts.cancel->load()) {
        // Nothing was recorded: leave no progress file behind a failure.
        if (journal && journal->size() == 0 && is_root(world)) (void)journal->remove();
        return report_error(result.error());
      }
      if (journal) {
        return report_error(Error::runtime(fmt::format(
            "{}; no output file written; the finished confirmations are kept in {}: run the same "
            "command again to continue",
            result.error().message, resume_)));
      }
      return report_error(Error::runtime(
          result.error().message +
          "; no output file written (with --resume FILE finished confirmations survive an "
          "interruption)"));
    }
    if (!is_root(world)) return 0;
    const auto doc = sim::plan_document(*result);
    if (!out_.empty()) {
      const auto st = outputs.stage(out_, doc.dump(1) + "\n");
      if (!st.ok()) return report_error(st.error());
    }
    if (!csv_.empty()) {
      const auto st = outputs.stage(csv_, sim::plan_csv(*result));
      if (!st.ok()) return report_error(st.error());
    }
    if (!report_.empty()) {
      const auto st = stage_report(outputs, nlohmann::json(doc), file_, report_, "");
      if (!st.ok()) return report_error(st.error());
    }
    if (const auto st = outputs.commit(); !st.ok()) return report_error(st.error());
    if (journal) {
      const auto st = journal->remove();
      if (!st.ok()) return report_error(st.error());
    }
    if (!quiet_) {
      std::fputs(sim::plan_table(*result).c_str(), stdout);
      fmt::print(stderr, "ntpsim: plan searched {} candidates in {:.2f} s\n",
                 result->candidates.size(), wall_s);
    }
    print_written({out_, csv_, report_}, quiet_);
    return 0;
  }

 private:
  // Opens the --resume file on every rank; rank 0 reports what it resumes (unless -q).
  Result<std::unique_ptr<sim::ProgressJournal>> open_journal(const sim::Plan& plan,
                                                             const MpiWorld* world) const {
    auto identity = progress_identity("plan");
    auto mine = sim::plan_identity(plan);
    if (!mine.ok()) return mine.error();
    for (const auto& [k, v] : mine->items()) identity[k] = v;
    auto journal = open_progress(resume_, identity, world);
    if (!journal.ok() || quiet_ || (world != nullptr && world->rank() != 0)) return journal;
    if ((*journal)->dropped_torn_line()) {
      fmt::print(stderr,
                 "ntpsim plan: {}: dropped a torn last record (the writer crashed); that "
                 "confirmation runs again\n",
                 resume_);
    }
    if ((*journal)->size() > 0) {
      const size_t k = (*journal)->size();
      fmt::print(stderr, "ntpsim plan: resuming: {} finished confirmation{} recorded in {}\n", k,
                 k == 1 ? "" : "s", resume_);
    }
    return journal;
  }

  std::string file_;
  int threads_ = 0;
  std::optional<uint64_t> seed_;
  std::string out_;
  std::string csv_;
  std::string report_;
  bool quiet_ = false;
  bool verbose_ = false;
  std::string resume_;
};

NTPSIM_REGISTER_COMMAND("plan", PlanCommand)

}  // namespace
}  // namespace ntpsim::cli
