// The names the scenario language uses but does not own: the recovery strategies with their
// parameter tables and policy-chain actions (sim/strategies), and the trace formats
// (sim/failures). Those layers sit above the scenario reader; each provides its part here once,
// during static initialisation, and the reader and printers look names up through it, so that
// sim/scenario depends on neither (sim/CMakeLists.txt, the layering check).
//
// A strategy's configuration as the scenario names it (StrategyConfig, with ParamValue and
// ChainStep) is scenario data and lives here too; sim/strategies/params.h gives typed access to
// it. ParamSpec and ChainActionInfo describe a parameter and a chain action as a scenario file
// writes them; the strategies' registry (registry.h) fills them.
//
// Provision: sim/strategies/registry.cpp and sim/failures/trace_formats.cpp each call provide_*
// from a static initialiser, and their CMakeLists make every binary that links the layer keep
// that object file (a `--undefined` link option), so a binary that reads scenarios and links
// ntpsim_sim always has both. Reading a vocabulary nobody provided is a programming error
// (checked) that names the library to link.
// Thread safety: provide_* during static initialisation only; read-only afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ntpsim::sim {

// A strategy parameter value after validation: bool, integer, real (SI units), or text.
using ParamValue = std::variant<bool, int64_t, double, std::string>;

// One action of a policy chain: its name and its options (defaults filled).
struct ChainStep {
  std::string action;                        // a chain action (StrategyVocabulary::chain_action)
  std::map<std::string, ParamValue> params;  // the action's options
  bool operator==(const ChainStep&) const = default;
};

struct StrategyConfig {
  std::string name;   // registered strategy name, or a chain's own name
  std::string label;  // display name (defaults to name)
  // Every registered parameter, defaults filled; for a chain its resume parameters only.
  std::map<std::string, ParamValue> params;
  // Non-empty: a user's policy chain named `name` (not a registered strategy).
  std::vector<ChainStep> chain;
};

enum class ParamKind { kBool, kInt, kFraction, kDuration, kChoice, kNumber };

struct ParamSpec {
  std::string name;  // YAML key
  ParamKind kind;
  std::string meaning;       // one line for `ntpsim strategies` and docs
  std::string unit;          // "", "GPUs", "fraction of TDP", ...
  std::string default_text;  // as a user would write it in YAML
  double min = 0;            // numeric kinds: inclusive range (in SI units / fractions)
  double max = 0;
  std::vector<std::string> choices;  // kChoice
  // kChoice only: the choices are the registered strategies that serve as a fallback
  // (StrategyPlugin::serves_as_fallback), in registry order; `choices` is filled by the registry.
  bool choices_are_fallbacks = false;
};

// A recovery action of a policy chain (sim/strategies/README.md, "Policy chains").
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

// What is wrong with a chain of actions (by name): the index of the offending action
// (actions.size() when the chain as a whole is wrong) and a message.
struct ChainProblem {
  size_t index = 0;
  std::string message;
};

// The strategies as the scenario reader checks them and the printers write them.
struct StrategyVocabulary {
  // The registered strategy names, in registry order.
  std::vector<std::string> (*strategy_names)() = nullptr;
  // A registered strategy's parameters in table order, defaults and ranges included; nullptr for
  // a name that is not registered.
  const std::vector<ParamSpec>* (*strategy_params)(const std::string& name) = nullptr;
  // A chain action by name, or nullptr.
  const ChainActionInfo* (*chain_action)(const std::string& name) = nullptr;
  // The rules a chain's action list must follow; nothing when it is valid.
  std::optional<ChainProblem> (*check_chain)(const std::vector<std::string>& actions) = nullptr;
  // A chain's resume parameters, in order, with its defaults.
  std::vector<ParamSpec> (*chain_resume_params)(const std::vector<std::string>& actions) = nullptr;
  // What is wrong with resume parameters, as (key, message); nothing when consistent.
  std::optional<std::pair<std::string, std::string>> (*check_resume)(
      const std::map<std::string, ParamValue>& params) = nullptr;
};

// The trace formats as the scenario reader offers them for `failures.trace.format`.
struct TraceVocabulary {
  std::vector<std::string> (*format_names)() = nullptr;  // in the order users see them
};

// Provision (static initialisation). Every hook must be set; providing twice is a programming
// error. Return true so that they can initialise a static.
bool provide_strategy_vocabulary(const StrategyVocabulary& v);
bool provide_trace_vocabulary(const TraceVocabulary& v);

// REQUIRES: provided (checked, naming the library to link).
const StrategyVocabulary& strategy_vocabulary();
const TraceVocabulary& trace_vocabulary();

}  // namespace ntpsim::sim
