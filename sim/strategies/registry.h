// The registry of recovery strategies (DESIGN.md §3.4, STYLE.md §6).
//
// Every strategy is a plug-in: one .cpp file holds its class, its parameter table, its factory
// and its closed-form hook for the planner's screen, and registers them with
// NTPSIM_REGISTER_STRATEGY (plugin.h), as NTPSIM_REGISTER_COMMAND does for subcommands. The
// registry feeds YAML validation (the scenario reader, through the StrategyVocabulary that
// registry.cpp provides, sim/scenario/vocabulary.h), `ntpsim strategies`, the engine's factory
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

#include "sim/scenario/vocabulary.h"  // ParamSpec, ChainActionInfo, ChainProblem
#include "sim/strategies/params.h"

namespace ntpsim::sim {

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

// The chain actions in the order a chain lists them (non-terminal ones first).
const std::vector<ChainActionInfo>& chain_actions();
const ChainActionInfo* find_chain_action(const std::string& name);

// Checks the rules of README.md "Policy chains": known actions, no duplicates, non-terminal
// actions in the engine's order, exactly one terminal action and it comes last, reduce_tp and
// drop_replica never together. Returns nothing when the chain is valid.
std::optional<ChainProblem> check_chain(const std::vector<std::string>& actions);

}  // namespace ntpsim::sim
