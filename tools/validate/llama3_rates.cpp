#include "tools/validate/llama3_rates.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include "models/base/time.h"
#include "sim/failures/failure_source.h"
#include "sim/failures/fit.h"
#include "sim/failures/trace.h"
#include "tools/validate/studies.h"

namespace ntpsim::validate {

namespace {

// Which log kind and (for hardware) component each of the table's 18 causes counts towards. The
// table's own categories decide where they can: GPU and Host causes are hardware of those
// components, Network is hardware of the network; Software Bug and Dependency are software;
// NCCL watchdog timeouts (category Unknown) are software as in scenarios/failures/llama3.yaml
// (a collective that hangs is seen by the training software); unplanned host maintenance is the
// log's "Other Failure" (taking a host out of service for a check, like the log's stress tests,
// changes and troubleshooting), not a software fault.
struct Mapped {
  const char* kind;
  const char* component;  // "" outside hardware
};
const std::map<std::string, Mapped, std::less<>>& table_map() {
  static const std::map<std::string, Mapped, std::less<>> m = {
      {"Faulty GPU", {"Hardware Failure", "GPU"}},
      {"GPU HBM3 Memory", {"Hardware Failure", "GPU"}},
      {"GPU SRAM Memory", {"Hardware Failure", "GPU"}},
      {"GPU System Processor", {"Hardware Failure", "GPU"}},
      {"Silent Data Corruption", {"Hardware Failure", "GPU"}},
      {"GPU Thermal Interface + Sensor", {"Hardware Failure", "GPU"}},
      {"Network Switch/Cable", {"Hardware Failure", "network"}},
      {"NIC", {"Hardware Failure", "host"}},
      {"SSD", {"Hardware Failure", "host"}},
      {"Power Supply", {"Hardware Failure", "host"}},
      {"Server Chassis", {"Hardware Failure", "host"}},
      {"IO Expansion Board", {"Hardware Failure", "host"}},
      {"CPU", {"Hardware Failure", "host"}},
      {"System Memory", {"Hardware Failure", "host"}},
      {"Software Bug", {"Software Failure", ""}},
      {"Dependency", {"Software Failure", ""}},
      {"NCCL Watchdog Timeouts", {"Software Failure", ""}},
      {"Host Maintenance", {"Other Failure", ""}},
  };
  return m;
}

// The InfiniteHBD log's hardware classes (fault_type.Class) by component: its GPU class, its
// parameter-plane (scale-out network) cables, and everything else in the server (NIC included,
// as the table counts NICs under Host).
const std::map<std::string, std::string, std::less<>>& log_hardware_map() {
  static const std::map<std::string, std::string, std::less<>> m = {
      {"GPU", "GPU"},
      {"Parameter Plane Cable", "network"},
      {"CPU", "host"},
      {"Fan", "host"},
      {"Motherboard", "host"},
      {"Motherboard Battery", "host"},
      {"NIC", "host"},
      {"Power Supply", "host"},
      {"RAID Card", "host"},
      {"Riser Card", "host"},
      {"Other Failures", "host"},
  };
  return m;
}

constexpr const char* kKinds[] = {"Hardware Failure", "Software Failure", "Other Failure"};
constexpr const char* kComponents[] = {"GPU", "network", "host"};

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

void compare_rates(int64_t a, double ea, int64_t b, double eb, RateComparison& out) {
  const sim::RateEstimate rb = sim::poisson_rate(b, eb);
  const sim::RateEstimate ra = sim::poisson_rate(a, 1.0);
  out.table_events = a;
  out.table_exposure_s = ea;
  out.log_events = b;
  out.log_exposure_s = eb;
  out.predicted = rb.per_s * ea;
  out.predicted_lo = rb.lo_per_s * ea;
  out.predicted_hi = rb.hi_per_s * ea;
  out.table_lo = ra.lo_per_s;
  out.table_hi = ra.hi_per_s;
  using boost::math::binomial_distribution;
  const auto n = static_cast<double>(a + b);
  const auto k = static_cast<double>(a);
  const double p_lo = binomial_distribution<double>::find_lower_bound_on_p(n, k, 0.025);
  const double p_hi = binomial_distribution<double>::find_upper_bound_on_p(n, k, 0.025);
  const auto to_ratio = [&](double p) {
    return p >= 1.0 ? std::numeric_limits<double>::infinity() : p / (1.0 - p) * eb / ea;
  };
  out.ratio = b == 0 ? std::numeric_limits<double>::infinity()
                     : (static_cast<double>(a) / ea) / (static_cast<double>(b) / eb);
  out.ratio_lo = to_ratio(p_lo);
  out.ratio_hi = to_ratio(p_hi);
  out.agrees = out.ratio_lo <= 1.0 && 1.0 <= out.ratio_hi;
}

Result<Llama3RateStudy> llama3_rate_study(const std::string& trace_scenario,
                                          const std::string& table_csv) {
  auto table = read_interruption_table(table_csv);
  if (!table.ok()) return table.error();
  auto p = prepare(trace_scenario, {});
  if (!p.ok()) return p.error();
  const sim::TraceData* trace = (*p)->trace().get();
  if (trace == nullptr) return Error::bad_input(trace_scenario + ": the scenario has no trace");
  sim::FitOptions o;
  o.nodes = (*p)->topology().units((*p)->scenario().failures.trace->component);
  o.bootstrap = 0;  // rates only: the laws' p-values do not enter
  auto fit = sim::fit_trace(*trace, o);
  if (!fit.ok()) return fit.error();

  Llama3RateStudy st;
  st.log_file = trace->file;
  st.log_nodes = fit->nodes;
  st.log_gpus_per_node = (*p)->scenario().cluster.gpus_per_node;
  st.log_span_s = fit->span_s;
  const double log_node_s = static_cast<double>(fit->nodes) * fit->span_s;
  const double table_node_s = static_cast<double>(kLlama3Hosts) * kLlama3Days * kSecondsPerDay;

  // The table grouped by kind and hardware component.
  std::map<std::string, int64_t> table_kind, table_comp;
  std::map<std::string, std::vector<std::string>> kind_causes, comp_causes;
  for (const InterruptionCause& c : *table) {
    const auto it = table_map().find(c.component);
    if (it == table_map().end()) {
      return Error::bad_input(
          fmt::format("{}:{}: component \"{}\": no log kind is mapped to this cause", table_csv,
                      c.line, c.component));
    }
    table_kind[it->second.kind] += c.count;
    kind_causes[it->second.kind].push_back(fmt::format("{} {}", c.component, c.count));
    if (*it->second.component != '\0') {
      table_comp[it->second.component] += c.count;
      comp_causes[it->second.component].push_back(fmt::format("{} {}", c.component, c.count));
    }
    st.table_total += c.count;
  }

  // The log by kind and, for hardware, by component.
  std::map<std::string, int64_t> log_kind, log_comp;
  std::map<std::string, std::vector<std::string>> log_kind_causes, log_comp_causes;
  int64_t log_total = 0;
  for (const sim::KindFit& k : fit->kinds) {
    log_kind[k.name] += k.faults;
    log_total += k.faults;
    for (const auto& [cause, r] : k.by_cause) {
      log_kind_causes[k.name].push_back(fmt::format("{} {}", cause, r.events));
      if (k.name != kKinds[0]) continue;
      const auto it = log_hardware_map().find(cause);
      if (it == log_hardware_map().end()) {
        return Error::bad_input(fmt::format(
            "{}: hardware class \"{}\": no component is mapped to it", trace->file, cause));
      }
      log_comp[it->second] += r.events;
      log_comp_causes[it->second].push_back(fmt::format("{} {}", cause, r.events));
    }
  }
  for (const char* kind : kKinds) {
    if (log_kind.count(kind) == 0) {
      return Error::bad_input(fmt::format("{}: the log has no kind \"{}\"", trace->file, kind));
    }
  }
  for (const auto& [kind, n] : log_kind) {
    if (std::find(std::begin(kKinds), std::end(kKinds), kind) == std::end(kKinds)) {
      return Error::bad_input(
          fmt::format("{}: kind \"{}\": no table cause is mapped to it", trace->file, kind));
    }
  }

  const auto add = [&](const std::string& group, const std::string& per, int64_t table_n,
                       double table_e, int64_t log_n, double log_e, const std::string& tc,
                       const std::string& lc) {
    RateComparison r;
    r.group = group;
    r.per = per;
    r.table_causes = tc;
    r.log_causes = lc;
    compare_rates(table_n, table_e, log_n, log_e, r);
    st.rows.push_back(std::move(r));
  };
  for (const char* kind : kKinds) {
    add(kind, "node", table_kind[kind], table_node_s, log_kind[kind], log_node_s,
        join(kind_causes[kind]), join(log_kind_causes[kind]));
  }
  add("all kinds", "node", st.table_total, table_node_s, log_total, log_node_s, "all 18 causes",
      "all classes");
  // GPU faults per GPU, so the comparison holds for servers of any GPU count; the others per
  // server (a switch, cable or server part is shared by the server's GPUs).
  const auto gpn_log = static_cast<double>(st.log_gpus_per_node);
  const auto gpn_table = static_cast<double>(kLlama3GpusPerHost);
  for (const char* comp : kComponents) {
    const bool gpu = std::string_view(comp) == "GPU";
    add(fmt::format("hardware: {}", comp), gpu ? "GPU" : "node", table_comp[comp],
        table_node_s * (gpu ? gpn_table : 1.0), log_comp[comp], log_node_s * (gpu ? gpn_log : 1.0),
        join(comp_causes[comp]), join(log_comp_causes[comp]));
  }
  return st;
}

Result<ProfileCounts> profile_event_counts(const std::string& base_scenario,
                                           const std::string& profile, double horizon_days,
                                           int reps) {
  // The profile is included over the scenario as a user's `include:` would (lists replace, so
  // its failures.processes replace the scenario's).
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / fmt::format("ntpsim-profile-{}", ::getpid());
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error::runtime("cannot create " + dir.string() + ": " + ec.message());
  std::ofstream(dir / "model.yaml")
      << fmt::format("include: [\"{}\", \"{}\"]\n", fs::absolute(base_scenario).string(),
                     fs::absolute(profile).string());
  auto p = prepare((dir / "model.yaml").string(), {fmt::format("horizon={}d", horizon_days)});
  fs::remove_all(dir, ec);
  if (!p.ok()) return p.error();
  ProfileCounts out;
  out.reps = reps;
  out.seed = (*p)->scenario().seed;
  for (int r = 0; r < reps; ++r) {
    auto src = (*p)->failure_source(static_cast<uint64_t>(r));
    if (!src.ok()) return src.error();
    if (r == 0) {
      out.kinds = src->kind_names();
      out.mean.assign(out.kinds.size(), 0.0);
    }
    sim::FailureEvent e;
    const auto end = (*p)->engine_config().end;
    while (src->next(e) && e.time < end) out.mean.at(e.kind) += 1.0 / reps;
  }
  return out;
}

}  // namespace ntpsim::validate
