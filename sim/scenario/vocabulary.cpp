// The vocabularies provided by the layers above the scenario reader (vocabulary.h).
#include "sim/scenario/vocabulary.h"

#include "models/base/check.h"

namespace ntpsim::sim {
namespace {

// Function-local statics: provision runs during static initialisation, in any order of
// translation units, and reads come later.
StrategyVocabulary& strategies() {
  static StrategyVocabulary v;
  return v;
}

TraceVocabulary& traces() {
  static TraceVocabulary v;
  return v;
}

}  // namespace

bool provide_strategy_vocabulary(const StrategyVocabulary& v) {
  NTPSIM_CHECK_MSG(strategies().strategy_names == nullptr, "strategy vocabulary provided twice");
  NTPSIM_CHECK(v.strategy_names != nullptr && v.strategy_params != nullptr &&
               v.chain_action != nullptr && v.check_chain != nullptr &&
               v.chain_resume_params != nullptr && v.check_resume != nullptr);
  strategies() = v;
  return true;
}

bool provide_trace_vocabulary(const TraceVocabulary& v) {
  NTPSIM_CHECK_MSG(traces().format_names == nullptr, "trace vocabulary provided twice");
  NTPSIM_CHECK(v.format_names != nullptr);
  traces() = v;
  return true;
}

const StrategyVocabulary& strategy_vocabulary() {
  NTPSIM_CHECK_MSG(strategies().strategy_names != nullptr,
                   "no strategy vocabulary: link ntpsim_sim_strategies (ntpsim_sim)");
  return strategies();
}

const TraceVocabulary& trace_vocabulary() {
  NTPSIM_CHECK_MSG(traces().format_names != nullptr,
                   "no trace vocabulary: link ntpsim_sim_failures (ntpsim_sim)");
  return traces();
}

}  // namespace ntpsim::sim
