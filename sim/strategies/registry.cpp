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
    r.infos.push_back(p.info);
  }
  return r;
}

const Registry& registry() {
  static const Registry kRegistry = build();
  return kRegistry;
}

}  // namespace

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
