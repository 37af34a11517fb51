// Sensitivity analysis (`ntpsim sensitivity`, docs/sensitivity.md): which uncertain input decides
// which recovery strategy wins, and how sure the winner is.
//
// Inputs: the scenario's `uncertain:` section maps field paths to a range or a distribution:
//   uncertain:
//     recovery.spare_swap: [1min, 10min]                            # a range (uniform)
//     recovery.restart: {lognormal: {median: 10min, sigma: 0.5}}    # optional low:, high:
//     recovery.detection: {triangular: [30s, 1min, 5min]}
//     checkpoint.write: {normal: {mean: 1min, sd: 15s, low: 10s}}
//     failures.processes[0].rate: {uniform: ["1e-5/h", "4e-5/h"]}
// (distribution.h gives the kinds, parameters and truncation). Every value is parsed by the same
// units parser as the field's resolved value (durations, rates, powers, bandwidths, sizes,
// fractions, plain numbers; a lognormal's sigma is a plain number) and the values an input can
// take (its one-at-a-time bounds and the ends of its distribution's support) are validated by
// loading the scenario with the `--set` override "path=value", so they are checked exactly like
// the field itself (unknown fields, units, ranges, cross-section constraints). Bad entries are
// errors "file:line:col: uncertain.<path>: ...".
// Without the section, the default inputs are the fields the scenario has among the recovery
// costs and checkpoint write/restore/exposed fraction, over the plausible range of
// recovery_costs.h with its published source (widened to include the resolved value, with a
// note, when that lies outside), and the failure rates, repair times, the power cap and
// (analytic step model) the GEMM and network efficiencies, each over +-50% of its resolved value
// (efficiencies capped at 1; the power cap kept >= TDP, and left out when the profile puts it at
// TDP). A default bound the field rejects leaves the input out with a note. Default inputs are
// uniform over their range.
// Whole-number fields take the nearest integer.
//
// Every evaluation loads the scenario with the inputs' overrides and runs it through
// run_monte_carlo with the scenario's seed, so all evaluations and strategies share common
// random numbers. The decision quantity is each strategy's mean goodput (higher wins; ties go to
// the earlier strategy). Evaluations run one after another, each spread over threads (and MPI
// ranks) by the replication runner: results are byte-identical for any thread and rank count.
//
//  * One-at-a-time (tornado): every input at its low and high value (a range's or uniform's
//    ends, otherwise the 5% and 95% quantiles of its distribution), the others at their resolved
//    values; inputs ranked by swing (the largest change of a strategy's mean goodput between the
//    two); an input whose low or high value changes the winner is flagged.
//  * Break-even: with d = goodput(leader) - goodput(runner-up) known at the low, resolved and
//    high values of an input, each pair of neighbouring values (in increasing order) where d
//    changes sign brackets a tie, narrowed by `bisection_steps` bisections; the report gives the
//    bracket midpoint, half its width, and the paired 95% CI of d at the midpoint.
//  * Global (sobol.h): two Latin hypercubes A and B of `samples` rows each over the inputs'
//    distributions (inverse-CDF sampling; models/base/random.h streams from the scenario seed)
//    give each strategy's probability of winning over the 2N worlds with a Wilson 95% interval;
//    with `indices`, the N k rows AB_i add each input's first-order (Saltelli 2010) and total-
//    effect (Jansen) index of d, with bootstrap errors and their convergence over n/4, n/2 and n
//    rows.
//
// Limits: the planned evaluations (1 + 2k + 2k (bisection_steps + 1) upper bound + N (k + 2), or
// + 2N without indices) must not exceed max_evaluations; a larger plan is refused before
// anything runs.
// Thread safety: run_sensitivity is reentrant; `progress` is called on the calling thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/scenario/scenario.h"
#include "sim/sensitivity/distribution.h"
#include "sim/sensitivity/sobol.h"

namespace ntpsim::sim {

enum class QuantityKind { kDuration, kRate, kPower, kBandwidth, kSize, kFraction, kNumber };

struct UncertainInput {
  std::string path;  // scenario field path, as for --set
  QuantityKind kind = QuantityKind::kNumber;
  // The one-at-a-time values (SI units: seconds, per second, watts, bytes, fractions): a range's
  // or uniform's ends, otherwise the distribution's 5% and 95% quantiles.
  double lo = 0, hi = 0;
  double base = 0;                 // the resolved value
  InputDistribution distribution;  // what the global analysis samples
  bool declared = false;           // from `uncertain:` (else a default range)
  // Where the range comes from: "uncertain: at file:line:col" of the entry, "default +-50%", or the
  // published source of a recovery_costs.h range.
  std::string source;
  // A whole-number field (resolved as a plain integer, e.g. cluster.spare_domains): values are
  // rounded to the nearest integer when applied, and its bounds must be whole numbers.
  bool integer = false;
};

// The override "path=<value>" setting `in` to `value` (SI), in a form its parser reads back.
std::string uncertain_override(const UncertainInput& in, double value);
// "duration", "rate", "power", "bandwidth", "size", "fraction", "number".
const char* quantity_kind_name(QuantityKind kind);
// The one-at-a-time rule of `in`: "range ends" or "5%/95% quantiles".
std::string oat_rule(const UncertainInput& in);
// The input's distribution in display units: "[1min, 10min]", "lognormal(median 10min, sigma
// 0.5) in [0s, 1h]".
std::string describe_distribution(const UncertainInput& in);
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
  int samples = 64;      // rows N of each Latin hypercube A and B; 0 skips the global analysis
  bool indices = true;   // also the N k rows AB_i and the Sobol' indices (else A and B only)
  int bisection_steps = 10;
  int64_t max_evaluations = 2000;
  // Each evaluation's replications spread over MPI ranks (montecarlo.h). Every rank receives
  // every replication, so every rank takes the same decisions and builds the same result.
  Distribution distribution;
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

struct GlobalResult {
  int samples = 0;  // N
  bool indices = false;
  std::vector<std::vector<double>> x;        // [row][input], SI: the N rows of A, then of B
  std::vector<int> winner;                   // [row] of x
  std::vector<std::vector<double>> goodput;  // [row][strategy] means, rows of x
  // Over the 2N rows of A and B; the "half" estimate over the first N/2 rows of each.
  std::vector<double> win_probability, win_ci95_lo, win_ci95_hi;  // [strategy]
  std::vector<double> win_probability_half;                       // [strategy]
  SobolResult sobol;  // indices of d = goodput(leader) - goodput(runner_up), with `indices`
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

// Resuming an interrupted analysis (`ntpsim sensitivity --resume FILE`). Evaluations are numbered
// in the order the analysis asks for them; for the same scenario, overrides and options that order
// is the same in every run, since each choice depends only on earlier results, which are
// deterministic. A recorded evaluation is used in place of running it, so a resumed analysis
// gives the same result as an uninterrupted one.
struct SensitivityHooks {
  // Evaluation number `index` as recorded by an earlier run, or nullopt to run it.
  std::function<Result<std::optional<Evaluation>>(int index)> recorded;
  // After evaluation `index` ran (not called for a recorded one); an error stops the analysis.
  std::function<Status(int index, const Evaluation& e)> finished;
};

// Evaluations the analysis plans at most for `inputs` inputs.
int64_t planned_evaluations(int inputs, const SensitivityOptions& options);

// Runs the three analyses. Errors: bad input (inputs, limits, scenarios), runtime (interrupted:
// "interrupted after K of at most N evaluations").
Result<SensitivityResult> run_sensitivity(const std::string& file,
                                          const std::vector<std::string>& overrides,
                                          const SensitivityOptions& options,
                                          const SensitivityHooks& hooks = {});

// The results as JSON (kind "sensitivity"), CSV (one row per input x strategy of the tornado,
// plain SI numbers), and the terminal summary, verdict first.
nlohmann::ordered_json sensitivity_json(const SensitivityResult& r);
std::string sensitivity_csv(const SensitivityResult& r);
std::string sensitivity_summary(const SensitivityResult& r);

}  // namespace ntpsim::sim
