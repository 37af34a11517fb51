// A scenario: everything one `ntpsim run` needs (DESIGN.md §3), as plain structs.
//
// Read from YAML by `load_scenario` (scenario/loader.h), which fills defaults, validates every
// field and cross-field constraint, and records where each value came from. Durations are seconds
// (double) at this edge; the engine converts them to `Duration`. Every field's comment gives its
// meaning, unit and default (the default member initialiser).
// Thread safety: plain values; the engine reads a const Scenario from many threads.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "models/base/status.h"
#include "models/hardware.h"
#include "models/workload.h"
#include "sim/scenario/vocabulary.h"  // StrategyConfig

namespace ntpsim::sim {

// Component classes a failure process can target; each failure takes every GPU below it.
enum class Component { kGpu, kNode, kDomain, kPod };

struct ClusterConfig {
  int domains = 0;            // scale-up domains (racks) in the job's pool, required
  int gpus_per_domain = 0;    // GPUs per domain (NVL72: 72, HGX: 8), required
  int spare_domains = 0;      // extra whole domains held as hot spares
  int gpus_per_node = 0;      // GPUs per tray/node (GB200: 4); 0 = no node level (each GPU alone)
  int domains_per_pod = 0;    // domains per pod/leaf switch; 0 = no pod level

  int64_t total_domains() const { return static_cast<int64_t>(domains) + spare_domains; }
  int64_t total_gpus() const { return total_domains() * gpus_per_domain; }
  // Units of class `c` in the cluster (0 where the level is switched off); a last, partial pod
  // counts as a pod.
  int64_t units(Component c) const {
    switch (c) {
      case Component::kGpu: return total_gpus();
      case Component::kNode: return gpus_per_node > 0 ? total_gpus() / gpus_per_node : 0;
      case Component::kDomain: return total_domains();
      case Component::kPod:
        return domains_per_pod > 0 ? (total_domains() + domains_per_pod - 1) / domains_per_pod : 0;
    }
    return 0;
  }
};

struct RepairDist {
  std::string distribution = "fixed";  // fixed | exponential | lognormal | weibull | empirical
  double mean_s = 0.0;                 // mean repair time (fixed: the value)
  double sigma = 1.0;                  // lognormal sigma (of ln), when lognormal
  double shape = 1.0;                  // weibull shape, when weibull
  std::vector<double> values_s;        // empirical: samples drawn uniformly
};

struct FailureKind {
  std::string name;          // e.g. "hardware", "software"
  double share = 1.0;        // fraction of this process's failures of this kind; shares sum to 1
  RepairDist repair;         // time until the component is back in the free pool
  bool interrupts = true;    // whether it interrupts the running job (NCCL communicators break)
};

struct FailureProcess {
  Component component = Component::kGpu;
  double rate_per_unit_s = 0.0;     // failures per second per unit (from `rate` or 1/`mtbf`)
  // inter-arrival: exponential | weibull | lognormal | hawkes
  std::string distribution = "exponential";
  double shape = 1.0;               // weibull shape k, or lognormal sigma
  // hawkes (self-exciting, sim/failures/failure_source.h): each failure triggers on average
  // `branching` further failures of the class (0 <= branching < 1), after delays drawn from an
  // exponential law of mean `excitation_mean_s`. `rate` stays the long-run rate per unit.
  double branching = 0.0;
  double excitation_mean_s = 0.0;
  // Optional second, slower excitation (two time scales: same-event clustering plus waves over
  // days or weeks): each failure also triggers `slow_branching` failures on average after
  // delays of mean `slow_excitation_mean_s`. 0 = absent (one time scale, the form above);
  // branching + slow_branching < 1.
  double slow_branching = 0.0;
  double slow_excitation_mean_s = 0.0;
  // Optional regimes of the cluster (hawkes only; a two-state Markov-modulated immigrant rate):
  // the class is in a high state a long-run share `regime_high_share` of the time, in spells of
  // mean `regime_high_mean_s` (exponential), and there its immigrant failures arrive
  // `regime_rate_ratio` (> 1) times as often as in the low state; the mean over both states keeps
  // `rate` the long-run rate per unit. A failure's repair draw is multiplied by the scale of the
  // state it starts in (`regime_low_repair_scale`, `regime_high_repair_scale`). 0 share = absent.
  // The share of failures that start in each state (not the immigrants' share) and the mean
  // repair they draw are derived in one place: process_means.h.
  double regime_high_share = 0.0;
  double regime_rate_ratio = 1.0;
  double regime_high_mean_s = 0.0;
  double regime_low_repair_scale = 1.0;
  double regime_high_repair_scale = 1.0;
  // Optional repair laws per state (regime.low_repair and regime.high_repair, both or neither;
  // any repair law a kind may have): a failure's repair is drawn from the law of the state it
  // starts in, whatever its kind (the kinds' own repair laws are then not sampled), times that
  // state's repair scale.
  bool regime_state_repairs = false;  // whether regime_repair holds the laws
  RepairDist regime_repair[2];        // [0] low state, [1] high state
  std::vector<FailureKind> kinds;   // at least one; shares sum to 1
  double lemon_fraction = 0.0;      // share of units whose rate is multiplied by lemon_multiplier
  double lemon_multiplier = 1.0;
  double burst_probability = 0.0;   // chance that one event takes burst_size units at once
  int burst_size = 1;               // units taken by a burst event (same component class)
  // Optional size law (`burst.sizes`, instead of `burst.size`): each burst takes a size drawn
  // uniformly from these, so a log's incident sizes keep their spread (empty: burst_size).
  std::vector<int> burst_sizes;
  // Optional partner delays (`partner_delays: {at_once, after, mean}`, with a burst): each
  // partner of a burst starts, after the failure before it in the burst, at once with chance
  // `partner_at_once_share`, else `partner_delay_after_s` plus an exponential delay, so that
  // these partners start `partner_delay_mean_s` after it on average (a log's incidents whose
  // servers go down over minutes, each a failure of its own that may interrupt the job again).
  // 0 mean = absent: every partner starts with the burst's first failure.
  double partner_at_once_share = 1.0;
  double partner_delay_after_s = 0.0;
  double partner_delay_mean_s = 0.0;
  bool has_partner_delays() const { return partner_delay_mean_s > 0.0; }
  // Optional deferred repairs (`deferred_repairs: {share, visit_interval}`; any distribution):
  // a share `deferred_share` of the failures is not repaired on its own: the unit stays down
  // until the process's next maintenance visit, and every deferred unit down at a visit comes
  // back at it, together (a log's repairs that close in batches). Visits arrive at exponential
  // gaps of mean `visit_interval_s`, so a deferred repair lasts that long on average. Deferred
  // repairs take no kind or state law and no regime scale. 0 share = absent.
  double deferred_share = 0.0;
  double visit_interval_s = 0.0;
  // Optional shared repairs (`shared_repairs: {window, probability}`; any distribution): a
  // failure that starts within `shared_repair_window_s` of the process's previous failure, while
  // that failure's unit is still down, is with chance `shared_repair_probability` one incident
  // with it: its unit comes back at the same instant (one fix), instead of drawing a repair (a
  // switch, power or cooling fault that takes several units down and is fixed once). Partners of
  // one burst are previous failures of one another. 0 probability = absent.
  double shared_repair_probability = 0.0;
  double shared_repair_window_s = 0.0;

  // The one home of the process's mean rates (the failure source, the loader's size checks and
  // the planner's screen all use these):
  // Lemons: exactly round(lemon_fraction x units) units fail lemon_multiplier times as often as
  // the others (the failure source draws that many), so the mean failure rate of one unit of a
  // class of `units` is rate x (units - lemons + lemons x multiplier) / units. Renewal processes
  // have the same long-run rate (1 / mean lifetime).
  double mean_rate_per_unit_s(int64_t units) const {
    if (units <= 0) return 0.0;
    const double n = static_cast<double>(units);
    const double lemons = std::round(lemon_fraction * n);
    return rate_per_unit_s * (n - lemons + lemons * lemon_multiplier) / n;
  }
  // Units a burst takes on average, and at most (burst_sizes when given, else burst_size).
  double mean_burst_size() const {
    if (burst_sizes.empty()) return std::max(1, burst_size);
    double sum = 0.0;
    for (const int size : burst_sizes) sum += std::max(1, size);
    return sum / static_cast<double>(burst_sizes.size());
  }
  int largest_burst_size() const {
    if (burst_sizes.empty()) return std::max(1, burst_size);
    return std::max(1, *std::max_element(burst_sizes.begin(), burst_sizes.end()));
  }
  // Units one failure event takes on average.
  double mean_units_per_event() const { return 1.0 + burst_probability * (mean_burst_size() - 1.0); }
};

struct TraceConfig {
  std::string format;         // "infinitehbd" (JSON) or "csv" (ntpsim CSV trace format)
  std::string file;           // path as resolved against the scenario file's folder
  std::string mapping = "modulo";  // modulo | random (seeded per replication)
  Component component = Component::kNode;  // what one trace node maps to
  double time_scale = 1.0;    // multiply trace times by this
  bool loop = false;          // repeat the trace past its end
  bool interrupts = true;     // trace faults interrupt the job
  // Where each field was written ("loop" -> the scenario's file:line:col; the section's own place
  // for a defaulted field), so that problems found only when the trace is read (a loop over a
  // trace whose span is 0, an unreadable file) name the scenario's file and line. Empty for a
  // configuration not read from a scenario (`ntpsim trace FILE`). Not part of the printed form.
  std::map<std::string, SourceLocation> field_at;
};

struct FailureConfig {
  std::vector<FailureProcess> processes;
  std::optional<TraceConfig> trace;
};

// What `checkpoint.interval: auto` means, and the default of shared_auto_interval:
// auto_shared (true) or auto_per_strategy (false). Defined in sections.cpp, beside the reader
// that gives `auto` its meaning.
extern const bool kAutoIntervalShared;

// A cost measured at one job size and scaled to the job's: value x (job GPUs / reference_gpus)
// ^ exponent (scaled_cost_s, recovery_costs.h). reference_gpus 0: the same at every size.
struct CostScaling {
  double reference_gpus = 0.0;
  double exponent = 0.0;
  bool scales() const { return reference_gpus > 0; }
  bool operator==(const CostScaling&) const = default;
};

struct CheckpointConfig {
  bool auto_interval = true;        // interval: auto = Young/Daly from the expected MTTI
  // With auto_interval: one first-order Young/Daly interval from every job interruption for all
  // strategies (auto_shared), or each strategy's own, the renewal-model optimum from the rate of
  // the interruptions that roll it back (auto_per_strategy; engine.h, checkpoint_interval.h).
  bool shared_auto_interval = kAutoIntervalShared;
  double interval_s = 3600.0;       // fixed interval when !auto_interval
  // With auto_interval: the longest interval auto may choose (0 = the horizon). Bounds a strategy
  // that is rarely or never rolled back, e.g. for checkpoints kept for durability.
  double max_interval_s = 0.0;
  double write_s = 60.0;            // time to write one checkpoint
  double async_exposed_fraction = 1.0;  // share of write_s that stalls training (1 = blocking)
  // Share of the job's throughput lost while the rest of the write (write_s x (1 -
  // async_exposed_fraction)) runs in the background: its device-to-storage traffic competes with
  // training (0 = no contention).
  double async_slowdown = 0.0;
  double restore_s = 300.0;         // time to load a checkpoint on restart
  CostScaling restore_scaling;      // restore_s at restore_scaling.reference_gpus
  // In-memory snapshots, for strategies with `resume: restart_from_memory` (sim/engine/README.md,
  // "Resume mechanisms"): each host keeps its GPUs' training state in host memory and one copy
  // on a peer host in the next scale-up domain; persistent checkpoints are written from that copy
  // in the background every `interval` above (no extra pause).
  struct Memory {
    bool auto_interval = true;  // the renewal-model optimum for the strategy's rollback rate
    double interval_s = 0.0;    // fixed running time between snapshots when !auto_interval
    // Training pause per snapshot (staging GPU state to host memory): ByteCheckpoint's blocking
    // part 0.59 s (405B, 8,960 GPUs), PyTorch DCP staging 0.78 s (REFERENCES, Recovery costs).
    double exposed_s = 1.0;
    // Loading the snapshot back from peer memory on a restart; unset = the GPU's state (weights
    // and optimizer shard, memory model) over its scale-out link.
    std::optional<double> restore_s;
    bool operator==(const Memory&) const = default;
  } memory;

  bool operator==(const CheckpointConfig&) const = default;
};

// What a failure that hits the job during a recovery pause does (recovery.failures_during_pause).
enum class PauseFailures {
  kRestart,  // it interrupts the job again: the pause starts over (a restart also rolls back)
  kIgnore,   // the pause runs on; the recovery under way absorbs it (engine.h)
};

struct RecoveryConfig {
  double detection_s = 120.0;       // failure to detection
  double restart_s = 600.0;         // job restart: reschedule, NCCL init, warm-up
  CostScaling restart_scaling;      // restart_s at restart_scaling.reference_gpus
  double reconfigure_s = 60.0;      // in-place reconfiguration (dp_drop, ntp) without restart
  double spare_swap_s = 300.0;      // swap a spare domain or GPU into the job
  // `resume: in_place`: copying a lost GPU's state (weights from a DP peer, its optimizer shard
  // from the redundant copy) to the GPUs that take over its work; unset = the GPU's state over
  // its scale-out link (sim/simulation/resume_state.h).
  std::optional<double> state_transfer_s;
  PauseFailures failures_during_pause = PauseFailures::kRestart;
};

struct ReplicationConfig {
  int fixed = 0;                    // a fixed number of replications (> 0), or 0 when adaptive
  double target_ci_halfwidth = 0;   // adaptive: stop when every strategy's goodput CI half-width <= this
  int min = 10;                     // adaptive: at least this many
  int max = 1000;                   // adaptive: at most this many
};

struct OutputConfig {
  std::string results_json;  // path for results JSON ("" = none unless --out)
  std::string results_csv;   // path for per-replication CSV
  std::string report;        // path for the HTML/Markdown report
  std::string timeline;      // path for the Perfetto timeline of replication 0
};

struct Scenario {
  std::string name;                // scenario name (defaults to the file's stem)
  std::string description;
  std::string file;                // the top-level file it was read from
  models::Workload workload;
  models::Layout layout;
  models::HardwareProfile hardware;
  std::string step_model = "analytic";  // analytic | proportional
  ClusterConfig cluster;
  FailureConfig failures;
  CheckpointConfig checkpoint;
  RecoveryConfig recovery;
  std::vector<StrategyConfig> strategies;
  double horizon_s = 0.0;          // simulated time per replication, or 0 with train_tokens
  double train_tokens = 0.0;       // token budget (time to train), or 0 with horizon
  double max_time_s = 0.0;         // with train_tokens: give up after this much simulated time
  ReplicationConfig replications;
  uint64_t seed = 1;
  OutputConfig outputs;
};

const char* to_string(Component c);
const char* to_string(PauseFailures f);

}  // namespace ntpsim::sim
