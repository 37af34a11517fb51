// `ntpsim sensitivity SCENARIO [--set k=v]... [--replications N] [--threads N] [--seed S]
//  [--samples N] [--bisection-steps N] [--max-evaluations N] [--out sensitivity.json]
//  [--csv tornado.csv] [-q]`: which uncertain input decides which strategy wins
// (sim/sensitivity/sensitivity.h, docs/sensitivity.md). Prints the summary verdict first; writes
// the JSON (kind "sensitivity") and the tornado CSV, all or none. Ctrl-C stops after the running
// replications and writes nothing.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <limits>
#include <optional>

#include "sim/sensitivity/sensitivity.h"
#include "tools/ntpsim/command.h"
#include "tools/ntpsim/interrupt.h"
#include "tools/ntpsim/outputs.h"

namespace ntpsim::cli {
namespace {

class SensitivityCommand final : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    CLI::App* sub = app.add_subcommand(
        "sensitivity",
        "Which uncertain input decides the winner: one-at-a-time tornado, break-even values, "
        "win probabilities over a Latin hypercube");
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
                    "Latin hypercube samples for the global analysis (0 = none; default 64)")
        ->check(CLI::Range(0, 100000));
    sub->add_option("--bisection-steps", options_.bisection_steps,
                    "Bisections per break-even (default 10)")
        ->check(CLI::Range(1, 60));
    sub->add_option("--max-evaluations", options_.max_evaluations,
                    "Refuse a plan of more scenario evaluations than this (default 2000)")
        ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
    sub->add_option("--out", out_, "Write the sensitivity JSON here");
    sub->add_option("--csv", csv_, "Write the tornado CSV here");
    sub->add_flag("-q,--quiet", quiet_, "Print no summary");
    return sub;
  }

  int run() override {
    std::vector<std::string> overrides = overrides_;
    if (seed_) overrides.push_back(fmt::format("seed={}", *seed_));
    options_.replications = replications_;
    options_.threads = threads_;
    install_interrupt_handlers();  // Ctrl-C: stop after the running replications, write nothing
    options_.cancel = interrupt_flag();
    const bool show_progress = !quiet_ && isatty(fileno(stderr)) != 0;
    if (show_progress) {
      options_.progress = [](int done, int planned) {
        fmt::print(stderr, "\rntpsim sensitivity: evaluation {} (at most {})", done, planned);
        std::fflush(stderr);
      };
    }
    auto result = sim::run_sensitivity(file_, overrides, options_);
    if (show_progress) fmt::print(stderr, "\n");
    if (!result.ok()) {
      if (interrupt_flag()->load()) {
        return report_error(Error::runtime(result.error().message + "; no output file written"));
      }
      return report_error(result.error());
    }
    OutputSet outputs;  // every output or none
    if (!out_.empty()) {
      const auto st = outputs.write(out_, sim::sensitivity_json(*result).dump(1) + "\n");
      if (!st.ok()) return report_error(st.error());
    }
    if (!csv_.empty()) {
      const auto st = outputs.write(csv_, sim::sensitivity_csv(*result));
      if (!st.ok()) return report_error(st.error());
    }
    if (!quiet_) std::fputs(sim::sensitivity_summary(*result).c_str(), stdout);
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
  bool quiet_ = false;
};

NTPSIM_REGISTER_COMMAND("sensitivity", SensitivityCommand)

}  // namespace
}  // namespace ntpsim::cli
