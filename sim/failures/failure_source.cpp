#include "sim/failures/failure_source.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include "models/base/check.h"
#include "sim/failures/process.h"
#include "sim/failures/trace.h"

namespace ntpsim::sim {
namespace {

Error bad(const std::string& path, const std::string& what) { return Error::bad_input(path + ": " + what); }

// A looped trace may yield at most this many events per replication (the scenario loader's bound
// for the stochastic processes); beyond it a run would not finish (limits).
constexpr double kMaxLoopedTraceEvents = 1e7;

bool finite_nonneg(double v) { return std::isfinite(v) && v >= 0.0; }

// Shape limits (the scenario loader's ranges): outside them Gamma(1 + 1/k) overflows or the law
// degenerates. Inside them a lifetime can still round to ~0; process.cpp floors lifetimes at one
// microsecond so simulated time always advances.
constexpr const char* kWeibullRange = "weibull shape must be in [0.05, 100]";
constexpr const char* kSigmaRange = "lognormal sigma must be in (0, 100]";
bool weibull_shape_ok(double k) { return k >= 0.05 && k <= 100.0; }
bool sigma_ok(double sigma) { return sigma > 0.0 && sigma <= 100.0; }

Status validate_repair(const RepairDist& r, const std::string& path) {
  const std::string& d = r.distribution;
  if (d != "fixed" && d != "exponential" && d != "lognormal" && d != "weibull" && d != "empirical") {
    return bad(path + ".distribution", "unknown repair distribution '" + d +
                                           "' (expected fixed, exponential, lognormal, weibull or empirical)");
  }
  if (d == "empirical") {
    if (r.values_s.empty()) return bad(path + ".values", "empirical repair needs at least one value");
    for (size_t i = 0; i < r.values_s.size(); ++i) {
      if (!finite_nonneg(r.values_s[i])) {
        return bad(path + ".values[" + std::to_string(i) + "]", "must be a finite duration >= 0");
      }
    }
    return Status::Ok();
  }
  if (!finite_nonneg(r.mean_s)) return bad(path + ".mean", "must be a finite duration >= 0");
  if (d == "lognormal" && !sigma_ok(r.sigma)) return bad(path + ".sigma", kSigmaRange);
  if (d == "weibull" && !weibull_shape_ok(r.shape)) return bad(path + ".shape", kWeibullRange);
  return Status::Ok();
}

// Units of class c whose blast radius meets GPUs [0, job_gpus): units are numbered so that these
// are units [0, k), and k is found by binary search over the contiguous, increasing radii.
int64_t units_meeting_job(const Topology& t, Component c, int64_t job_gpus) {
  int64_t lo = 0, hi = t.units(c);
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (t.blast_radius(c, mid).first < job_gpus) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace

Status validate_process(const FailureProcess& p, const std::string& path) {
  if (!finite_nonneg(p.rate_per_unit_s)) return bad(path + ".rate", "must be a finite rate >= 0");
  const std::string& d = p.distribution;
  if (d != "exponential" && d != "weibull" && d != "lognormal" && d != "hawkes") {
    return bad(path + ".distribution",
               "unknown inter-arrival distribution '" + d +
                   "' (expected exponential, weibull, lognormal or hawkes)");
  }
  if (d == "hawkes") {
    if (!(p.branching >= 0.0 && p.branching < 1.0)) {
      return bad(path + ".excitation.branching", "must be in [0, 1) (1 or more never settles)");
    }
    if (!(std::isfinite(p.excitation_mean_s) && p.excitation_mean_s > 0.0)) {
      return bad(path + ".excitation.mean_delay", "must be a finite duration > 0");
    }
    if (!(p.slow_branching >= 0.0 && p.branching + p.slow_branching < 1.0)) {
      return bad(path + ".excitation.slow_branching",
                 "must be >= 0 with branching + slow_branching < 1 (1 or more never settles)");
    }
    if (p.slow_branching > 0.0 &&
        !(std::isfinite(p.slow_excitation_mean_s) && p.slow_excitation_mean_s > 0.0)) {
      return bad(path + ".excitation.slow_mean_delay", "must be a finite duration > 0");
    }
    if (p.regime_high_share != 0.0) {
      if (!(p.regime_high_share > 0.0 && p.regime_high_share < 1.0)) {
        return bad(path + ".regime.high_share", "must be in (0, 1)");
      }
      if (!(std::isfinite(p.regime_rate_ratio) && p.regime_rate_ratio >= 1.0)) {
        return bad(path + ".regime.rate_ratio", "must be a finite ratio >= 1");
      }
      if (!(std::isfinite(p.regime_high_mean_s) && p.regime_high_mean_s > 0.0)) {
        return bad(path + ".regime.high_mean_duration", "must be a finite duration > 0");
      }
      if (!(std::isfinite(p.regime_low_repair_scale) && p.regime_low_repair_scale > 0.0)) {
        return bad(path + ".regime.low_repair_scale", "must be a finite scale > 0");
      }
      if (!(std::isfinite(p.regime_high_repair_scale) && p.regime_high_repair_scale > 0.0)) {
        return bad(path + ".regime.high_repair_scale", "must be a finite scale > 0");
      }
      if (p.regime_state_repairs) {
        NTPSIM_RETURN_IF_ERROR(validate_repair(p.regime_repair[0], path + ".regime.low_repair"));
        NTPSIM_RETURN_IF_ERROR(validate_repair(p.regime_repair[1], path + ".regime.high_repair"));
      }
    }
  } else if (p.regime_high_share != 0.0) {
    return bad(path + ".regime", "regime applies only to distribution: hawkes");
  }
  if (d == "weibull" && !weibull_shape_ok(p.shape)) return bad(path + ".shape", kWeibullRange);
  if (d == "lognormal" && !sigma_ok(p.shape)) return bad(path + ".shape", kSigmaRange);
  if (p.kinds.empty()) return bad(path + ".kinds", "needs at least one kind");
  double total = 0.0;
  for (size_t i = 0; i < p.kinds.size(); ++i) {
    const std::string kp = path + ".kinds[" + std::to_string(i) + "]";
    if (!finite_nonneg(p.kinds[i].share)) return bad(kp + ".share", "must be a finite share >= 0");
    total += p.kinds[i].share;
    NTPSIM_RETURN_IF_ERROR(validate_repair(p.kinds[i].repair, kp + ".repair"));
  }
  if (std::fabs(total - 1.0) > 1e-6) {
    return bad(path + ".kinds", "shares sum to " + std::to_string(total) + ", expected 1");
  }
  if (!(p.lemon_fraction >= 0.0 && p.lemon_fraction <= 1.0)) return bad(path + ".lemon_fraction", "must be in [0, 1]");
  if (!finite_nonneg(p.lemon_multiplier)) return bad(path + ".lemon_multiplier", "must be a finite number >= 0");
  if (!(p.burst_probability >= 0.0 && p.burst_probability <= 1.0)) {
    return bad(path + ".burst_probability", "must be in [0, 1]");
  }
  if (p.burst_size < 1) return bad(path + ".burst_size", "must be at least 1");
  for (size_t i = 0; i < p.burst_sizes.size(); ++i) {
    if (p.burst_sizes[i] < 1) {
      return bad(path + ".burst_sizes[" + std::to_string(i) + "]", "must be at least 1");
    }
  }
  if (p.has_partner_delays()) {
    if (!(p.burst_probability > 0.0 && p.largest_burst_size() > 1)) {
      return bad(path + ".partner_delays", "partner delays need a burst");
    }
    if (!(p.partner_at_once_share >= 0.0 && p.partner_at_once_share <= 1.0)) {
      return bad(path + ".partner_delays.at_once", "must be in [0, 1]");
    }
    if (!(std::isfinite(p.partner_delay_after_s) && p.partner_delay_after_s >= 0.0)) {
      return bad(path + ".partner_delays.after", "must be a finite duration >= 0");
    }
    if (!(std::isfinite(p.partner_delay_mean_s) &&
          p.partner_delay_mean_s > p.partner_delay_after_s)) {
      return bad(path + ".partner_delays.mean", "must be a finite duration above `after`");
    }
  }
  if (!(p.deferred_share >= 0.0 && p.deferred_share <= 1.0)) {
    return bad(path + ".deferred_repairs.share", "must be in [0, 1]");
  }
  if (p.deferred_share > 0.0 && !(std::isfinite(p.visit_interval_s) && p.visit_interval_s > 0.0)) {
    return bad(path + ".deferred_repairs.visit_interval", "must be a finite duration > 0");
  }
  if (!(p.shared_repair_probability >= 0.0 && p.shared_repair_probability <= 1.0)) {
    return bad(path + ".shared_repairs.probability", "must be in [0, 1]");
  }
  if (p.shared_repair_probability > 0.0 &&
      !(std::isfinite(p.shared_repair_window_s) && p.shared_repair_window_s > 0.0)) {
    return bad(path + ".shared_repairs.window", "must be a finite duration > 0");
  }
  return Status::Ok();
}

struct FailureSource::State {
  std::vector<std::unique_ptr<EventGenerator>> generators;  // processes in order, then the trace
  std::vector<std::string> kind_names;
};

FailureSource::FailureSource(std::unique_ptr<State> state) : state_(std::move(state)) {}
FailureSource::FailureSource(FailureSource&&) noexcept = default;
FailureSource& FailureSource::operator=(FailureSource&&) noexcept = default;
FailureSource::~FailureSource() = default;

Status FailureSource::check(const Scenario& s, const Topology& t, const TraceData* trace) {
  size_t kinds = 0;
  const auto& processes = s.failures.processes;
  for (size_t i = 0; i < processes.size(); ++i) {
    const FailureProcess& p = processes[i];
    const std::string path = "failures.processes[" + std::to_string(i) + "]";
    NTPSIM_RETURN_IF_ERROR(validate_process(p, path));
    if (t.units(p.component) <= 0) return bad(path + ".component", "the cluster has no such units");
    if (kinds + p.kinds.size() > 65535) return bad(path + ".kinds", "too many kinds");
    kinds += p.kinds.size();
  }
  const auto& tc = s.failures.trace;
  if (tc.has_value() != (trace != nullptr)) {
    return Error::runtime("FailureSource::make: trace data must be given exactly when the scenario has a trace");
  }
  if (tc.has_value()) {
    if (tc->mapping != "modulo" && tc->mapping != "random") {
      return bad("failures.trace.mapping", "unknown mapping '" + tc->mapping + "' (expected modulo or random)");
    }
    if (!(std::isfinite(tc->time_scale) && tc->time_scale > 0.0)) {
      return bad("failures.trace.time_scale", "must be a finite number > 0");
    }
    // Located at the scenario's `loop:` when the configuration came from a scenario file.
    const auto loop_error = [&](const std::string& what) {
      const auto at = tc->field_at.find("loop");
      if (at == tc->field_at.end()) return bad("failures.trace.loop", what);
      return Error::at(at->second, "failures.trace.loop", what);
    };
    if (tc->loop && !(trace->span_s > 0.0)) {
      return loop_error(trace->file + ": cannot loop a trace whose span is 0");
    }
    if (tc->loop) {
      const double run_s = s.horizon_s > 0.0 ? s.horizon_s : s.max_time_s;
      const double events = static_cast<double>(trace->faults.size()) * run_s /
                            (trace->span_s * tc->time_scale);
      if (events > kMaxLoopedTraceEvents) {
        char what[256];
        std::snprintf(what, sizeof(what),
                      ": looping %zu faults every %.6g s yields about %.3g events per replication; "
                      "more than %.0e cannot be simulated",
                      trace->faults.size(), trace->span_s * tc->time_scale, events, kMaxLoopedTraceEvents);
        return loop_error(trace->file + what);
      }
    }
    if (kinds + trace->kind_names.size() > 65535) return bad("failures.trace", "too many kinds");
  }
  return Status::Ok();
}

Result<FailureSource> FailureSource::make(const Scenario& s, const Topology& t,
                                          std::shared_ptr<const TraceData> trace, uint64_t seed,
                                          uint64_t replication) {
  NTPSIM_RETURN_IF_ERROR(check(s, t, trace.get()));
  auto state = std::make_unique<State>();
  std::array<int, kComponentClasses> per_class{};
  for (const FailureProcess& p : s.failures.processes) {
    const auto kind_base = static_cast<uint16_t>(state->kind_names.size());
    for (const FailureKind& k : p.kinds) state->kind_names.push_back(k.name);
    const int n = per_class[static_cast<int>(p.component)]++;
    std::string suffix;  // built in two steps: GCC 12 warns falsely (-Wrestrict) on "." + to_string
    if (n > 0) suffix.append(".").append(std::to_string(n));
    if (p.rate_per_unit_s > 0.0) {
      state->generators.push_back(std::make_unique<ProcessGenerator>(p, t, kind_base, seed, replication, suffix));
    }
  }
  if (const auto& tc = s.failures.trace) {
    const auto kind_base = static_cast<uint16_t>(state->kind_names.size());
    for (const std::string& k : trace->kind_names) state->kind_names.push_back(k);
    state->generators.push_back(std::make_unique<TraceGenerator>(*tc, t, std::move(trace), kind_base, seed, replication));
  }
  return FailureSource(std::move(state));
}

bool FailureSource::next(FailureEvent& out) {
  EventGenerator* best = nullptr;
  Time best_time = Time::never();
  for (const auto& g : state_->generators) {
    const Time when = g->peek();
    if (when < best_time) {  // strict: ties go to the earlier source
      best_time = when;
      best = g.get();
    }
  }
  if (best == nullptr) return false;
  best->pop(out);
  return true;
}

const std::vector<std::string>& FailureSource::kind_names() const { return state_->kind_names; }

namespace {

// With partner delays a burst is a sequence of groups: its first failure with the partners that
// start at once after it, then each later partner with those at once after it. The burst starts
// at a uniform unit u of n and takes u .. u+size-1 (wrapping); a group of L units starting at
// offset i meets the job's first k units with probability min(n, k + L - 1) / n. A group
// starts at offset 0, and at each offset i >= 1 with chance q = 1 - at_once; from there it
// reaches offset j >= 1 further with chance a^j (a = at_once) while i + j < size, so
//   E min(n, k + L - 1) = k - 1 + sum_{j=1..min(size-i, n-k+1)} a^(j-1).
// Returns the sum over groups of the expected min(n, k + L - 1), averaged over the size law.
double delayed_burst_reach(const FailureProcess& p, double n, double k) {
  const double a = p.partner_at_once_share;
  const double q = 1.0 - a;
  const auto cap = static_cast<int64_t>(n - k + 1.0);  // L - 1 beyond n - k wraps onto the job
  auto reach_of = [&](int size) {
    // g[m] = sum_{j=1..m} a^(j-1), built as m grows.
    double total = 0.0, g = 0.0, power = 1.0;
    std::vector<double> prefix(static_cast<size_t>(size) + 1, 0.0);
    for (int m = 1; m <= size; ++m) {
      g += power;
      power *= a;
      prefix[static_cast<size_t>(m)] = g;
    }
    for (int i = 0; i < size; ++i) {
      const int64_t m = std::min<int64_t>(size - i, cap);
      const double r = k - 1.0 + prefix[static_cast<size_t>(m)];
      total += (i == 0 ? 1.0 : q) * r;
    }
    return total;
  };
  if (p.burst_sizes.empty()) return reach_of(std::max(1, p.burst_size));
  double sum = 0.0;
  for (const int size : p.burst_sizes) sum += reach_of(std::max(1, size));
  return sum / static_cast<double>(p.burst_sizes.size());
}

}  // namespace

double expected_interruption_rate_per_s(const Scenario& s, const Topology& t, int64_t job_gpus,
                                        const TraceData* trace) {
  if (job_gpus <= 0) return 0.0;
  double rate = 0.0;
  for (const FailureProcess& p : s.failures.processes) {
    double interrupting_share = 0.0;
    for (const FailureKind& k : p.kinds) {
      if (k.interrupts) interrupting_share += k.share;
    }
    const int64_t units = t.units(p.component);
    if (units <= 0) continue;
    const double n = static_cast<double>(units);
    // Mean rate per unit over the random lemon placement.
    const double per_unit = p.mean_rate_per_unit_s(units);
    // An event starting at unit u with a burst takes u .. u+size-1 (wrapping): it meets the job's
    // first k units when u is among k + size - 1 starting positions (averaged over a size law).
    const auto k = static_cast<double>(units_meeting_job(t, p.component, job_gpus));
    double burst_reach = 0.0;
    if (p.has_partner_delays()) {
      burst_reach = delayed_burst_reach(p, n, k);
    } else if (p.burst_sizes.empty()) {
      burst_reach = std::min(n, k + static_cast<double>(std::max(1, p.burst_size)) - 1.0);
    } else {
      for (const int size : p.burst_sizes) {
        burst_reach += std::min(n, k + static_cast<double>(std::max(1, size)) - 1.0);
      }
      burst_reach /= static_cast<double>(p.burst_sizes.size());
    }
    const double hit_fraction = ((1.0 - p.burst_probability) * k + p.burst_probability * burst_reach) / n;
    rate += per_unit * n * hit_fraction * interrupting_share;
  }
  const auto& tc = s.failures.trace;
  if (trace != nullptr && tc.has_value() && tc->interrupts && trace->span_s > 0.0) {
    double hits = 0.0;
    for (const TraceFault& f : trace->faults) {
      const Component c = f.has_component ? f.component : tc->component;
      const int64_t units = t.units(c);
      const int64_t k = units_meeting_job(t, c, job_gpus);
      if (tc->mapping == "random") {
        hits += static_cast<double>(k) / static_cast<double>(units);
      } else if (f.node % units < k) {
        hits += 1.0;
      }
    }
    rate += hits / (trace->span_s * tc->time_scale);
  }
  return rate;
}

}  // namespace ntpsim::sim
