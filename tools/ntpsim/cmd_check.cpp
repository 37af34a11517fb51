// `ntpsim check SCENARIO [--set k=v]... [--json]`: validate a scenario and print it resolved.
//
// Prints the fully resolved scenario (includes merged, overrides applied, defaults filled, units
// written out) as YAML with a few derived facts as comments, or as JSON with --json (the form the
// results file embeds). Writes no file. Exit 0 when valid, 2 with one located message otherwise.
#include <cstdio>

#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"
#include "tools/ntpsim/command.h"

namespace ntpsim::cli {
namespace {

class CheckCommand final : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    CLI::App* sub = app.add_subcommand(
        "check", "Validate a scenario and print it fully resolved (defaults filled, units shown)");
    sub->add_option("scenario", file_, "Scenario YAML file")->required();
    sub->add_option("--set", overrides_,
                    "Override a field, e.g. --set layout.dp=24 or "
                    "--set failures.processes[0].rate=3e-5/h (repeatable)");
    sub->add_flag("--json", json_, "Print the resolved scenario as JSON");
    return sub;
  }

  int run() override {
    sim::LoadOptions options;
    options.overrides = overrides_;
    auto scenario = sim::load_scenario(file_, options);
    if (!scenario.ok()) return report_error(scenario.error());
    const std::string text =
        json_ ? sim::to_json(*scenario).dump(2) + "\n" : sim::check_text(*scenario);
    std::fputs(text.c_str(), stdout);
    return 0;
  }

 private:
  std::string file_;
  std::vector<std::string> overrides_;
  bool json_ = false;
};

NTPSIM_REGISTER_COMMAND("check", CheckCommand)

}  // namespace
}  // namespace ntpsim::cli
