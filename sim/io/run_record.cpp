#include "sim/io/run_record.h"

#include <fmt/format.h>

#include <type_traits>

#include "sim/cluster/layout.h"
#include "sim/io/progress.h"
#include "sim/scenario/printer.h"

namespace ntpsim::sim {
namespace {

using ojson = nlohmann::ordered_json;

// Reads key `k` of object `o` with `get`, or a bad-input error naming `where`.
template <typename T>
Result<T> field(const ojson& o, const char* k, const std::string& where) {
  if (!o.is_object() || !o.contains(k)) {
    return Error::bad_input(fmt::format("{}: the record has no '{}'", where, k));
  }
  const ojson& v = o.at(k);
  if constexpr (std::is_same_v<T, std::string>) {
    if (v.is_string()) return v.get<std::string>();
  } else if constexpr (std::is_same_v<T, double>) {
    return read_exact_number(v, fmt::format("{}: {}", where, k));
  } else {
    if (v.is_number_integer() || v.is_number_unsigned()) return v.get<T>();
  }
  return Error::bad_input(fmt::format("{}: '{}' has the wrong type ({})", where, k, v.dump()));
}

}  // namespace

ojson run_record(const Scenario& s, const RunResult& r) {
  ojson j;
  j["scenario_hash"] = scenario_hash(s);
  j["replications"] = r.replications;
  j["step_model"] = r.step_model;
  j["checkpoint_interval_s"] = exact_number(r.checkpoint_interval_s);
  j["ideal_tokens_per_s"] = exact_number(r.ideal_tokens_per_s);
  j["horizon_s"] = exact_number(r.horizon_s);
  j["events"] = r.events;
  j["warnings"] = r.warnings;
  ojson strategies = ojson::array();
  for (const auto& st : r.strategies) {
    ojson one;
    one["name"] = st.name;
    one["label"] = st.label;
    one["checkpoint_interval_s"] = exact_number(st.checkpoint_interval_s);
    one["resume"] = st.resume;
    ojson reps = ojson::array();
    for (const auto& m : st.replications) {
      ojson row = ojson::array();
      for (const double v : m) row.push_back(exact_number(v));
      reps.push_back(std::move(row));
    }
    one["replications"] = std::move(reps);
    strategies.push_back(std::move(one));
  }
  j["strategies"] = std::move(strategies);
  return j;
}

Result<RunResult> read_run_record(const ojson& record, const Scenario& s,
                                  const std::string& where) {
  RunResult r;
  auto hash = field<std::string>(record, "scenario_hash", where);
  if (!hash.ok()) return hash.error();
  if (*hash != scenario_hash(s)) {
    return Error::bad_input(fmt::format(
        "{}: recorded for scenario hash {}, but the scenario now hashes to {} (a scenario, "
        "include or profile file changed since); delete the progress file to start over",
        where, *hash, scenario_hash(s)));
  }
  auto layout = JobLayout::make(s);
  if (!layout.ok()) return layout.error();
  r.layout = *layout;
  auto reps = field<int>(record, "replications", where);
  if (!reps.ok()) return reps.error();
  auto model = field<std::string>(record, "step_model", where);
  if (!model.ok()) return model.error();
  auto interval = field<double>(record, "checkpoint_interval_s", where);
  if (!interval.ok()) return interval.error();
  auto rate = field<double>(record, "ideal_tokens_per_s", where);
  if (!rate.ok()) return rate.error();
  auto horizon = field<double>(record, "horizon_s", where);
  if (!horizon.ok()) return horizon.error();
  auto events = field<uint64_t>(record, "events", where);
  if (!events.ok()) return events.error();
  r.replications = *reps;
  r.step_model = *model;
  r.checkpoint_interval_s = *interval;
  r.ideal_tokens_per_s = *rate;
  r.horizon_s = *horizon;
  r.events = *events;
  const ojson& warnings = record.contains("warnings") ? record.at("warnings") : ojson();
  if (!warnings.is_array()) return Error::bad_input(where + ": 'warnings' is not a list");
  for (const auto& w : warnings) {
    if (!w.is_string()) return Error::bad_input(where + ": a warning is not a string");
    r.warnings.push_back(w.get<std::string>());
  }
  const ojson& strategies = record.contains("strategies") ? record.at("strategies") : ojson();
  if (!strategies.is_array() || strategies.size() != s.strategies.size()) {
    return Error::bad_input(fmt::format("{}: expected {} strategies in the record", where,
                                        s.strategies.size()));
  }
  for (size_t k = 0; k < strategies.size(); ++k) {
    const ojson& one = strategies[k];
    const std::string at = fmt::format("{}: strategies[{}]", where, k);
    StrategyRun st;
    auto name = field<std::string>(one, "name", at);
    auto label = field<std::string>(one, "label", at);
    if (!name.ok()) return name.error();
    if (!label.ok()) return label.error();
    auto st_interval = field<double>(one, "checkpoint_interval_s", at);
    if (!st_interval.ok()) return st_interval.error();
    st.name = *name;
    st.label = *label;
    st.checkpoint_interval_s = *st_interval;
    if (one.contains("resume")) {  // absent in records of earlier versions
      auto resume = field<std::string>(one, "resume", at);
      if (!resume.ok()) return resume.error();
      st.resume = *resume;
    }
    const ojson& rows = one.contains("replications") ? one.at("replications") : ojson();
    if (!rows.is_array() || rows.size() != static_cast<size_t>(r.replications)) {
      return Error::bad_input(
          fmt::format("{}: expected {} replication rows", at, r.replications));
    }
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i].is_array() || rows[i].size() != kMetricCount) {
        return Error::bad_input(
            fmt::format("{}: replication {}: expected {} metric values", at, i, kMetricCount));
      }
      ReplicationMetrics m{};
      for (size_t q = 0; q < kMetricCount; ++q) {
        auto v = read_exact_number(rows[i][q], fmt::format("{}: replication {}", at, i));
        if (!v.ok()) return v.error();
        m[q] = *v;
      }
      st.replications.push_back(m);
    }
    r.strategies.push_back(std::move(st));
  }
  return r;
}

}  // namespace ntpsim::sim
