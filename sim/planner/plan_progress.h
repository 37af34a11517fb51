// What `ntpsim plan --resume FILE` keeps in its progress file (sim/io/progress.h): the identity
// of a plan run, and one record per finished finalist confirmation, written by the planner's
// PlanResume::record hook and read back instead of running the Monte Carlo again (planner.h).
// Ownership: plain values. Thread safety: pure functions (plan_identity reads the plan file).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "models/base/status.h"
#include "sim/planner/plan.h"
#include "sim/planner/planner.h"

namespace ntpsim::sim {

// The plan's part of its progress file identity (the command adds the tool version and git SHA):
// {"plan_hash": FNV-1a 64 of the plan file's bytes, "scenario_hash": the base scenario after the
// plan's overrides, "seed": the one the candidates use}. Thread and rank counts are not part of
// it. Errors: the base scenario's load error; runtime when the plan file is unreadable.
Result<nlohmann::ordered_json> plan_identity(const Plan& plan);

// The record of candidate `c`'s finished confirmation: describe(c), every Monte Carlo field of
// Candidate (doubles exact), its status and reason, and the Monte Carlo runs and replications
// the confirmation consumed.
nlohmann::ordered_json confirmation_record(const Candidate& c, int runs, int64_t replications);

// Reads `data` (a confirmation_record) into `c`'s Monte Carlo fields, status and reason, and adds
// the consumed runs and replications to `runs` and `replications`. The recorded description must
// be describe(c) and the replications within `confirm`'s batch range. Errors: bad input
// "<where>.<field>: what is wrong".
Status read_confirmation_record(const nlohmann::ordered_json& data, const std::string& where,
                                const PlanConfirm& confirm, Candidate& c, int& runs,
                                int64_t& replications);

}  // namespace ntpsim::sim
