// `ntpsim plan PLAN [--threads N] [--seed S] [--out plan.json] [--csv plan.csv]
//  [--report plan.html] [-q]`: the capacity planner (DESIGN.md §6, sim/planner/planner.h).
// Prints the recommendation table; writes the plan JSON / CSV / report atomically (nothing is
// written when the plan fails). Finalist lines go to stderr unless -q.
#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "reports/report.h"
#include "sim/io/results_json.h"
#include "sim/planner/plan.h"
#include "sim/planner/plan_output.h"
#include "sim/planner/planner.h"
#include "tools/ntpsim/command.h"
#include "tools/ntpsim/interrupt.h"
#include "tools/ntpsim/mpi_world.h"

namespace ntpsim::cli {
namespace {

class PlanCommand final : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    CLI::App* sub = app.add_subcommand(
        "plan", "Capacity planner: the cheapest cluster meeting a time-to-train or goodput target");
    sub->add_option("plan", file_, "Plan YAML file")->required();
    sub->add_option("--threads", threads_, "Monte Carlo worker threads (default: all cores)")
        ->check(CLI::Range(1, 4096));
    sub->add_option("--seed", seed_, "Seed (overrides the plan and the base scenario)");
    sub->add_option("--out", out_, "Write the plan results JSON here");
    sub->add_option("--csv", csv_, "Write one CSV row per candidate here");
    sub->add_option("--report", report_, "Write a report with the planner section (.html or .md)");
    sub->add_flag("-q,--quiet", quiet_, "Print no table and no progress");
    return sub;
  }

  int run() override {
    if (!report_.empty() && (report_.size() < 5 || report_.substr(report_.size() - 5) != ".html")) {
      return report_error(Error::bad_input("--report: a plan report is HTML; give a .html path"));
    }
    auto plan = sim::read_plan(file_);
    if (!plan.ok()) return report_error(plan.error());
    if (seed_) plan->seed = *seed_;
    sim::PlanOptions opts;
    opts.threads = threads_;
    install_interrupt_handlers();
    opts.cancel = interrupt_flag();
    // Under mpirun / srun: replications split across ranks, rank 0 alone prints and writes.
    const auto world = MpiWorld::join();
    if (world) opts.distribution = world->distribution();
    if (!quiet_ && is_root(world)) {
      opts.progress = [](const std::string& line) { fmt::print(stderr, "ntpsim plan: {}\n", line); };
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto result = sim::run_plan(*plan, opts);
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!result.ok()) {
      if (opts.cancel->load()) {
        return report_error(Error::runtime(result.error().message + "; no output file written"));
      }
      return report_error(result.error());
    }
    if (!is_root(world)) return 0;
    const auto doc = sim::plan_document(*result);
    if (!out_.empty()) {
      const auto st = sim::write_file_atomic(out_, doc.dump(1) + "\n");
      if (!st.ok()) return report_error(st.error());
    }
    if (!csv_.empty()) {
      const auto st = sim::write_file_atomic(csv_, sim::plan_csv(*result));
      if (!st.ok()) return report_error(st.error());
    }
    if (!report_.empty()) {
      const auto st = reports::write_report_files(doc, file_, report_, "");
      if (!st.ok()) return report_error(st.error());
    }
    if (!quiet_) {
      std::fputs(sim::plan_table(*result).c_str(), stdout);
      fmt::print(stderr, "ntpsim: plan searched {} candidates in {:.2f} s\n",
                 result->candidates.size(), wall_s);
    }
    return 0;
  }

 private:
  std::string file_;
  int threads_ = 0;
  std::optional<uint64_t> seed_;
  std::string out_;
  std::string csv_;
  std::string report_;
  bool quiet_ = false;
};

NTPSIM_REGISTER_COMMAND("plan", PlanCommand)

}  // namespace
}  // namespace ntpsim::cli
