// `ntpsim check SCENARIO [--set k=v]... [--json]`: validate a scenario and print it resolved.
//
// Prints the fully resolved scenario (includes merged, overrides applied, defaults filled, units
// written out) as YAML with a few derived facts as comments, or as JSON with --json (the form the
// results file embeds). Writes no file. Exit 0 when valid, 2 with one located message otherwise.
#include <fmt/format.h>

#include <cstdio>

#include "models/base/units.h"
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
    const sim::Scenario& s = *scenario;
    if (json_) {
      std::fputs((sim::to_json(s).dump(2) + "\n").c_str(), stdout);
      return 0;
    }
    const auto& cl = s.cluster;
    const auto& l = s.layout;
    const int64_t job_gpus = static_cast<int64_t>(l.tp) * l.pp * l.dp;
    fmt::print("# ntpsim check: scenario \"{}\" is valid\n", s.name);
    fmt::print("# hash: {}\n", sim::scenario_hash(s));
    fmt::print("# cluster: {} GPUs ({} domains + {} spare domains, {} GPUs each)\n",
               cl.total_gpus(), cl.domains, cl.spare_domains, cl.gpus_per_domain);
    fmt::print("# job: {} GPUs = TP {} x PP {} x DP {}; {} TP group(s) and {} idle GPU(s) per "
               "domain\n",
               job_gpus, l.tp, l.pp, l.dp, cl.gpus_per_domain / l.tp, cl.gpus_per_domain % l.tp);
    fmt::print("# workload: {} parameters, {} tokens per iteration\n",
               units::format_count(s.workload.parameters()),
               units::format_count(s.workload.tokens_per_iteration()));
    std::fputs(sim::to_yaml_text(s).c_str(), stdout);
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
