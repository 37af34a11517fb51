// Sensitivity analysis (`ntpsim sensitivity`, docs/sensitivity.md): which uncertain input decides
// which recovery strategy wins, and how sure the winner is.
//
// Inputs: the scenario's `uncertain:` section maps field paths to a range, e.g.
//   uncertain:
//     recovery.spare_swap: [1min, 10min]
//     failures.processes[0].rate: ["1e-5/h", "4e-5/h"]
// Each bound is parsed by the same units parser as the field's resolved value (durations,
// rates, powers, bandwidths, sizes, fractions, plain numbers) and then validated by loading the
// scenario with the `--set` override "path=bound", so a bound is checked exactly like the field
// itself (unknown fields, units, ranges, cross-section constraints). Bad entries are errors
// "file:line:col: uncertain.<path>: ...". Without the section, the default inputs are the fields
// the scenario has among the recovery costs, checkpoint write and restore, failure rates, repair
// times, the power cap and (analytic step model) the GEMM and network efficiencies, each
// over +-50% of its resolved value (efficiencies capped at 1; the power cap kept >= TDP, and
// left out when the profile puts it at TDP). A default bound the field rejects leaves the input
// out with a note.
// Ranges are sampled uniformly; whole-number fields take the nearest integer.
//
// Every evaluation loads the scenario with the inputs' overrides and runs it through
// run_monte_carlo with the scenario's seed, so all evaluations and strategies share common
// random numbers. The decision quantity is each strategy's mean goodput (higher wins; ties go to
// the earlier strategy). Evaluations run one after another, each spread over threads by the
// replication runner: results are byte-identical for any thread count.
//
//  * One-at-a-time (tornado): every input at its low and high bound, the others at their resolved
//    values; inputs ranked by swing (the largest change of a strategy's mean goodput between the
//    two bounds); an input whose low or high bound changes the winner is flagged.
//  * Break-even: for an input where the sign of d = goodput(leader) - goodput(runner-up) at a
//    bound differs from its sign at the resolved value, the tie point is bracketed by
//    `bisection_steps` bisections of [bound, resolved]; the report gives the bracket midpoint,
//    half its width, and the paired 95% CI of d at the midpoint.
//  * Global: a Latin hypercube of `samples` points (models/base/random.h streams from the
//    scenario seed) gives each strategy's probability of winning with a Wilson 95% interval, and
//    each input's first-order index of d by the bias-corrected correlation ratio over
//    floor(sqrt(N)) equal-count bins of the input,
//      S = (SS_between - (B - 1) MS_within) / (SS_total + MS_within)
//    (Kelley's / Hays' omega squared: ~0 for an input that does not matter, may be slightly
//    negative), with a bootstrap standard error (200 resamples). Convergence: the same estimates
//    on the first N/2 samples.
//
// Limits: the planned evaluations (1 + 2k + 2k bisection_steps upper bound + samples) must not
// exceed max_evaluations; a larger plan is refused before anything runs.
// Thread safety: run_sensitivity is reentrant; `progress` is called on the calling thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

enum class QuantityKind { kDuration, kRate, kPower, kBandwidth, kSize, kFraction, kNumber };

struct UncertainInput {
  std::string path;  // scenario field path, as for --set
  QuantityKind kind = QuantityKind::kNumber;
  double lo = 0, hi = 0;  // SI units (seconds, per second, watts, bytes, fractions)
  double base = 0;        // the resolved value
  bool declared = false;  // from `uncertain:` (else a default +-50% range)
  // A whole-number field (resolved as a plain integer, e.g. cluster.spare_domains): values are
  // rounded to the nearest integer when applied, and its bounds must be whole numbers.
  bool integer = false;
};

// The override "path=<value>" setting `in` to `value` (SI), in a form its parser reads back.
std::string uncertain_override(const UncertainInput& in, double value);
// `value` in the field's display units ("5min", "1.97e-05/h").
std::string format_quantity(QuantityKind kind, double value);

struct UncertainInputs {
  std::vector<UncertainInput> inputs;
  // Overrides every evaluation applies first: the caller's, then (when an input is a hardware
  // field and the scenario names a profile) the resolved profile inlined so that its fields can
  // be overridden.
  std::vector<std::string> base_overrides;
  std::vector<std::string> notes;  // default inputs left out, and why
};

// Reads the inputs of `file` loaded with `overrides` (see above). Errors are bad input.
Result<UncertainInputs> read_uncertain_inputs(const std::string& file,
                                              const std::vector<std::string>& overrides);

struct SensitivityOptions {
  int replications = 0;  // > 0 overrides the scenario's count
  int threads = 0;       // 0 = all cores
  int samples = 64;      // Latin hypercube points; 0 skips the global analysis
  int bisection_steps = 10;
  int64_t max_evaluations = 2000;
  const std::atomic<bool>* cancel = nullptr;            // stops between and within evaluations
  std::function<void(int done, int planned)> progress;  // after each evaluation
};

struct StrategyPoint {
  double goodput = 0;             // mean over replications
  double time_to_train_days = 0;  // mean; NaN without a token budget
};

struct Evaluation {
  std::vector<StrategyPoint> strategies;  // scenario order
  int winner = 0;
  std::vector<std::vector<double>> goodput;  // [strategy][replication]
};

struct TornadoRow {
  int input = 0;
  Evaluation low, high;
  double swing = 0;
  bool changes_winner = false;
};

struct BreakEven {
  int input = 0;
  double value = 0;                                          // bracket midpoint (SI)
  double resolution = 0;                                     // half the final bracket width
  double diff_mean = 0, diff_ci95_lo = 0, diff_ci95_hi = 0;  // paired d at `value`
  // The runner-up leads on this side of `value`: true when below it.
  bool runner_up_below = false;
};

struct IndexEstimate {
  double first_order = 0, stderr_ = 0;
  double first_order_half = 0;  // on the first N/2 samples
};

struct GlobalResult {
  int samples = 0;
  std::vector<std::vector<double>> x;                             // [sample][input], SI
  std::vector<int> winner;                                        // [sample]
  std::vector<std::vector<double>> goodput;                       // [sample][strategy] means
  std::vector<double> win_probability, win_ci95_lo, win_ci95_hi;  // [strategy]
  std::vector<double> win_probability_half;                       // first N/2 samples
  std::vector<IndexEstimate> index;                               // [input]
};

struct SensitivityResult {
  std::string scenario_file;
  std::string scenario_hash;
  uint64_t seed = 0;
  int replications = 0;
  std::vector<std::string> strategies;  // labels
  bool time_to_train = false;           // the scenario has a token budget
  std::vector<UncertainInput> inputs;
  std::vector<std::string> notes;
  Evaluation base;
  int leader = 0, runner_up = 1;
  std::vector<TornadoRow> tornado;  // ranked by swing, largest first
  std::vector<BreakEven> break_even;
  GlobalResult global;
  int evaluations = 0;
};

// Evaluations the analysis plans at most for `inputs` inputs.
int64_t planned_evaluations(int inputs, const SensitivityOptions& options);

// Runs the three analyses. Errors: bad input (inputs, limits, scenarios), runtime (interrupted:
// "interrupted after K of at most N evaluations").
Result<SensitivityResult> run_sensitivity(const std::string& file,
                                          const std::vector<std::string>& overrides,
                                          const SensitivityOptions& options);

// The results as JSON (kind "sensitivity"), CSV (one row per input x strategy of the tornado,
// plain SI numbers), and the terminal summary, verdict first.
nlohmann::ordered_json sensitivity_json(const SensitivityResult& r);
std::string sensitivity_csv(const SensitivityResult& r);
std::string sensitivity_summary(const SensitivityResult& r);

}  // namespace ntpsim::sim
