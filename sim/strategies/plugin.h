// How a strategy plugs in: one .cpp file defines its class, its parameter table, its factory and
// its closed-form screen hook, and registers them with NTPSIM_REGISTER_STRATEGY. Building it into
// ntpsim takes one line in sim/strategies/CMakeLists.txt, `ntpsim_strategy(<file>.cpp)`; nothing
// else names the strategy (README.md, "Adding a strategy").
//
// Include this header only from strategy files (and the registry). Under `ntpsim_strategy()` a
// file is compiled with NTPSIM_STRATEGY_FILE=<its stem>; this header then defines the file's
// anchor function, which the registry calls so that a static link keeps the file (and with it
// its registrations), and which places the file's strategies in the CMake order.
// Thread safety: plug-ins are immutable after static initialisation.
#pragma once

#include <memory>
#include <string>

#include "models/base/status.h"
#include "models/hardware.h"
#include "models/step_model.h"
#include "sim/cluster/layout.h"
#include "sim/strategies/params.h"
#include "sim/strategies/registry.h"
#include "sim/strategies/strategy.h"

namespace ntpsim::sim {

// What a factory may read to build a strategy for one scenario.
struct StrategyBuildContext {
  const models::StepModel& model;
  const JobLayout& layout;
  const models::HardwareProfile& hardware;
  ShapeContext shape;  // derived from model and layout by make_strategy
  // The smallest TP degree at which the strategy's in-place copy of the optimizer state fits
  // (0 = no copy); strategies that reduce TP stay at or above it.
  int state_min_tp = 0;
  // kScreen: the strategy is built for the planner's closed-form screen (its rules and resume
  // mechanism) and is never shaped, so factories may leave out what only shape() reads.
  StrategyUse use = StrategyUse::kRun;
};

// The quantities the planner's closed-form screen derives for one candidate before it asks the
// strategy for its expected goodput (sim/planner/README.md, "Closed form").
struct ScreenInputs {
  const models::StepModel* model = nullptr;
  int tp = 1;
  int dp = 1;
  double interruptions_per_s = 0;  // job-wide interruption rate (lambda)
  double healthy_iteration_s = 0;
  // Per interruption, under the strategy's resume mechanism (sim/planner/screen.cpp): a restart
  // pays detection + restart + restore (in-memory restore for restart_from_memory) + half a
  // snapshot period; in place, a reconfiguration pays detection + two reconfigurations + the
  // state transfer + half an iteration, a swap detection + spare swap + the state transfer + half
  // an iteration; under a restart mechanism both equal restart_loss_s.
  double restart_loss_s = 0;
  double reconfigure_loss_s = 0;
  double swap_loss_s = 0;
  double short_probability = 0;   // P(fewer healthy TP groups in the cluster than the job needs)
  double short_groups = 0;        // E[groups missing]
  double damaged_domains = 0;     // E[job domains with more failed GPUs than idle ones]
  // P(a domain's idle GPUs cover all its failed ones | it has a failed GPU): the share of
  // interruptions an in-domain swap absorbs.
  double in_domain_cover = 0;
  // Whole DP replicas the spare domains' TP groups form (fixed mini-batch: add_spare_replica).
  double spare_replicas = 0;
};

// Builds the strategy; `label` is its display name. Errors are bad input.
using StrategyFactory = Result<std::unique_ptr<Strategy>> (*)(const std::string& label,
                                                              const StrategyParams& params,
                                                              const StrategyBuildContext& ctx);
// The strategy's expected goodput before checkpoint overhead, in closed form (the screen clamps
// it to [0, 1] and multiplies by the checkpoint factor).
using ScreenHook = double (*)(const ScreenInputs& in, const StrategyParams& params);

struct StrategyPlugin {
  StrategyInfo info;
  StrategyFactory make = nullptr;
  ScreenHook screen = nullptr;
  // Listed among the fallbacks of strategies that fall back on another (spare_substitution).
  bool serves_as_fallback = false;
  // The strategy restarts on every interruption (no action of it can run in place): its `resume`
  // is restart_from_checkpoint (default) or restart_from_memory.
  bool restarts_always = false;
  // Its default `resume` otherwise (strategy.h, Resume).
  std::string default_resume = "in_place";
};

// Registration (static initialisation only). `file`: the registering file's stem under
// `ntpsim_strategy()`, "" elsewhere. Returns true so it can initialise a static. A duplicate
// name, a missing factory or screen hook is a programming error (checked when first read).
bool register_strategy(const char* file, StrategyPlugin plugin);

// The plug-in registered under `name`, or nullptr.
const StrategyPlugin* find_strategy_plugin(const std::string& name);

// make_strategy (strategy.h) with a ready build context: for strategies that build another one
// (spare_substitution's fallback). A config with a `chain` is built by make_chain_strategy.
Result<std::unique_ptr<Strategy>> make_strategy(const StrategyConfig& cfg,
                                                const StrategyBuildContext& ctx);

// A policy chain named `name` (chain.cpp): the actions' rules composed, the terminal action's
// strategy for shapes, and per Coverage the cost of the first action that resolved it.
// Errors (bad input): a chain that breaks check_chain (registry.h), an option the action does not
// have or of the wrong type, an option that needs another one (max_power without power_boost).
Result<std::unique_ptr<Strategy>> make_chain_strategy(const std::string& name,
                                                      const std::string& label,
                                                      const std::vector<ChainStep>& chain,
                                                      const StrategyBuildContext& ctx);

// The closed-form expected goodput before checkpoint overhead of a strategy config: the
// registered strategy's screen hook, or for a chain the composition of its actions' closed forms
// (README.md, "Policy chains"). Errors: as StrategyParams::make and make_chain_strategy.
Result<double> screen_strategy(const ScreenInputs& in, const StrategyConfig& cfg);
Result<double> screen_chain(const ScreenInputs& in, const std::vector<ChainStep>& chain);

}  // namespace ntpsim::sim

#define NTPSIM_STRATEGY_CAT2(A, B) A##B
#define NTPSIM_STRATEGY_CAT(A, B) NTPSIM_STRATEGY_CAT2(A, B)
#define NTPSIM_STRATEGY_STR2(A) #A
#define NTPSIM_STRATEGY_STR(A) NTPSIM_STRATEGY_STR2(A)

#ifdef NTPSIM_STRATEGY_FILE
// The file's anchor (see the header comment).
void NTPSIM_STRATEGY_CAT(ntpsim_strategy_file_, NTPSIM_STRATEGY_FILE)();
void NTPSIM_STRATEGY_CAT(ntpsim_strategy_file_, NTPSIM_STRATEGY_FILE)() {}
#define NTPSIM_STRATEGY_FILE_NAME NTPSIM_STRATEGY_STR(NTPSIM_STRATEGY_FILE)
#else
#define NTPSIM_STRATEGY_FILE_NAME ""
#endif

// Use inside an unnamed namespace of a strategy file, once per strategy it defines; `PLUGIN` is
// an expression of type StrategyPlugin.
#define NTPSIM_REGISTER_STRATEGY(PLUGIN)                                                   \
  [[maybe_unused]] const bool NTPSIM_STRATEGY_CAT(ntpsim_strategy_registered_, __LINE__) = \
      ::ntpsim::sim::register_strategy(NTPSIM_STRATEGY_FILE_NAME, PLUGIN);
