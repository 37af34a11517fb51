#include "sim/strategies/registry.h"

namespace ntpsim::sim {
namespace {

std::vector<ParamSpec> ntp_params() {
  return {
      {"rule", ParamKind::kChoice,
       "per_group: each damaged TP group runs at T-k; parity: every damaged replica runs at one "
       "shared degree T-max(k) (Megatron-LM's NTP)",
       "", "per_group", 0, 0, {"per_group", "parity"}},
      {"min_tp", ParamKind::kInt,
       "smallest TP degree a damaged group may run at; 0 = from the memory model", "GPUs", "0", 0,
       4096, {}},
      {"tp_step", ParamKind::kInt,
       "reduced degrees are rounded down to a multiple of this (2 = even degrees only)", "GPUs",
       "1", 1, 64, {}},
      {"keep_pace", ParamKind::kBool,
       "true: a damaged replica takes the largest batch share that keeps pace with healthy "
       "replicas; false: it keeps its full share and the whole job slows to its pace",
       "", "true", 0, 0, {}},
      {"pack", ParamKind::kBool,
       "pack damaged TP groups into as few DP replicas as possible at each reconfiguration", "",
       "true", 0, 0, {}},
  };
}

std::vector<StrategyInfo> build() {
  std::vector<StrategyInfo> r;
  r.push_back({"checkpoint_restart",
               "Any interrupting failure rolls back to the last checkpoint and restarts; needs "
               "R*P healthy TP groups, uses spare domains, else stalls until repairs",
               {{"use_spare_domains", ParamKind::kBool,
                 "replace failed domains with spare domains at restart", "", "true", 0, 0, {}}}});
  r.push_back({"dp_drop",
               "Damaged DP replicas leave; healthy domains are repacked into full replicas; "
               "repaired domains rejoin at the next reconfiguration",
               {{"keep_global_batch", ParamKind::kBool,
                 "true: remaining replicas carry the whole global batch (more accumulation, "
                 "slower iterations); false: the global batch shrinks with the replicas",
                 "", "true", 0, 0, {}},
                {"use_spare_domains", ParamKind::kBool,
                 "spare domains fill in for dropped ones at reconfiguration", "", "true", 0, 0,
                 {}}}});
  r.push_back({"spare_substitution",
               "A spare (in-domain GPU, or whole domain) replaces the failed unit after a swap "
               "pause; with no spare left, falls back to another strategy",
               {{"in_domain_spares", ParamKind::kBool,
                 "use the domain's idle GPUs (G mod T, e.g. 8 of 72 with TP 64) as spares", "",
                 "true", 0, 0, {}},
                {"spare_domains", ParamKind::kBool, "use spare domains", "", "true", 0, 0, {}},
                {"fallback", ParamKind::kChoice, "strategy used when no spare is left", "",
                 "checkpoint_restart", 0, 0, {"checkpoint_restart", "dp_drop", "ntp"}}}});
  auto ntp = ntp_params();
  ntp.push_back({"use_spare_domains", ParamKind::kBool,
                 "spare domains replace damaged domains at reconfiguration", "", "true", 0, 0, {}});
  r.push_back({"ntp",
               "Nonuniform TP: a damaged TP group runs at a reduced degree with a smaller batch "
               "share; healthy replicas reshard gradients on the DP sync",
               ntp});
  auto boost = ntp;
  boost.push_back({"max_power", ParamKind::kFraction,
                   "per-GPU power cap of boosted GPUs, above TDP", "fraction of TDP", "30%", 0, 2,
                   {}});
  boost.push_back({"domain_budget", ParamKind::kBool,
                   "limit a boosted domain to its nominal power budget, including the failed "
                   "GPUs' freed share",
                   "", "true", 0, 0, {}});
  r.push_back({"ntp_power_boost",
               "NTP, and the surviving GPUs of damaged domains run at higher power (up to a cap) "
               "to keep their full batch share; energy is accounted",
               boost});
  return r;
}

}  // namespace

const std::vector<StrategyInfo>& strategy_registry() {
  static const std::vector<StrategyInfo> kRegistry = build();
  return kRegistry;
}

const StrategyInfo* find_strategy(const std::string& name) {
  for (const auto& s : strategy_registry()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace ntpsim::sim
