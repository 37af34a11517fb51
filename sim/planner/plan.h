// A capacity plan (`ntpsim plan`, DESIGN.md §6): the search space, the target and the
// prices, read strictly from a plan YAML file.
//
// A plan names a base scenario (a path relative to the plan file) and `--set`-style overrides for
// it; every candidate is that scenario loaded again with the candidate's own overrides, so every
// candidate passes the scenario loader's full validation. `read_plan` never throws: bad input is
// one Error "file:line:col: field.path: what is wrong" with exit code 2.
// Ownership: plain values. Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "sim/scenario/loader.h"

namespace ntpsim::sim {

// One strategy family of the search: a registered strategy (policy chains included), and for a
// strategy with max_power (ntp_power_boost, spares_then_ntp_power_boost) its cap.
struct PlanStrategy {
  std::string name;             // registered strategy name, or a user chain's own name
  std::optional<double> cap;    // max_power (fraction above TDP), where the strategy has one
  std::string resume;           // its `resume` mechanism; "" = the strategy's default
  // A strategy written as a scenario's strategies entry (a map: a user's policy chain, or a
  // registered strategy with parameters), as one line of flow YAML that reads back as the same
  // entry (strategy_entry.h); "" for the short form name[@cap][/resume].
  std::string entry;
  std::string entry_label;    // that entry's label
  std::string label() const;  // "ntp_power_boost@30%/in_place", "ntp", a chain's label ...
};

struct PlanSearch {
  std::vector<std::string> hardware;     // profile names; empty = the base scenario's
  std::vector<int> domains;              // cluster sizes in domains (required)
  std::vector<int> spare_domains;        // empty = the base scenario's
  std::vector<int> tp;                   // empty = the base scenario's; tp < G leaves in-domain spares
  std::vector<int> pp;                   // empty = the base scenario's
  std::vector<int> dp;                   // empty = derive: the most replicas the domains hold
  std::vector<PlanStrategy> strategies;  // required
  std::vector<double> checkpoint_interval_s;  // 0 = auto (Young/Daly); empty = the base's
  // `layout: auto`: TP, PP and DP chosen per hardware x domains by the analytic step model
  // (models/layout_search.h, filling the domains); then tp, pp and dp are not given. At the
  // base's CP; where no layout fits at it, CP is chosen as well.
  bool layout_auto = false;
  // `cp: auto` (with layout: auto): CP chosen with TP, PP and DP for the most tokens/s, always.
  bool cp_auto = false;
};

struct PlanTarget {
  double tokens = 0;        // token budget (with deadline_s), or 0 with goodput
  double deadline_s = 0;    // time to train must not exceed this at `confidence`
  double goodput = 0;       // goodput floor (fraction) over the base scenario's horizon
  double confidence = 0.9;  // required probability of meeting the target
  bool time_to_train() const { return tokens > 0; }
};

struct PlanPrices {
  double gpu_hour = 0;        // $ per GPU-hour; 0 when rack capex is given instead
  double rack_capex = 0;      // $ per domain (rack), spread over `amortisation_s`
  double amortisation_s = 0;  // with rack_capex
  double spare_factor = 1.0;  // a spare domain costs this share of an active one
  double energy_per_mwh = 0;  // $ per MWh
  // $ per hour of one active domain of `gpus_per_domain` GPUs.
  double domain_hour(int gpus_per_domain) const {
    return gpu_hour > 0 ? gpu_hour * gpus_per_domain : rack_capex / (amortisation_s / 3600.0);
  }
};

struct PlanConfirm {
  int min_replications = 16;   // first Monte Carlo batch per finalist
  int max_replications = 128;  // doubling batches up to this (at least min_replications)
  int max_finalists = 8;       // Monte Carlo confirmations per strategy family at most
  double screen_margin = 1.3;  // prune when the closed form misses the target by this factor
};

struct Plan {
  std::string file;       // the plan file
  std::string name;
  std::string description;
  std::string base;       // base scenario path, resolved against the plan's folder
  std::vector<std::string> overrides;
  // Where each override's text starts in the plan file (same index), so that an error in it
  // names the plan's file, line and column.
  std::vector<SourceLocation> override_locations;
  PlanSearch search;
  PlanTarget target;
  PlanPrices prices;
  PlanConfirm confirm;
  std::optional<uint64_t> seed;
};

Result<Plan> read_plan(const std::string& path);

// Loading the plan's base: its overrides (located in the plan file) and then `more` (overrides the
// planner generates for a candidate).
LoadOptions base_load_options(const Plan& plan, const std::vector<std::string>& more = {});

}  // namespace ntpsim::sim
