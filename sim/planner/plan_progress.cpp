// The progress-file identity and records of `ntpsim plan --resume` (plan_progress.h).
#include "sim/planner/plan_progress.h"

#include <fmt/format.h>

#include <fstream>
#include <limits>
#include <sstream>
#include <utility>

#include "models/base/random.h"
#include "sim/io/progress.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"

namespace ntpsim::sim {
namespace {

using Json = nlohmann::ordered_json;

// The fields of one record; every error is bad input "<where>.<field>: ...".
class RecordReader {
 public:
  RecordReader(std::string where, const Json& data) : where_(std::move(where)), data_(data) {}

  Error error(const std::string& field, const std::string& what) const {
    return Error::bad_input(fmt::format("{}.{}: {}", where_, field, what));
  }

  Result<const Json*> field(const std::string& name) const {
    if (!data_.is_object()) return Error::bad_input(where_ + ": expected an object");
    const auto it = data_.find(name);
    if (it == data_.end()) return error(name, "missing");
    return &*it;
  }

  Result<double> number(const std::string& name) const {
    auto j = field(name);
    if (!j.ok()) return j.error();
    return read_exact_number(**j, where_ + "." + name);
  }

  Result<int64_t> integer(const std::string& name, int64_t lo, int64_t hi) const {
    auto j = field(name);
    if (!j.ok()) return j.error();
    if (!(*j)->is_number_integer()) return error(name, "expected an integer");
    const auto v = (*j)->get<int64_t>();
    if (v < lo || v > hi) return error(name, fmt::format("{} is not in {}..{}", v, lo, hi));
    return v;
  }

  Result<std::string> text(const std::string& name) const {
    auto j = field(name);
    if (!j.ok()) return j.error();
    if (!(*j)->is_string()) return error(name, "expected a string");
    return (*j)->get<std::string>();
  }

 private:
  std::string where_;
  const Json& data_;
};

}  // namespace

Result<nlohmann::ordered_json> plan_identity(const Plan& plan) {
  std::ifstream in(plan.file, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) return Error::runtime(fmt::format("{}: cannot read the plan file", plan.file));
  auto base = load_scenario(plan.base, base_load_options(plan));
  if (!base.ok()) return base.error();
  Json id;
  id["plan_hash"] = fmt::format("fnv1a64:{:016x}", fnv1a64(bytes.str()));
  id["scenario_hash"] = scenario_hash(*base);
  id["seed"] = plan.seed.value_or(base->seed);
  return id;
}

nlohmann::ordered_json confirmation_record(const Candidate& c, int runs, int64_t replications) {
  Json d;
  d["candidate"] = describe(c);
  d["replications"] = c.replications;
  d["p_meet"] = exact_number(c.p_meet);
  d["days_p50"] = exact_number(c.days_p50);
  d["days_q"] = exact_number(c.days_q);
  d["goodput_mean"] = exact_number(c.goodput_mean);
  d["goodput_q"] = exact_number(c.goodput_q);
  d["energy_mwh"] = exact_number(c.energy_mwh);
  d["cost"] = exact_number(c.cost);
  d["compute_cost"] = exact_number(c.compute_cost);
  d["energy_cost"] = exact_number(c.energy_cost);
  d["cost_ci95_lo"] = exact_number(c.cost_ci95_lo);
  d["cost_ci95_hi"] = exact_number(c.cost_ci95_hi);
  d["cost_sd"] = exact_number(c.cost_sd);
  d["status"] = to_string(c.status);
  d["reason"] = c.reason;
  d["monte_carlo_runs"] = runs;
  d["replications_run"] = replications;
  return d;
}

Status read_confirmation_record(const nlohmann::ordered_json& data, const std::string& where,
                                const PlanConfirm& confirm, Candidate& c, int& runs,
                                int64_t& replications) {
  const RecordReader r(where, data);
  auto name = r.text("candidate");
  if (!name.ok()) return name.error();
  if (*name != describe(c)) {
    return r.error("candidate", fmt::format("recorded for \"{}\", but this plan's is \"{}\"", *name,
                                            describe(c)));
  }
  const auto n = r.integer("replications", confirm.min_replications, confirm.max_replications);
  if (!n.ok()) return n.error();
  const auto used_runs = r.integer("monte_carlo_runs", 1, std::numeric_limits<int>::max());
  if (!used_runs.ok()) return used_runs.error();
  const auto used = r.integer("replications_run", *n, std::numeric_limits<int64_t>::max());
  if (!used.ok()) return used.error();
  const std::pair<const char*, double*> numbers[] = {
      {"p_meet", &c.p_meet},       {"days_p50", &c.days_p50},
      {"days_q", &c.days_q},       {"goodput_mean", &c.goodput_mean},
      {"goodput_q", &c.goodput_q}, {"energy_mwh", &c.energy_mwh},
      {"cost", &c.cost},
  };
  for (const auto& [field, dest] : numbers) {
    auto v = r.number(field);
    if (!v.ok()) return v.error();
    *dest = *v;
  }
  // The cost breakdown and CI came later: a record without them resumes with them unknown (NaN).
  const std::pair<const char*, double*> optional_numbers[] = {{"compute_cost", &c.compute_cost},
                                                              {"energy_cost", &c.energy_cost},
                                                              {"cost_ci95_lo", &c.cost_ci95_lo},
                                                              {"cost_ci95_hi", &c.cost_ci95_hi},
                                                              {"cost_sd", &c.cost_sd}};
  for (const auto& [field, dest] : optional_numbers) {
    if (!data.is_object() || !data.contains(field)) continue;
    auto v = r.number(field);
    if (!v.ok()) return v.error();
    *dest = *v;
  }
  if (!(c.p_meet >= 0 && c.p_meet <= 1)) return r.error("p_meet", "not a probability");
  auto status = r.text("status");
  if (!status.ok()) return status.error();
  if (*status == to_string(CandidateStatus::kConfirmed)) {
    c.status = CandidateStatus::kConfirmed;
  } else if (*status == to_string(CandidateStatus::kRefuted)) {
    c.status = CandidateStatus::kRefuted;
  } else {
    return r.error("status",
                   fmt::format("\"{}\" is neither \"confirmed\" nor \"refuted\"", *status));
  }
  auto reason = r.text("reason");
  if (!reason.ok()) return reason.error();
  c.reason = *reason;
  c.replications = static_cast<int>(*n);
  runs += static_cast<int>(*used_runs);
  replications += *used;
  return Status::Ok();
}

}  // namespace ntpsim::sim
