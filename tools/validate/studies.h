// The validation studies behind `ntpsim validate` and tests/validation: each function
// reproduces one published figure or closed-form result with ntpsim's own components (scenario
// loader, topology, failure sources, JobState, strategies, engine) and returns plain numbers.
//
// Two kinds of study:
//  - static: a fixed set of failed GPUs placed uniformly at random (the NTP paper's Fig. 3, 6 and
//    10 view: "at a failed fraction f"); the job state is re-picked under a strategy's rules and
//    its throughput read from the strategy's shape, averaged over `samples` placements;
//  - dynamic: failure processes or traces over a horizon, through FailureSource and the engine
//    (Fig. 4, Fig. 7, checkpoint intervals, Little's law, trace replays).
// Every random draw goes through models/base/random.h with the caller's seed, so results are
// reproducible; nothing here is tuned to a published value.
// Ownership: a Prepared (a sim::Simulation) owns everything it points to; results are plain
// values.
// Thread safety: functions are reentrant; a Prepared is immutable and may be shared by threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "sim/failures/fit.h"
#include "sim/simulation/simulation.h"

namespace ntpsim::validate {

// The NTP paper's B200 NVL32 scenario and the InfiniteHBD 400-GPU scenario, relative to the
// source tree (the sections that check the paper's figures all run these).
inline constexpr const char* kPaper = "scenarios/paper/b200-nvl32.yaml";
inline constexpr const char* kHbd = "scenarios/paper/infinitehbd-400.yaml";

// A scenario loaded with overrides and prepared for simulation (sim/simulation/simulation.h),
// as `ntpsim run` prepares it.
using Prepared = sim::Simulation;

Result<std::shared_ptr<const Prepared>> prepare(const std::string& file,
                                                const std::vector<std::string>& overrides);

// ---- static studies -------------------------------------------------------------------------

// (1 - f)^tp: the chance that a TP group of `tp` GPUs has no failed GPU.
double availability_closed_form(double f, int tp);
// The same by sampling: round(f x gpus) distinct failed GPUs out of `gpus` (a multiple of tp),
// mean share of intact TP groups over `samples` placements.
double availability_sampled(int64_t gpus, int tp, double f, int samples, uint64_t seed);

struct LossSample {
  double mean = 0, sd = 0;     // throughput loss 1 - rate over the placements
  double failed_fraction = 0;  // failed GPUs / cluster GPUs actually placed
};
// Throughput loss of strategy `k` with round(f x cluster GPUs / blast) failure events, each
// taking an aligned block of `blast` GPUs of one domain (blast must divide gpus_per_domain),
// placed uniformly without overlap. REQUIRES: 0 <= k < strategies.size().
LossSample static_loss(const Prepared& p, int k, double f, int blast, int samples, uint64_t seed);

// ---- dynamic studies ------------------------------------------------------------------------

struct FailedGpuStats {
  double share_above = 0;      // time share with failed GPUs > threshold x cluster GPUs
  double mean_failed = 0;      // time-average failed GPUs
  double peak_failed = 0;      // mean over replications of the peak
  double failures = 0;         // failure events per replication (mean)
  std::vector<double> t_days;  // replication 0: failed fraction as a step function
  std::vector<double> fraction;
  std::vector<double> share_by_rep;  // share_above of each replication
  std::vector<double> peak_by_rep;   // the peak of each replication
};
// Failure events of replications [0, reps) from FailureSource over [0, horizon), measured over
// [warmup_s, horizon) (down GPUs counted once however many failures overlap them).
FailedGpuStats failed_gpu_stats(const Prepared& p, double threshold, double warmup_s, int reps);

struct TraceStats {
  int faults = 0;           // failure events inside the horizon
  int hardware_faults = 0;  // of kind "Hardware Failure"
  int units = 0;            // units of the trace's component
  double rate_per_1000_unit_days = 0;
  double hardware_rate_per_1000_unit_days = 0;
  double repair_median_days = 0, repair_mean_days = 0, repair_p90_days = 0;
  int distinct_units = 0;  // units hit at least once
  std::vector<double> repair_days;  // every fault's repair time, sorted
};
// Replays replication 0's events; `span_days` is the observation window the rate is over.
Result<TraceStats> trace_stats(const Prepared& p, double span_days);

// Statistics of a failure model's (or a replayed log's) events over the scenario's horizon,
// averaged over replications [0, reps): the back-test of a model fitted from a fault log.
struct FailureModelStats {
  double faults = 0;                   // events per replication
  double rate_per_1000_unit_days = 0;  // per unit of the events' component over the horizon
  double repair_median_days = 0, repair_mean_days = 0, repair_p90_days = 0;  // of all events
  double gap_cv = 0;  // coefficient of variation of the gaps between consecutive events
  std::vector<double> share_above;  // per threshold: time share with failed GPUs > it x GPUs
  double peak_failed_gpus = 0;      // largest number of GPUs down at once
  // Groups of faults each starting within kGroupWindowS of the previous (an incident's faults):
  // the faults that start that close to the previous one, per replication, and the largest
  // group, its mean over the replications and its largest in any.
  static constexpr double kGroupWindowS = 3600.0;
  double close_starts = 0;
  double largest_group = 0;
  int64_t largest_group_any = 0;
  // Each statistic of each replication (the values above are their means, except the repair
  // quantiles, which are of every replication's repairs pooled): where a log falls among a
  // model's replications says whether the model could have produced it, which a mean alone
  // does not.
  struct Replication {
    double rate_per_1000_unit_days = 0;
    double repair_median_days = 0, repair_mean_days = 0, repair_p90_days = 0;
    double gap_cv = 0;
    std::vector<double> share_above;
    double peak_failed_gpus = 0;
    int64_t close_starts = 0, largest_group = 0;
  };
  std::vector<Replication> by_rep;
};
// Where a log's value `l` falls among a model's replications `v`: their 5th and 95th
// percentiles (type 7), and the log's place as the share of replications below it (ties counted
// half), or "above all n" / "below all n" (beyond_all) when it lies beyond every one.
struct Place {
  double p5 = 0, p95 = 0;
  bool beyond_all = false;
  std::string text;
};
Place place_among(double l, std::vector<double> v);

// `units`: the units the rate is per (the log's nodes).
FailureModelStats failure_model_stats(const Prepared& p, int64_t units,
                                      const std::vector<double>& thresholds, int reps);

// The log of a trace scenario `p` (one trace node per unit of its trace component), its failed
// GPUs counted directly from the trace's faults over the scenario's horizon: the time share above
// each threshold (of the cluster's GPUs) and the peak. With `redraw` (TraceData::faults indices,
// ascending), the repairs of those faults are drawn instead from the log's other closed repairs,
// uniformly (Stream(seed, draw, "backtest.redraw")), and the statistics are the means over
// `draws` such logs: what the log would show had those repairs been independent of one another.
struct LogFailedGpus {
  std::vector<double> share_above;  // per threshold
  double peak_failed_gpus = 0;
};
Result<LogFailedGpus> log_failed_gpus(const Prepared& p, const std::vector<double>& thresholds,
                                      const std::vector<size_t>& redraw = {}, int draws = 1,
                                      uint64_t seed = 0);

// The log's incidents (runs of faults each starting within `window_s` of the previous; 0: every
// fault alone) drawn whole, with their faults' offsets and repairs, at the times of a Poisson
// process of the log's incident rate over the scenario's horizon, each fault on a node that is
// up (uniformly; Stream(seed, draw, "backtest.incidents")): the failed GPUs of `draws` such logs,
// their means as in LogFailedGpus, and the 5th and 95th percentiles of their peaks. What the
// log's statistics would be with its incidents as they were but at independent times.
struct IncidentDraws {
  int64_t incidents = 0;
  LogFailedGpus failed;
  double peak_p5 = 0, peak_p95 = 0;
};
Result<IncidentDraws> log_incidents_redrawn(const Prepared& p,
                                            const std::vector<double>& thresholds,
                                            double window_s, int draws, uint64_t seed);

// The back-test's settings, shared by the document and tests/validation so their verdicts agree:
// the thresholds of the time-share curve (the NTP paper's Fig. 4 reads 0.1%), the fit's seed and
// the model's replications.
inline const std::vector<double> kBacktestThresholds = {0.001, 0.01, 0.02, 0.04};
inline constexpr uint64_t kBacktestFitSeed = 1;
inline constexpr int kBacktestReps = 40;

// A failure model fitted from the trace of `trace_scenario` (`ntpsim trace --fit` with the
// cluster's node count), and two scenarios like it without the trace: `fitted` runs the fitted
// model as written; `exponential` the plain exponential model at each kind's observed rate (its
// faults per node-second up) with the same repair laws, no lemons, no bursts, no clustering, no
// maintenance visits and no shared repairs.
struct FittedBacktest {
  sim::TraceFit fit;
  std::shared_ptr<const Prepared> log, fitted, exponential;
};
Result<FittedBacktest> fitted_backtest(const std::string& trace_scenario, uint64_t fit_seed);

struct EngineSummary {
  std::vector<double> goodput, per_gpu_goodput;  // per replication
  std::vector<double> worst_throughput;          // per replication: min while running
  std::vector<double> failed_mean;               // per replication
  std::vector<sim::ReplicationMetrics> metrics;  // per replication: every metric
  double mean(const std::vector<double>& v) const;
};
// Runs strategy `k` over replications [0, reps) with a timeline each (for the worst running
// throughput: the lowest throughput of a running or degraded segment that ends after
// `warmup_s`, so a run that starts with no failed GPU can be judged on its steady part).
Result<EngineSummary> run_engine(const Prepared& p, int k, int reps, int threads,
                                 double warmup_s = 0);

// Fig. 7's strategies in the paper's fixed mini-batch setup, as a --set over
// scenarios/paper/b200-nvl32.yaml: dp_drop (spare domains re-form whole replicas), and NTP and
// NTP-PW with the paper scenario's options whose spare domains join as whole extra DP replicas
// that carry the batch share the damaged replicas give up (add_spare_replica), instead of
// replacing damaged domains one for one as the scenario's ntp does. Shared by the document and
// tests/validation so their verdicts agree.
inline constexpr const char* kFig7FixedBatchStrategies =
    "strategies=[dp_drop, "
    "{name: ntp_fixed_batch, resume: in_place, chain: [add_spare_replica, "
    "{reduce_tp: {rule: parity, tp_step: 2}}]}, "
    "{name: ntp_pw_fixed_batch, resume: in_place, chain: [add_spare_replica, "
    "{reduce_tp: {rule: parity, tp_step: 2, power_boost: true, max_power: \"30%\", "
    "domain_budget: false}}]}]";

struct SparePoint {
  int spares = 0;
  double per_gpu_goodput = 0;  // mean over replications
  double met_share = 0;        // replications whose worst running throughput >= 1 - tolerance
};
// Per-GPU goodput and the no-pause criterion with `spares` spare domains (cluster.spare_domains
// set on top of `overrides`), for the strategy labelled `label`.
Result<SparePoint> spare_point(const std::string& file, std::vector<std::string> overrides,
                               const std::string& label, int spares, int reps, double tolerance,
                               int threads, double warmup_s);
// The least number of spare domains at which at least half the replications keep the worst
// running throughput >= 1 - tolerance (bisection over [0, hi]; hi when never met).
Result<int> spares_needed(const std::string& file, const std::vector<std::string>& overrides,
                          const std::string& label, int hi, int reps, double tolerance, int threads,
                          double warmup_s);

// ---- recovery costs against the public record ----------------------------------------------

// The Llama 3 scenario (16,384 H100, TP 8 x PP 16 x DP 128) and its 54-day window, relative to
// the source tree.
inline constexpr const char* kLlama3 = "scenarios/hgx-h100-16k.yaml";

struct RecoveryWindow {
  double checkpoint_cost_s = 0;  // C: pause + background slowdown per checkpoint
  double restart_s = 0;          // restart + restore at the job's size
  double interval_s = 0;         // the checkpoint interval checkpoint_restart runs at
  // Means over the replications:
  double interruptions = 0;
  double goodput = 0;             // useful work / (window x ideal rate)
  double effective_training = 0;  // Meta's: wall-time share running on kept work
  double rollback = 0, recovery = 0, checkpoint = 0;  // badput shares
  uint64_t seed = 0;
};
// `checkpoint_restart` on the Llama 3 scenario over 54 days with 256 spare servers (so restarts
// never wait for a repair), `overrides` on top (e.g. sim::recovery_profile_overrides).
Result<RecoveryWindow> llama3_window(const std::string& file,
                                     const std::vector<std::string>& overrides, int reps,
                                     int threads);

struct StallPair {
  double job_gpus = 0;
  double restart_s = 0;  // detection + restart + restore at the job's size
  // detection + reconfiguration + state transfer, and the reconfiguration that lets the repaired
  // replica rejoin (dp_drop recovering in place)
  double drop_s = 0;
};
// The Llama 3 scenario scaled to 98,304 GPUs (DP 768), `overrides` on top: each recovery's stall
// from the engine's configuration.
Result<StallPair> restart_vs_drop(const std::string& file,
                                  const std::vector<std::string>& overrides);

}  // namespace ntpsim::validate
