// The strategy registry (registry.h, plugin.h): collects the plug-ins registered during static
// initialisation and fixes their order on first read.
#include "sim/strategies/registry.h"

#include <algorithm>
#include <map>

#include "models/base/check.h"
#include "sim/strategies/plugin.h"

// The files listed by `ntpsim_strategy()` lines, in CMake order (generated at configure time):
// one NTPSIM_STRATEGY_FILE_ENTRY(stem) each.
#define NTPSIM_STRATEGY_FILE_ENTRY(stem) void ntpsim_strategy_file_##stem();
#include "sim/strategies/strategy_files.inc"
#undef NTPSIM_STRATEGY_FILE_ENTRY

namespace ntpsim::sim {
namespace {

struct Pending {
  std::string file;
  int sequence = 0;  // registration order (ordered within a file by the language)
  StrategyPlugin plugin;
};

struct State {
  std::vector<Pending> pending;
  bool frozen = false;
};

State& state() {
  static State s;
  return s;
}

// The built-in files in CMake order; calling each anchor keeps its object file in a static link.
std::vector<std::string> listed_files() {
  std::vector<std::string> files;
#define NTPSIM_STRATEGY_FILE_ENTRY(stem) \
  ntpsim_strategy_file_##stem();         \
  files.emplace_back(#stem);
#include "sim/strategies/strategy_files.inc"
#undef NTPSIM_STRATEGY_FILE_ENTRY
  return files;
}

struct Registry {
  std::vector<StrategyPlugin> plugins;
  std::vector<StrategyInfo> infos;
  std::map<std::string, size_t, std::less<>> index;
};

Registry build() {
  State& st = state();
  st.frozen = true;
  const auto files = listed_files();
  auto rank = [&](const Pending& p) {
    const auto it = std::find(files.begin(), files.end(), p.file);
    return static_cast<size_t>(it - files.begin());  // files.size() when not listed
  };
  std::vector<Pending> all = st.pending;
  std::stable_sort(all.begin(), all.end(), [&](const Pending& a, const Pending& b) {
    const size_t ra = rank(a), rb = rank(b);
    if (ra != rb) return ra < rb;
    if (ra == files.size()) return a.plugin.info.name < b.plugin.info.name;
    return a.sequence < b.sequence;
  });
  Registry r;
  std::vector<std::string> fallbacks;
  for (auto& p : all) {
    NTPSIM_CHECK_MSG(p.plugin.make != nullptr, "a registered strategy has no factory");
    NTPSIM_CHECK_MSG(p.plugin.screen != nullptr, "a registered strategy has no screen hook");
    NTPSIM_CHECK_MSG(!r.index.count(p.plugin.info.name), "a strategy name is registered twice");
    r.index.emplace(p.plugin.info.name, r.plugins.size());
    if (p.plugin.serves_as_fallback) fallbacks.push_back(p.plugin.info.name);
    r.plugins.push_back(std::move(p.plugin));
  }
  for (auto& p : r.plugins) {
    for (auto& spec : p.info.params) {
      if (spec.choices_are_fallbacks) spec.choices = fallbacks;
    }
    for (auto& spec :
         resume_param_specs(p.restarts_always ? "restart_from_checkpoint" : p.default_resume,
                            !p.restarts_always)) {
      p.info.params.push_back(std::move(spec));
    }
    r.infos.push_back(p.info);
  }
  return r;
}

const Registry& registry() {
  static const Registry kRegistry = build();
  return kRegistry;
}

std::vector<std::string> registered_names() {
  std::vector<std::string> names;
  for (const auto& info : registry().infos) names.push_back(info.name);
  return names;
}

const std::vector<ParamSpec>* registered_params(const std::string& name) {
  const StrategyInfo* info = find_strategy(name);
  return info == nullptr ? nullptr : &info->params;
}

// The scenario reader's view of the registry (sim/scenario/vocabulary.h). The registry is read
// only when a scenario is, after static initialisation, so later registrations still count.
[[maybe_unused]] const bool kVocabularyProvided = provide_strategy_vocabulary({
    .strategy_names = &registered_names,
    .strategy_params = &registered_params,
    .chain_action = &find_chain_action,
    .check_chain = &check_chain,
    .chain_resume_params = &chain_resume_param_specs,
    .check_resume = &check_resume,
});

}  // namespace

// Named by a `--undefined` link option of ntpsim_sim_strategies (CMakeLists.txt): a static link
// keeps this file, and with it the vocabulary above, in every binary that links the strategies,
// including those that only read scenarios.
extern "C" void ntpsim_strategy_vocabulary_anchor() {}

std::vector<ParamSpec> resume_param_specs(const std::string& default_resume,
                                          bool in_place_possible) {
  std::vector<std::string> mechanisms = {"restart_from_checkpoint", "restart_from_memory"};
  if (in_place_possible) mechanisms.emplace_back("in_place");
  NTPSIM_CHECK(std::find(mechanisms.begin(), mechanisms.end(), default_resume) != mechanisms.end());
  return {
      {"resume", ParamKind::kChoice,
       in_place_possible
           ? "how the job resumes after an interruption: restart_from_checkpoint (roll back to "
             "the persistent checkpoint), restart_from_memory (to the in-memory snapshot, "
             "checkpoint.memory) or in_place (no restart; loses the in-flight iteration)"
           : "how the job resumes after an interruption: restart_from_checkpoint (roll back to "
             "the persistent checkpoint) or restart_from_memory (to the in-memory snapshot, "
             "checkpoint.memory); this strategy has no action that can run in place",
       "", default_resume, 0, 0, mechanisms},
      {"state_copy",
       ParamKind::kChoice,
       "with resume: in_place, where the lost GPU's optimizer shard is found: peer (a second "
       "copy of each shard on a GPU of another DP replica), replicated (optimizer not sharded "
       "over DP) or none (the distributed optimizer's single copy: refused unless "
       "allow_lost_state); the copy's memory enters the memory model",
       "",
       "peer",
       0,
       0,
       {"peer", "replicated", "none"}},
      {"allow_lost_state",
       ParamKind::kBool,
       "run resume: in_place with state_copy: none anyway; the result then assumes optimizer "
       "state that would be lost (a warning says so)",
       "",
       "false",
       0,
       0,
       {}},
  };
}

std::vector<ParamSpec> chain_resume_param_specs(const std::vector<std::string>& actions) {
  const bool restart_only = actions.size() == 1 && actions.front() == "restart";
  return resume_param_specs(restart_only ? "restart_from_checkpoint" : "in_place", !restart_only);
}

std::optional<std::pair<std::string, std::string>> check_resume(
    const std::map<std::string, ParamValue>& params) {
  const auto text = [&](const char* key, const char* fallback) -> std::string {
    const auto it = params.find(key);
    return it != params.end() && std::holds_alternative<std::string>(it->second)
               ? std::get<std::string>(it->second)
               : fallback;
  };
  const auto allow = params.find("allow_lost_state");
  const bool allowed = allow != params.end() && std::holds_alternative<bool>(allow->second) &&
                       std::get<bool>(allow->second);
  if (text("resume", "") == "in_place" && text("state_copy", "peer") == "none" && !allowed) {
    return std::pair<std::string, std::string>{
        "state_copy",
        "none with resume: in_place: the distributed optimizer keeps each optimizer shard on one "
        "GPU only, so a failed GPU's shard exists nowhere else and the job cannot go on in place; "
        "choose state_copy: peer or replicated (their memory enters the memory model), a restart "
        "mechanism, or allow_lost_state: true to run anyway with a warning"};
  }
  return std::nullopt;
}

bool register_strategy(const char* file, StrategyPlugin plugin) {
  State& st = state();
  NTPSIM_CHECK_MSG(!st.frozen, "a strategy registered after the registry was first read");
  const int sequence = static_cast<int>(st.pending.size());
  st.pending.push_back(Pending{file, sequence, std::move(plugin)});
  return true;
}

const std::vector<StrategyInfo>& strategy_registry() {
  return registry().infos;
}

const StrategyInfo* find_strategy(const std::string& name) {
  const StrategyPlugin* p = find_strategy_plugin(name);
  return p == nullptr ? nullptr
                      : &registry().infos[static_cast<size_t>(p - registry().plugins.data())];
}

const StrategyPlugin* find_strategy_plugin(const std::string& name) {
  const Registry& r = registry();
  const auto it = r.index.find(name);
  return it == r.index.end() ? nullptr : &r.plugins[it->second];
}

}  // namespace ntpsim::sim
