// Aggregates over replications (DESIGN.md §3.5): mean, sd, 95% CI (Student t), percentiles, and
// paired differences between strategies run on the same failure realizations.
//
// The Student-t quantile and the percentiles come from models/base/statistics.h (Boost.Math;
// Hyndman-Fan type 7, numpy's default). NaN values are skipped.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

namespace ntpsim::sim {

struct Stat {
  double mean = 0, sd = 0, ci95_lo = 0, ci95_hi = 0;
  double p5 = 0, p50 = 0, p95 = 0, min = 0, max = 0;
  int64_t n = 0;
  double ci95_halfwidth() const { return 0.5 * (ci95_hi - ci95_lo); }
};

// Summary of `values` (NaNs skipped). With n = 1 the sd is 0 and the CI collapses to the value.
Stat summarize(const std::vector<double>& values);

// Mean and 95% CI of (a[i] - b[i]) over the pairs where both are finite.
struct PairedDiff {
  double mean = 0, ci95_lo = 0, ci95_hi = 0;
  int64_t n = 0;
};
PairedDiff paired_difference(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace ntpsim::sim
