// Order statistics of samples, in one place for every component (metrics, the planner,
// validation, calibration, trace statistics).
//
// percentile_sorted is the type-7 estimator of Hyndman and Fan (R's default, NumPy's "linear"):
// linear interpolation between the closest ranks, position q (n - 1). nearest_rank_quantile is
// the nearest-rank estimator (the smallest value with at least q n of the samples at or below
// it), which never interpolates: the planner's confidence statements are about values one of
// its replications actually reached.
// The distribution quantiles (Student's t, standard normal) are Boost.Math's, which is accurate
// to a few ulps over the whole range, tails included.
// Thread safety: pure functions.
#pragma once

#include <vector>

namespace ntpsim {

// The type-7 q-quantile of `sorted` (ascending). REQUIRES: !sorted.empty(), 0 <= q <= 1.
double percentile_sorted(const std::vector<double>& sorted, double q);

// The nearest-rank q-quantile of `values` (any order): the element of rank
// clamp(ceil(q n), 1, n). REQUIRES: !values.empty().
double nearest_rank_quantile(std::vector<double> values, double q);

// The p-quantile of Student's t distribution with `dof` degrees of freedom (confidence
// intervals of means and paired differences). REQUIRES: 0 < p < 1, dof > 0.
double student_t_quantile(double p, double dof);

// Φ^-1(p), the standard normal quantile, for p in [0, 1]: -inf at p = 0, +inf at p = 1.
double inverse_normal_cdf(double p);

}  // namespace ntpsim
