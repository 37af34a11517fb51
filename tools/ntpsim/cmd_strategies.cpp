// `ntpsim strategies`: the registered recovery strategies with their parameters.
#include <fmt/format.h>

#include "sim/strategies/registry.h"
#include "tools/ntpsim/command.h"

namespace ntpsim::cli {
namespace {

const char* kind_name(sim::ParamKind k) {
  switch (k) {
    case sim::ParamKind::kBool: return "bool";
    case sim::ParamKind::kInt: return "integer";
    case sim::ParamKind::kFraction: return "fraction";
    case sim::ParamKind::kDuration: return "duration";
    case sim::ParamKind::kChoice: return "choice";
    case sim::ParamKind::kNumber: return "number";
  }
  return "?";
}

class StrategiesCommand final : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    return app.add_subcommand("strategies", "List the recovery strategies and their parameters");
  }

  int run() override {
    for (const auto& s : sim::strategy_registry()) {
      fmt::print("{}\n  {}\n", s.name, s.summary);
      if (!s.chain.empty()) fmt::print("  chain: {}\n", s.chain);
      print_params(s.params);
      fmt::print("\n");
    }
    fmt::print(
        "Chain actions: a strategy entry {{name: NAME, chain: [ACTION, {{ACTION: {{OPTION: "
        "VALUE}}}}, ...]}} tries them in order on each failure; it ends with one terminal "
        "action\n\n");
    for (const auto& a : sim::chain_actions()) {
      fmt::print("{}{}\n  {}\n  cost: {}\n", a.name, a.terminal ? " (terminal)" : "", a.meaning,
                 a.cost);
      print_params(a.params);
      if (!a.only_with.empty()) {
        std::string keys;
        for (const auto& k : a.only_with_params) {
          if (!keys.empty()) keys += ", ";
          keys += k;
        }
        fmt::print("  ({} only with {}: true)\n", keys, a.only_with);
      }
      fmt::print("\n");
    }
    return 0;
  }

 private:
  static void print_params(const std::vector<sim::ParamSpec>& params) {
    if (params.empty()) fmt::print("  (no parameters)\n");
    for (const auto& p : params) {
      std::string type = kind_name(p.kind);
      if (p.kind == sim::ParamKind::kChoice) {
        type.clear();
        for (const auto& c : p.choices) type += (type.empty() ? "" : "|") + c;
      }
      fmt::print("  {:<18} {:<22} default {:<18}{}\n", p.name, type, p.default_text,
                 p.unit.empty() ? "" : fmt::format("[{}]", p.unit));
      fmt::print("  {:<18} {}\n", "", p.meaning);
    }
  }
};

NTPSIM_REGISTER_COMMAND("strategies", StrategiesCommand)

}  // namespace
}  // namespace ntpsim::cli
