// What `ntpsim plan` writes: the terminal table, the plan results JSON (kind "plan", documented in
// docs/results-schema.md) and the per-candidate CSV (tidy: no comment lines, loads with a plain
// pandas.read_csv).
// Everything is a function of the plan result only (no wall time, host or thread count), so the
// bytes are identical for any thread count. Thread safety: pure functions.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sim/planner/planner.h"

namespace ntpsim::sim {

// The answer first: the pick (the cheapest confirmed candidate), its cost margin over the
// runner-up (the cheapest confirmed candidate of another family) with a 95% CI, and whether
// that margin can be told from zero. Written as "verdict" in the plan document.
struct PlanVerdict {
  int best = -1;
  int runner_up = -1;                     // -1 when no other family meets the target
  double margin = std::nan("");           // $: runner-up cost - pick cost
  double margin_relative = std::nan("");  // margin / pick cost
  double margin_ci95_lo = std::nan("");
  double margin_ci95_hi = std::nan("");
  bool tied = false;  // the CI contains 0 (or there is no CI)
};
std::optional<PlanVerdict> plan_verdict(const PlanResult& r);

std::string plan_table(const PlanResult& r);
nlohmann::ordered_json plan_document(const PlanResult& r);
std::string plan_csv(const PlanResult& r);

}  // namespace ntpsim::sim
