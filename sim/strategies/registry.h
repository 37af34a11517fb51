// The registry of recovery strategies (DESIGN.md §3.4, STYLE.md §6).
//
// Every strategy is a plug-in: one .cpp file holds its class, its parameter table, its factory
// and its closed-form hook for the planner's screen, and registers them with
// NTPSIM_REGISTER_STRATEGY (plugin.h), as NTPSIM_REGISTER_COMMAND does for subcommands. The
// registry feeds YAML validation (scenario loader), `ntpsim strategies`, the engine's factory
// (make_strategy) and the planner's screen; none of them names a strategy.
//
// Order: strategies built into ntpsim_sim are listed in the order of their `ntpsim_strategy()`
// lines in sim/strategies/CMakeLists.txt (a file's strategies in the order it registers them);
// strategies compiled into another target (a test) follow, by name. The order is fixed once the
// registry is first read; registration after that is a programming error.
// Thread safety: registration happens during static initialisation only; read-only afterwards.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/strategies/params.h"

namespace ntpsim::sim {

enum class ParamKind { kBool, kInt, kFraction, kDuration, kChoice, kNumber };

struct ParamSpec {
  std::string name;         // YAML key
  ParamKind kind;
  std::string meaning;      // one line for `ntpsim strategies` and docs
  std::string unit;         // "", "GPUs", "fraction of TDP", ...
  std::string default_text; // as a user would write it in YAML
  double min = 0;           // numeric kinds: inclusive range (in SI units / fractions)
  double max = 0;
  std::vector<std::string> choices;  // kChoice
  // kChoice only: the choices are the registered strategies that serve as a fallback
  // (StrategyPlugin::serves_as_fallback), in registry order; `choices` is filled by the registry.
  bool choices_are_fallbacks = false;
};

struct StrategyInfo {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
  // The policy chain the strategy runs (or is equivalent to), as `ntpsim strategies` shows it,
  // e.g. "swap_in_domain -> replace_with_spare_domain -> reduce_tp"; "" when none is stated.
  std::string chain = {};
};

const std::vector<StrategyInfo>& strategy_registry();

// The resume-mechanism parameters every strategy and policy chain has (strategy.h, Resume), last
// in its parameter table: `resume` (restart_from_checkpoint | restart_from_memory | in_place;
// in_place only when the strategy has an action that can run in place), `state_copy` (peer |
// replicated | none) and `allow_lost_state`.
std::vector<ParamSpec> resume_param_specs(const std::string& default_resume,
                                          bool in_place_possible);
// Their names, in that order.
inline constexpr const char* kResumeParamNames[] = {"resume", "state_copy", "allow_lost_state"};
// A chain's resume defaults: in place unless its only action is `restart`.
std::vector<ParamSpec> chain_resume_param_specs(const std::vector<std::string>& actions);
// What is wrong with a strategy's resume parameters, as (key, message): in_place with no copy of
// the optimizer state and no allow_lost_state. Nothing when they are consistent.
std::optional<std::pair<std::string, std::string>> check_resume(
    const std::map<std::string, ParamValue>& params);
const StrategyInfo* find_strategy(const std::string& name);

// A recovery action of a policy chain (chain.cpp, sim/strategies/README.md "Policy chains").
struct ChainActionInfo {
  std::string name;
  std::string meaning;
  std::string cost;               // the recovery cost it pays: "spare_swap", "reconfigure", ...
  bool terminal = false;          // always applies (possibly as a stall); ends a chain
  std::vector<ParamSpec> params;  // its options, with defaults
  // Options valid only when the bool option `only_with` is true (e.g. max_power with power_boost).
  std::string only_with = {};
  std::vector<std::string> only_with_params = {};
  // Listed before the terminal action, this action needs the terminal's bool option of this name
  // to stay true (replace_with_spare_domain: use_spare_domains); "" when none.
  std::string needs_terminal_flag = {};
};

// The chain actions in the order a chain lists them (non-terminal ones first).
const std::vector<ChainActionInfo>& chain_actions();
const ChainActionInfo* find_chain_action(const std::string& name);

// What is wrong with a chain of actions (by name; options are checked by the reader): the index
// of the offending action (actions.size() when the chain as a whole is wrong) and a message.
struct ChainProblem {
  size_t index = 0;
  std::string message;
};
// Checks the rules of README.md "Policy chains": known actions, no duplicates, non-terminal
// actions in the engine's order, exactly one terminal action and it comes last, reduce_tp and
// drop_replica never together. Returns nothing when the chain is valid.
std::optional<ChainProblem> check_chain(const std::vector<std::string>& actions);

}  // namespace ntpsim::sim
