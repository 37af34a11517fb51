// `ntpsim sweep SCENARIO --vary path=v1,v2,... [--vary path2=a:b:step] [--set k=v]...
//  [--replications N] [--threads N] [--seed S] [--out sweep.json] [-q]`: run the scenario at
// every point of one or two varied fields and print one table; write one JSON (kind "sweep").
#include <cstdio>

#include <fmt/format.h>

#include "reports/report.h"
#include "sim/io/results_json.h"
#include "sim/io/results_table.h"
#include "sim/montecarlo/sweep.h"
#include "tools/ntpsim/command.h"
#include "tools/ntpsim/interrupt.h"
#include "tools/ntpsim/mpi_world.h"

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
    sub->add_option("--seed", seed_, "Scenario seed (overrides the scenario)");
    sub->add_option("--out", out_, "Write the sweep JSON here");
    sub->add_flag("-q,--quiet", quiet_, "Print no table");
    sub->add_option("--report", report_,
                    "Write a report: .html (self-contained), .md (SVG charts beside it) or .csv");
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
    auto sweep = sim::run_sweep(file_, overrides, specs, opts);
    if (!sweep.ok()) {
      if (!interrupt_flag()->load()) return report_error(sweep.error());
      return report_error(Error::runtime(sweep.error().message + "; no output file written"));
    }
    if (!is_root(world)) return 0;
    const std::string out = !out_.empty() ? out_ : sweep->base.outputs.results_json;
    if (!out.empty()) {
      const auto st = sim::write_file_atomic(out, sim::sweep_document(*sweep).dump(1) + "\n");
      if (!st.ok()) return report_error(st.error());
    }
    const std::string report = !report_.empty() ? report_ : sweep->base.outputs.report;
    if (!report.empty()) {
      const auto st =
          reports::write_report_files(sim::sweep_document(*sweep), file_, report, "");
      if (!st.ok()) return report_error(st.error());
    }
    if (!quiet_) std::fputs(sim::sweep_table(*sweep).c_str(), stdout);
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
};

NTPSIM_REGISTER_COMMAND("sweep", SweepCommand)

}  // namespace
}  // namespace ntpsim::cli
