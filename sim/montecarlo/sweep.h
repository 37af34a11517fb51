// Parameter sweeps (`ntpsim sweep`): one or two scenario fields varied over lists or ranges, each
// point loaded as the scenario with `path=value` overrides and run by run_monte_carlo.
//
// A vary spec is "path=v1,v2,..." (values as a user would write them in YAML, units allowed) or
// "path=a:b:step" (plain numbers, a to b inclusive). Two specs give their cartesian product, the
// first varying slowest.
// Memory: every point (its scenario and per-replication metrics, kMetricCount doubles per strategy
// and replication) stays in memory until the sweep is written; a sweep of more than
// kMaxSweepPoints points, or needing more than kMaxSweepMetricBytes for its metrics, is refused
// up front, before any point runs.
// Thread safety: reentrant; the progress callback is forwarded to run_monte_carlo.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/base/status.h"
#include "sim/montecarlo/montecarlo.h"
#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

struct VarySpec {
  std::string path;
  std::vector<std::string> values;
};

// Bad input for a missing '=', empty values, a malformed or empty range, or over 1000 values.
Result<VarySpec> parse_vary(const std::string& text);

struct SweepPoint {
  std::vector<std::pair<std::string, std::string>> values;  // (path, value) per varied field
  Scenario scenario;                                        // as loaded for this point
  RunResult result;
};

struct SweepRun {
  std::vector<std::string> parameters;  // the varied paths
  Scenario base;                        // the scenario without the varied overrides
  std::vector<SweepPoint> points;
};

// Each strategy's best point of a sweep: the point where its mean goodput is highest (the first
// such point on a tie). Over checkpoint.interval this is each strategy's best interval, which
// differs between strategies that are rolled back at different rates.
struct BestPoint {
  std::string name, label;  // the strategy
  size_t point = 0;         // index into SweepRun::points
  double goodput = 0;       // its mean goodput there
};
// One entry per strategy of the first point, matched by label in the others; empty with no
// points.
std::vector<BestPoint> best_point_per_strategy(const SweepRun& sweep);

inline constexpr size_t kMaxSweepPoints = 10000;
inline constexpr int64_t kMaxSweepMetricBytes = int64_t{2} << 30;  // 2 GiB

// Resume support (`ntpsim sweep --resume`, tools/ntpsim/cmd_sweep.cpp): before running point
// `index` (0-based, the first parameter varying slowest), `recorded` may return the point's stored
// result, which is then used instead of running it; after a point ran, `finished` is called with
// it, and an error it returns stops the sweep. Either may be empty.
struct SweepHooks {
  std::function<Result<std::optional<RunResult>>(size_t index, const Scenario& scenario)>
      recorded;
  std::function<Status(size_t index, const SweepPoint& point)> finished;
};

// Loads `file` with `overrides` (the base), then each point with overrides + its values, and runs
// it (or takes its recorded result). Every point's scenario is loaded before the first runs, so
// a bad value anywhere is reported before any work is done. When `options.cancel` stops the
// sweep, the runtime error says how many points finished.
// REQUIRES: 1 <= vary.size() <= 2.
Result<SweepRun> run_sweep(const std::string& file, const std::vector<std::string>& overrides,
                           const std::vector<VarySpec>& vary, const RunOptions& options,
                           const SweepHooks& hooks = {});

}  // namespace ntpsim::sim
