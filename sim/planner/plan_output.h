// What `ntpsim plan` writes: the terminal table, the plan results JSON (kind "plan", documented in
// docs/results-schema.md) and the per-candidate CSV.
// Everything is a function of the plan result only (no wall time, host or thread count), so the
// bytes are identical for any thread count. Thread safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "sim/planner/planner.h"

namespace ntpsim::sim {

std::string plan_table(const PlanResult& r);
nlohmann::ordered_json plan_document(const PlanResult& r);
std::string plan_csv(const PlanResult& r);

}  // namespace ntpsim::sim
