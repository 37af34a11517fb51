// Failure models learned from a fault log: `ntpsim trace FILE --fit` (docs/trace-format.md,
// "Fitting a failure model").
//
// fit_trace turns a parsed trace into one failure process per fault kind, in the terms the engine
// samples (failure_source.h): a per-node rate, a lifetime law (exponential, Weibull or lognormal,
// by maximum likelihood on the nodes' censored times between failures, chosen by AIC), a repair
// law (fixed, exponential, Weibull, lognormal or, when no law passes the goodness-of-fit test, the
// empirical distribution), bursts (faults of several nodes within a window, when they are more
// frequent than independent arrivals allow), lemon nodes (a two-class rate mixture, when a
// likelihood-ratio test and AIC support it), and clustering in time: a self-exciting (Hawkes)
// process of the cluster's faults (one or two time scales, optionally with regimes: a two-state
// Markov-modulated immigrant rate), written instead of the per-node law when AIC favours it.
//
// Statistics (docs/trace-format.md states each):
// - times between failures of one node and kind: from 0 or the end of the node's previous repair
//   of that kind to its next fault; the last one censored at the span; nodes without a fault of
//   the kind contribute one censored span each (`nodes` gives how many nodes the log observed);
// - rates: events / up-time with exact Poisson (chi-squared) 95% intervals;
// - Weibull and lognormal: Newton's method on the censored log-likelihood, 95% Wald intervals
//   from the observed information (Eigen), Boost.Math for every distribution function;
// - goodness of fit: the Kolmogorov-Smirnov distance between the Kaplan-Meier estimate and the
//   fitted law, with a parametric-bootstrap p-value (parameters are estimated, so the textbook
//   Kolmogorov distribution would be too lenient); bootstrap draws come from models/base/random.h.
// A kind with fewer than FitOptions::min_events faults gets its rate and interval only: no law is
// claimed, and the fit says so in its notes.
//
// Thread safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "sim/failures/trace.h"

namespace ntpsim::sim {

struct FitOptions {
  int64_t nodes = 0;             // nodes the log observed; 0 = the nodes that appear in it
  // GPUs per node of the logged cluster; 0 = not given. When given, fitted_failures_yaml also
  // writes every kind's and cause's rate per GPU-hour (the per-node exposure times this), so a
  // model can be scaled to a cluster with another number of GPUs per node.
  int64_t gpus_per_node = 0;
  double burst_window_s = 3600;  // faults of one kind starting within this of the previous: a burst
  int min_events = 10;           // fewer faults than this: no law is fitted
  int bootstrap = 99;            // parametric-bootstrap replicates for the KS p-values
  uint64_t seed = 1;             // of the bootstrap streams ("fit.<kind>.<what>")
  std::string source_hash;       // the log's hash, for provenance ("" = not given)
  // The Hawkes excitation's mean delay is kept at least this long: faults logged at the same
  // instant would otherwise drive it to 0 and the likelihood to infinity.
  double min_excitation_delay_s = 60;
  // The regime fits of the pooled faults (the forward algorithm over the hidden state, with a
  // central-difference Hessian: about 16 CPU-ms per fault on this project's reference machine)
  // run on at most this many pooled faults; a larger log gets the Hawkes fits without regimes,
  // and the fit says why (PooledFit::regime_skipped).
  int64_t max_regime_faults = 5000;
  // Threads for the regime fits' derivatives (their cost); the fit is identical for any count.
  int threads = 1;
};

// A lifetime or repair: (time, failed); failed = false is censored.
struct Interval {
  double t_s = 0.0;
  bool failed = true;
  double limit_s = 0.0;  // the latest time this interval could have run to (for the bootstrap)
  double weight = 1.0;   // identical intervals counted once (fault-free nodes)
};

// A Poisson rate estimate: `events` in `exposure_s` unit-seconds of up-time.
struct RateEstimate {
  int64_t events = 0;
  double exposure_s = 0.0;
  double per_s = 0.0, lo_per_s = 0.0, hi_per_s = 0.0;  // estimate and exact 95% interval
};

// One candidate law fitted by maximum likelihood.
struct LawFit {
  std::string law;     // exponential | weibull | lognormal | fixed
  int parameters = 0;  // free parameters, for AIC
  double log_likelihood = 0.0;
  double aic = 0.0;
  // exponential: a = mean; weibull: a = shape k, b = scale; lognormal: a = sigma, b = mu.
  double a = 0.0, b = 0.0;
  double a_lo = 0.0, a_hi = 0.0, b_lo = 0.0, b_hi = 0.0;  // 95% Wald intervals
  double mean_s = 0.0;                                    // the law's mean
  double ks_distance = 0.0;                               // sup |Kaplan-Meier - fitted CDF|
  double ks_p = 0.0;  // parametric-bootstrap p-value of ks_distance
  bool converged = false;
};

// The marks of a burst model measured on every fault (BurstFit, PooledIncidents): how many
// nodes each cluster takes (a categorical law over the sizes seen, clusters of one node
// included) and when each partner starts after the fault before it. The delay law has two
// parts: a share `at_once_share` within the log's time resolution (`resolution_s`, as the
// repair fits read it: at least 60 s; uniform in it), the engine's burst, which starts partners
// with their first fault; the others an exponential law past the resolution, truncated to the
// window, its mean (`later_mean_s`, counted from the fault before) by maximum likelihood and
// its exponential part at least the Hawkes delay's floor. `gain` is the AIC the marks and the
// first faults' process give against every fault's (the caller's); the engine starts the later
// partners with their first fault too: their minutes are measured, not simulated.
struct IncidentMarks {
  double log_likelihood = 0.0;
  int parameters = 0;
  double resolution_s = 0.0;
  double at_once_share = 0.0;
  double later_mean_s = 0.0;
  double gain = 0.0;
};

struct BurstFit {
  int64_t clusters = 0;    // groups of faults, each starting within the window of the previous
  int64_t multi = 0;       // clusters of two or more nodes
  double mean_size = 1.0;  // nodes per multi-node cluster
  int64_t close_gaps = 0;  // consecutive starts closer than the window
  double expected_close_gaps = 0.0;  // the same for independent (Poisson) arrivals at this rate
  double p_value = 1.0;              // binomial upper tail of close_gaps under independence
  bool bursty = false;               // p_value < 0.01 and at least 3 multi-node clusters
  double probability = 0.0;          // engine burst model: multi / clusters
  int size = 1;                      // round(mean_size), for summaries
  // The engine's size law: each multi-node cluster's nodes, ascending (written as `size` when
  // they are all equal, else as the list `sizes`, so the mean and the tail are the log's).
  std::vector<int> sizes;
  // The burst model on every fault, for the choice against a Hawkes process of the same faults:
  // its marks, their gain with the first faults' exponential law against every fault's
  // exponential law (marks.gain; 0 unless bursty).
  int64_t partners = 0;
  IncidentMarks marks;
};

struct LemonFit {
  double fraction = 0.0;        // share of nodes in the high-rate class
  double multiplier = 1.0;      // their rate over the others'
  double log_likelihood = 0.0;  // of the exponential two-class model
  double aic = 0.0;
  double lr_statistic = 0.0;  // 2 (ll_mixture - ll_exponential)
  double p_value = 1.0;       // chi-squared, 2 degrees of freedom
  bool supported = false;     // p < 0.01 and a lower AIC than every single law
};

// A self-exciting (Hawkes) process of the cluster's faults of one kind, exponential kernel: the
// fault intensity over the whole cluster is mu + sum over earlier faults t_i of
// branching / mean_delay x e^(-(t - t_i) / mean_delay). Fitted by maximum likelihood on the
// cluster's fault times over [0, span] (Newton's method on (ln mu, logit branching/0.99,
// logit of the delay between its floor and the span), 95% Wald intervals from the observed
// information, Eigen), against the homogeneous Poisson process of the same faults (its special
// case branching = 0). Goodness of fit by time rescaling: under the fitted process the
// compensator's increments between faults are i.i.d. Exp(1); their KS distance to Exp(1) gets a
// Monte Carlo p-value (`bootstrap` samples of as many Exp(1) draws).
struct HawkesFit {
  int scales = 1;  // exponential kernels: 1, or 2 (fit_hawkes_two_scale: the slow_ fields)
  int64_t events = 0;
  double mu_per_s = 0.0;  // immigrant faults per second over the cluster
  double branching = 0.0, branching_lo = 0.0, branching_hi = 0.0;
  double mean_delay_s = 0.0, mean_delay_lo_s = 0.0, mean_delay_hi_s = 0.0;
  // The second, slower kernel of a two-scale fit (0 when scales == 1).
  double slow_branching = 0.0, slow_branching_lo = 0.0, slow_branching_hi = 0.0;
  double slow_mean_delay_s = 0.0, slow_mean_delay_lo_s = 0.0, slow_mean_delay_hi_s = 0.0;
  double log_likelihood = 0.0;           // of the fault times, 3 parameters (two scales: 5)
  double poisson_log_likelihood = 0.0;   // the same times as a Poisson process, 1 parameter
  double delta_aic = 0.0;                // AIC(hawkes) - AIC(poisson); negative favours hawkes
  double ks_distance = 0.0, ks_p = 0.0;  // rescaled gaps vs Exp(1)
  double rate_per_s = 0.0;  // the engine's rate: the faults per node-second (all nodes, whole span)
  bool converged = false;
  // Chosen over the independent-node laws (fit_trace): its delta_aic is below the chosen
  // per-node model's AIC minus the exponential's, i.e. it gains more over independent
  // exponential faults than the best law (or lemon mixture) does.
  bool chosen = false;
};

// The pooled process with regimes (a change of the cluster's state: batches of bad parts,
// maintenance campaigns): the two-scale kernel of fit_hawkes_two_scale, its immigrants a
// two-state Markov-modulated Poisson process (high a share `high_share` of the time in
// exponential spells of mean `high_mean_s`, immigrants `rate_ratio` > 1 times as often there as
// in the low state: 9 parameters), and optionally (with_repairs) each fault's repair lognormal
// with its median `repair_scale` times as long when it starts in the high state (11). Maximum
// likelihood by the forward algorithm over the hidden state (exact), Newton's method from the
// two-scale fit and a grid of regimes; 95% delta-method intervals on unbounded scales (Eigen).
// Its delta_aic (kernels.delta_aic) is against a Poisson process of the faults (1 parameter),
// with repairs also against independent lognormal repairs (2 more), so it compares with the
// other candidates' gains. No time-rescaling test: the state is hidden.
// A repair law of two lognormal parts, one short and one long (a log whose repairs are partly
// minutes and partly days): with probability short_share lognormal of median short_median_s and
// log-sd short_sigma, else of median long_median_s >= short_median_s and log-sd long_sigma. The
// sigmas are kept at least 0.05 (the repair-law candidates' limit: repairs of one length would
// otherwise drive the likelihood to infinity). 95% delta-method intervals (on the logit and log
// scales) where the fit that made it reports them.
struct RepairMixture {
  double short_share = 0.0, short_share_lo = 0.0, short_share_hi = 0.0;
  double short_median_s = 0.0, short_median_lo_s = 0.0, short_median_hi_s = 0.0;
  double short_sigma = 1.0;
  double long_median_s = 0.0, long_median_lo_s = 0.0, long_median_hi_s = 0.0;
  double long_sigma = 1.0;
  double mean_s = 0.0, mean_lo_s = 0.0, mean_hi_s = 0.0;  // the law's mean
  double log_likelihood = 0.0;  // of the repairs it was fitted to (fit_repair_mixture only)
  bool converged = false;
};

// One RepairMixture for every repair (censored ones by their survival), by maximum likelihood
// (EM on the logs for a start, then Newton's method on the censored likelihood, Eigen). Not
// converged with fewer than 10 repairs or repairs of (nearly) one length.
RepairMixture fit_repair_mixture(const std::vector<Interval>& repairs);

struct RegimeFit {
  HawkesFit kernels;  // scales 2; mu_per_s is the immigrants' time-average rate
  bool with_repairs = false;
  double high_share = 0.0, high_share_lo = 0.0, high_share_hi = 0.0;
  double rate_ratio = 1.0, rate_ratio_lo = 1.0, rate_ratio_hi = 1.0;
  double high_mean_s = 0.0, high_mean_lo_s = 0.0, high_mean_hi_s = 0.0;
  double repair_scale = 1.0, repair_scale_lo = 1.0, repair_scale_hi = 1.0;  // 1 without repairs
  double repair_sigma = 0.0;  // of the lognormal repairs in either state
  // The engine's scales of each kind's repair law (fitted on the repairs of both states): high
  // over low is repair_scale, and weighted by the share of faults that start in each state
  // (high_fault_share, as the engine samples them: process_means.h) they average 1, so each kind
  // keeps its mean repair.
  double high_fault_share = 0.0;
  double low_repair_scale = 1.0, high_repair_scale = 1.0;
  double log_likelihood = 0.0;             // of the fault times and repairs, 11 parameters
  double iid_repair_log_likelihood = 0.0;  // the repairs as one lognormal, 2 parameters
  bool converged = false;
  // With a repair law per state (fit_hawkes_regime_repairs; with_repairs false): each fault's
  // repair from the RepairMixture of the state it starts in (18 parameters), against the same
  // arrivals with every repair from one RepairMixture (iid_repairs, 5).
  bool state_repairs = false;
  RepairMixture state_repair[2];  // [0] low, [1] high state
  RepairMixture iid_repairs;
  // Per fault (times_s order): the chance that its state was high, given every fault time and
  // repair (forward-backward over the hidden state).
  std::vector<double> high_posterior;
  // The engine's repair law of each state: the log's repairs (floored at 1 s; open ones at their
  // length so far), each in the state more probable for it (high_posterior > 0.5), sorted. The
  // mixtures choose the model and find the states; replaying the repairs keeps the log's own
  // tail, which two lognormal parts overstate when one part's sigma is large.
  std::vector<double> state_values_s[2];
};

// Repairs shared by faults of one incident (the engine's shared_repairs, failure_source.h): a
// fault that starts within `window_s` of the previous fault (of the faults given, in start
// order) while that fault is still in repair is a candidate; it shares the repair when its end
// is within the resolution r of the previous fault's end (r as DeferredRepairFit's: kResolutionS,
// or the log's time unit when coarser). Open repairs are neither candidates nor previous faults
// for one. `probability` is shared / candidates with its exact (Clopper-Pearson) 95% interval.
// Chance alone makes two independent repairs end within r of each other now and then (most
// often when both are short); `expected` is the sum over the candidates of that chance, the share
// of the closed repairs whose length is within r of the candidate's time to the previous fault's
// end, and `p_value` the Poisson upper tail of `shared` at that mean. Supported with at least
// kMinShared shared repairs and p_value < 0.01. The test compares ends only: the likelihood of
// one end given another is not a density the other candidates' AIC can be set against.
struct SharedRepairFit {
  static constexpr int kMinShared = 3;
  double window_s = 0.0, resolution_s = 0.0;
  int64_t candidates = 0, shared = 0;
  double probability = 0.0, probability_lo = 0.0, probability_hi = 0.0;
  double expected = 0.0;  // shared ends that independent repairs would give
  double p_value = 1.0;
  double down_share = 0.0;        // the shared faults' share of the down time of the faults given
  std::vector<char> is_shared;    // per fault (the order given)
  bool supported = false;
};
// `repairs[i]` the repair of the fault starting at `starts_s[i]` (sorted; failed = false: open).
SharedRepairFit fit_shared_repairs(const std::vector<double>& starts_s,
                                   const std::vector<Interval>& repairs, double window_s);

struct KindFit {
  std::string name;
  int64_t faults = 0;
  // The chosen arrival model's AIC minus the independent exponential model's (0: exponential or
  // too few faults; the Hawkes process's delta_aic when it is chosen).
  double aic_gain = 0.0;
  RateEstimate rate;                                           // per node (all faults of the kind)
  std::vector<std::pair<std::string, RateEstimate>> by_cause;  // per node, by class/component
  BurstFit bursts;
  std::vector<LawFit> lifetime;  // candidates (empty: too few events)
  int lifetime_choice = -1;      // index into lifetime, -1 = none
  LemonFit lemons;
  HawkesFit hawkes;  // fitted when the law is (enough faults); written when hawkes.chosen
  RateEstimate process_rate;            // the engine's rate: burst leaders, non-lemons
  std::vector<LawFit> repair;           // parametric candidates
  std::string repair_law;               // fixed | exponential | weibull | lognormal | empirical
  int repair_choice = -1;               // index into repair when parametric
  // The repairs the law is fitted to (sorted, floored at 1 s) and their quantiles: every repair
  // of the kind, or, with shared repairs written (this kind's own, or the pooled process's),
  // those not shared, since the engine takes a shared repair from the previous failure.
  std::vector<double> repair_values_s;
  double repair_median_s = 0.0, repair_mean_s = 0.0, repair_p90_s = 0.0;
  // Faults of the kind that share the previous fault's repair (fit_shared_repairs on the kind's
  // faults, in the burst window; is_shared per fault of the kind in start order). Written with
  // the kind's process when the kinds are fitted apart (shared_chosen).
  SharedRepairFit shared;
  bool shared_chosen = false;
  std::vector<std::string> notes;  // what the fit could not claim, and why
};

// Clustering across kinds: the faults of every kind as one marked Hawkes process over the cluster
// (a fault of any kind excites all; each fault's kind drawn by its share, independent of the
// past), with one or two time scales, against the kinds fitted apart. Each is measured as its AIC
// gain over independent exponential faults: the Poisson process of the pooled faults with kind
// shares is the kinds' independent Poisson processes (the same likelihood, as many parameters),
// so the gains compare by the criterion each kind's own choice used. The pooled stream leaves out
// faults that start inside an earlier repair of their node (any kind): the engine's process thins
// those, and they trigger nothing.
// Repairs that wait for a maintenance visit (the engine's deferred_repairs, failure_source.h):
// each fault, with chance `share`, is not repaired on its own but at the first visit after it
// starts, visits a Poisson process of mean gap `visit_interval_s`, and every deferred fault open
// at a visit ends at it; the others' repairs come from one RepairMixture. Repair ends are known
// to a resolution r: kResolutionS, or the log's time unit when it records whole minutes or hours
// (every start a multiple of it). An end on its own counts as the mixture's chance of that r and
// a visit as the chance of a visit in it; a deferred fault must see no visit between its start
// and its end. The likelihood of a set of visits (and so of deferred faults) is then
//   sum over the others (ln(1 - share) + their own term) + deferred x ln(share)
//     + visits x ln(visits / waiting x r) - visits,
// `waiting` the time some deferred fault is waiting (the union of their repairs; visits outside
// it close nothing and are not seen). The search and the AIC use this likelihood, so a visit of
// two repairs that end together by chance pays for the whole wait of both. The visit interval
// is not its maximum (waiting / visits): a visit is seen only when it closes a candidate (two
// deferred faults, started more than RepairBatches::kBatchSpreadS apart), so the visits seen
// are those that waited long enough to gather one, and their waits read the interval long
// (by about 40% at a share of 0.08 and visits every 20 d). The interval is instead visits over
// `watched`: the sum over the visits of the time from the start of the first deferred fault
// that completes the candidate rule to the visit. From that moment the wait left is a whole
// visit gap's, whatever came before (the visits are memoryless), so the estimate is unbiased.
// Faults deferred alone are taken for repairs of their own, so `share` counts the deferred
// faults of the visits seen: a lower bound. The fitted visits are then checked against the
// waits (a parametric bootstrap of `draws` logs): each of the log's faults deferred with chance
// `share`, visits a Poisson process of the fitted interval over the span, a visit seen by the
// candidate rule; the seen deferred faults' mean wait of each draw against the log's
// (`mean_wait_s`), two-sided. Under the model it is about the interval (the selection of long
// gaps and the unseen short ones nearly cancel); a log whose deferred faults waited far longer
// than its visits let them (or far shorter) has visits that are not a Poisson process, and the
// model would misstate their down time: `waits_fit` is then false (the fit then writes no
// visits, fit.cpp). Candidate visits are the closed repairs' ends within r of one another, at
// least 2, of faults that started over more than RepairBatches::kBatchSpreadS (repairs of one
// burst that end together are the burst's, not a visit's), at most kMaxCandidates of them (the
// largest); visits are added one at a time while the likelihood grows (a greedy search, not an
// exhaustive one), then the others' mixture is refitted. Supported with at least kMinVisits
// visits and a lower AIC (2 parameters more) than one mixture for every repair.
struct DeferredRepairFit {
  static constexpr double kResolutionS = 60.0;
  static constexpr int kMinVisits = 3;
  static constexpr int kMaxCandidates = 200;
  // Logs the wait check draws (one step per fault each): enough that its p-value is not its own
  // resolution.
  static constexpr int kWaitDraws = 999;
  std::string not_fitted;     // why no visit was looked for ("" when the search ran)
  double resolution_s = 0.0;  // r, above
  int candidates = 0;         // all of them, considered or not
  int visits = 0;
  int64_t deferred = 0;
  double share = 0.0, share_lo = 0.0, share_hi = 0.0;  // exact (Clopper-Pearson) 95% interval
  double visit_interval_s = 0.0, visit_interval_lo_s = 0.0, visit_interval_hi_s = 0.0;
  double watched_s = 0.0;    // the visits' watched time (above); visit_interval_s's exposure
  double mean_wait_s = 0.0;  // the deferred faults' mean repair
  double log_likelihood = 0.0;      // with the visits, the others' mixture refitted
  double iid_log_likelihood = 0.0;  // one mixture for every repair
  double delta_aic = 0.0;           // AIC(with visits) - AIC(one mixture)
  RepairMixture rest;               // the others' repair law
  std::vector<char> is_deferred;    // per repair (the order of the repairs given)
  // The waits against the fitted visits (above): over the draws that saw a visit (a draw
  // without one has no mean wait; 0 when none did), the mean of the seen deferred faults' mean
  // wait and its 2.5th and 97.5th percentiles; the two-sided p-value of the log's over every
  // draw (one that sees no visit counts as far from the log either way); the draws that saw one.
  double model_wait_s = 0.0, model_wait_lo_s = 0.0, model_wait_hi_s = 0.0;
  double wait_p = std::numeric_limits<double>::quiet_NaN();  // NaN: not checked (no draws)
  int wait_draws = 0;
  bool waits_fit = false;  // p >= 0.05
  bool supported = false;
};
// `repairs[i]` the repair of the fault starting at `starts_s[i]` (failed = false: still open,
// never deferred), over a log of `span_s`; ends within r of the span are not candidates (a log
// may close every open repair at its end). Not supported (nothing claimed) with fewer than 10
// repairs. The wait check draws `draws` logs from Stream(seed, b, "fit.deferred.waits").
DeferredRepairFit fit_deferred_repairs(const std::vector<double>& starts_s,
                                       const std::vector<Interval>& repairs, double span_s,
                                       int draws = DeferredRepairFit::kWaitDraws,
                                       uint64_t seed = 1);

// The pooled faults as incidents: runs of faults each starting within the burst window of the
// previous, on distinct nodes (the kinds' burst rule). The pooled process may be the incidents'
// first faults (the leaders) with each incident's size and its partners' delays as marks,
// instead of every fault: the engine's burst then brings the partners, with the log's sizes.
// Both are measured on every pooled fault: the leaders' candidates (one and two time scales,
// regimes of the arrivals) by their AIC gain over the leaders' Poisson process plus
// `marks.gain`, the marks (IncidentMarks) and the leaders' Poisson process against every
// fault's Poisson process. The arrival candidates of
// each (repairs aside) decide (`chosen`); the repair laws per state are then fitted on the set
// chosen. Fitted when at least 3 incidents take several nodes and the leaders are enough to fit.
struct PooledIncidents {
  bool fitted = false;
  int64_t incidents = 0;           // leaders
  int64_t multi = 0;               // incidents of two or more nodes
  int64_t partners = 0;            // the faults after an incident's first
  std::vector<int> sizes;          // nodes of each multi-node incident, ascending
  double probability = 0.0;        // multi / incidents (the engine's burst probability)
  double mean_size = 1.0;          // nodes per multi-node incident
  IncidentMarks marks;
  // The arrival candidates of the set not chosen, for the report: the leaders' (their gains
  // with marks.gain added) when every fault is chosen, every fault's when the leaders are.
  HawkesFit one, two;
  RegimeFit regime;
  double best_leaders_gain = 0.0;  // the leaders' best arrival candidate + marks.gain
  double best_faults_gain = 0.0;   // every fault's best arrival candidate
  bool chosen = false;
};

struct PooledFit {
  int64_t events = 0;
  std::vector<double> times_s;  // the pooled faults' start times, sorted
  std::vector<Interval> repairs;  // their repairs (floored at 1 s; open ones censored)
  RateEstimate rate;           // the engine's rate: pooled faults per node-second outside repairs
  std::vector<double> shares;  // per kind (TraceFit::kinds order): its share of the pooled faults
  HawkesFit one, two;          // one and two time scales
  RegimeFit regime;            // two time scales with regimes of the arrivals
  // The same with a repair law per state (fit_hawkes_regime_repairs from `regime`). Its AIC gain
  // (kernels.delta_aic) is over independent faults with independent repairs of one
  // RepairMixture: the other candidates leave the repairs independent of the arrivals, so the
  // gains compare when their repairs are that mixture.
  RegimeFit regime_repairs;
  // Which node a pooled fault hits: the two-class rate mixture on the pooled faults per node (a
  // node-choice model; its AIC gain adds to the Hawkes process's, which models the times only).
  LemonFit lemons;
  double lemon_gain = 0.0;  // lemons.aic - the exponential's, when lemons.supported; else 0
  double apart_gain = 0.0;  // sum over kinds of KindFit::aic_gain
  int chosen_scales = 0;    // 0: kinds apart (one process each); 1 or 2: the pooled process
  bool regime_chosen = false;  // the pooled process chosen is `regime` (chosen_scales 2)
  bool regime_repairs_chosen = false;  // it is `regime_repairs` (chosen_scales 2)
  // Why `regime` and `regime_repairs` were not fitted ("" when they were, or when the pooled
  // faults are too few for any pooled fit).
  std::string regime_skipped;
  // Which repairs wait for a maintenance visit (fit_deferred_repairs on the pooled faults).
  // Written with the regime's repair laws per state only (deferred_chosen): those replay the
  // log's repairs, and the deferred faults' repairs then leave them; the kinds' fitted laws
  // would count them twice.
  DeferredRepairFit deferred;
  bool deferred_chosen = false;
  // Which faults share the previous fault's repair (fit_shared_repairs on the pooled faults, in
  // the burst window). Written with the pooled process when supported (shared_chosen); the
  // repairs it draws then leave out the shared ones, which the engine takes from the previous
  // failure: the regime's replayed repairs per state, or else the kinds' laws, refitted.
  SharedRepairFit shared;
  bool shared_chosen = false;
  // The pooled faults as incidents; when incidents.chosen, `one`, `two`, `regime` and
  // `regime_repairs` above are the leaders' (their AIC gains on every fault: marks.gain added),
  // their rate is the leaders', and `shares` are the leaders' kinds.
  PooledIncidents incidents;
  // The chosen pooled process's kernels (one, two, regime or regime_repairs); REQUIRES
  // chosen_scales > 0.
  const HawkesFit& chosen() const {
    return regime_repairs_chosen ? regime_repairs.kernels
           : regime_chosen       ? regime.kernels
           : chosen_scales == 1  ? one
                                 : two;
  }
};

// Repairs closed in batches: runs of at least kMinBatch repair ends, each within kBatchGapS of
// the previous, whose faults started over more than kBatchSpreadS. Such a run is not a burst
// (faults of one event, repaired together) but repairs that waited for one another: operators
// closing deferred repairs in one campaign. Every repair law of the fit (and so the engine)
// draws each repair on its own, so a log with batches holds more nodes down together, for
// longer, than the fitted model does; the fit reports them rather than model them.
struct RepairBatches {
  static constexpr int kMinBatch = 3;
  static constexpr double kBatchGapS = 60.0;
  static constexpr double kBatchSpreadS = 86400.0;
  int batches = 0;
  int64_t faults = 0;         // faults whose repairs ended in a batch
  double down_share = 0.0;    // their share of all down node-time in the log (open repairs to span)
  int largest = 0;            // the largest batch's repairs
  double largest_at_s = 0.0;  // when it closed
  double largest_first_start_s = 0.0, largest_last_start_s = 0.0;  // its faults' starts
  std::vector<size_t> members;  // the batched faults (TraceData::faults indices), ascending
};
// The batches of repairs in a trace (closed repairs only).
RepairBatches find_repair_batches(const TraceData& trace);

struct TraceFit {
  std::string file;
  std::string source_hash;
  int64_t nodes = 0;       // observed population
  int64_t nodes_seen = 0;  // nodes with at least one fault
  double span_s = 0.0;
  int64_t faults = 0;
  FitOptions options;
  std::vector<KindFit> kinds;
  PooledFit pooled;  // fitted when there are at least two kinds and min_events pooled faults
  RepairBatches batches;  // reported, not modelled
};

// Errors (bad input, naming the file and the line or entry): fewer nodes than the trace names, a
// zero span, a fault of one node starting inside that node's earlier repair of the same kind.
Result<TraceFit> fit_trace(const TraceData& trace, const FitOptions& options);

// A burst fit's sizes in words: "3" when every multi-node cluster has 3 nodes, else
// "2-19 (mean 2.6)".
std::string burst_size_text(const BurstFit& b);

// The fit as a scenario fragment for `include:` (failures.processes, one per kind, component
// node), with the provenance and every test result in comments.
std::string fitted_failures_yaml(const TraceFit& fit);

// What the fitted model is, a line each, for a terminal: the arrivals chosen (the pooled process
// or each kind's law) with their AIC gain, lemons, shared repairs and maintenance visits (written
// or why not), and the batches the model does not hold together. Each line starts with a label.
std::vector<std::string> fitted_model_summary(const TraceFit& fit);

// Building blocks, exposed for tests.
LawFit fit_exponential(const std::vector<Interval>& data);
LawFit fit_weibull(const std::vector<Interval>& data);
LawFit fit_lognormal(const std::vector<Interval>& data);
RateEstimate poisson_rate(int64_t events, double exposure_s);
// `times_s` sorted in [0, span_s]; `bootstrap` Monte Carlo samples for the KS p-value (0: NaN),
// drawn from Stream(seed, b, stream). Not converged (nothing claimed) with fewer than 2 faults or
// a span no longer than min_delay_s.
HawkesFit fit_hawkes(const std::vector<double>& times_s, double span_s, double min_delay_s,
                     int bootstrap, uint64_t seed, const std::string& stream);
// The same with a kernel of two exponential components, fast (branching, mean_delay_s) and slow
// (slow_branching, slow_mean_delay_s >= mean_delay_s): intensity mu + sum over earlier faults of
// n1/tau1 e^(-dt/tau1) + n2/tau2 e^(-dt/tau2), n1 + n2 <= 0.99. Maximum likelihood by Newton's
// method from the best of a grid of starts; 95% delta-method intervals on the logit scales of
// the bounded parameters (Eigen); time-rescaling KS as above. A stationary model whose slow
// excitation lasts weeks swings over months, which one fast kernel cannot.
HawkesFit fit_hawkes_two_scale(const std::vector<double>& times_s, double span_s,
                               double min_delay_s, int bootstrap, uint64_t seed,
                               const std::string& stream);
// RegimeFit, from the two-scale fit `start` of the same times; with_repairs: `repairs[i]` is the
// repair of the fault at times_s[i] (failed = false: still open at the span, censored), else
// unused. Not converged (nothing claimed) when `start` did not converge, with fewer than 2
// faults, or (with repairs) when the repairs have (nearly) one length. The derivatives run on
// `threads` threads; the fit is identical for any count.
RegimeFit fit_hawkes_regime(const std::vector<double>& times_s,
                            const std::vector<Interval>& repairs, double span_s, double min_delay_s,
                            const HawkesFit& start, bool with_repairs, int threads = 1);
// RegimeFit with a repair law per state (state_repairs): the arrivals of fit_hawkes_regime and
// each fault's repair (`repairs[i]`, of times_s[i]) from the RepairMixture of the state the
// fault starts in. Maximum likelihood by the forward algorithm; the start is the times-only fit
// `start` with each state's mixture fitted to the repairs weighted by the state's posterior
// (forward-backward), repeated a few times (an EM step for the repair laws), then Newton's
// method on all 18 parameters; 95% delta-method intervals (Eigen). Not converged when `start`
// did not converge or fit_repair_mixture does not on the repairs. Threads as fit_hawkes_regime.
RegimeFit fit_hawkes_regime_repairs(const std::vector<double>& times_s,
                                    const std::vector<Interval>& repairs, double span_s,
                                    double min_delay_s, const RegimeFit& start, int threads = 1);
// The arrivals of a regime fit as the engine's process: distribution hawkes with the fit's two
// kernels, its regime and (with_repairs) its repair scales. Rate and kinds are left empty (the
// caller's: a process per log or a test's).
FailureProcess regime_process(const RegimeFit& f);

}  // namespace ntpsim::sim
