// Parameter sweeps (`ntpsim sweep`): one or two scenario fields varied over lists or ranges, each
// point loaded as the scenario with `path=value` overrides and run by run_monte_carlo.
//
// A vary spec is "path=v1,v2,..." (values as a user would write them in YAML, units allowed) or
// "path=a:b:step" (plain numbers, a to b inclusive). Two specs give their cartesian product, the
// first varying slowest.
// Thread safety: reentrant; the progress callback is forwarded to run_monte_carlo.
#pragma once

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

// Loads `file` with `overrides` (the base), then each point with overrides + its values.
// REQUIRES: 1 <= vary.size() <= 2.
Result<SweepRun> run_sweep(const std::string& file, const std::vector<std::string>& overrides,
                           const std::vector<VarySpec>& vary, const RunOptions& options);

}  // namespace ntpsim::sim
