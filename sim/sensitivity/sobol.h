// Variance-based importance of the sensitivity analysis (sensitivity.h): the sampling design and
// the Sobol' index estimators, apart from the simulator so that they can be checked on functions
// whose indices are known in closed form.
//
// Design (Saltelli et al. 2010, "Variance based sensitivity analysis of model output", Comput.
// Phys. Commun. 181:259-270): two independent Latin hypercubes A and B of n rows over the k
// inputs (each input's column is a random permutation of the n equal strata of [0, 1) with a
// uniform point in each stratum, mapped through the input's quantile function), and for each
// input i the matrix AB_i: A with column i taken from B. f is evaluated on the n(k + 2) rows.
//
// Estimators, with V the variance of f over the 2n rows of A and B (divisor 2n - 1):
//   first order  S_i  = (1/n) sum_j f(B)_j (f(AB_i)_j - f(A)_j) / V      (Saltelli 2010, b)
//   total effect ST_i = (1/2n) sum_j (f(A)_j - f(AB_i)_j)^2 / V          (Jansen 1999, f)
// S_i is the share of Var f that input i explains alone; ST_i adds its interactions, so
// ST_i >= S_i up to sampling error, and ST_i = 0 exactly when f(AB_i) = f(A) on every row (an
// input that changes nothing). Both are undefined (NaN) when V = 0.
// Error: a bootstrap over the n rows (each resample takes whole rows of A, B and every AB_i, so
// the common-random-number pairing is kept): standard error and the 2.5%/97.5% percentile
// interval of `bootstrap` resamples. Convergence: the same estimates on the first n/4 and n/2
// rows (any prefix of a Latin hypercube's rows is a uniform random sample of each input).
// Thread safety: pure functions of their arguments (the bootstrap stream is a value).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/sensitivity/distribution.h"

namespace ntpsim {
class Stream;
}

namespace ntpsim::sim {

// n rows of a Latin hypercube in [0, 1)^k from `stream` (input j uses stream.child(j)).
std::vector<std::vector<double>> latin_hypercube_u(const Stream& stream, int k, int n);

// `u` ([row][input]) mapped through each input's quantile function.
std::vector<std::vector<double>> to_quantiles(const std::vector<std::vector<double>>& u,
                                              const std::vector<InputDistribution>& dists);

struct SobolEstimate {
  double value = 0;  // NaN when Var f = 0
  double stderr_ = 0;
  double ci95_lo = 0, ci95_hi = 0;  // bootstrap percentile interval
};

struct SobolIndex {
  SobolEstimate first_order, total;
};

struct SobolConvergencePoint {
  int rows = 0;
  std::vector<double> first_order, total;  // [input]
};

struct SobolResult {
  double variance = 0;                             // Var f over A and B
  std::vector<SobolIndex> index;                   // [input]
  std::vector<SobolConvergencePoint> convergence;  // n/4, n/2 and n rows (those >= 2)
  int bootstrap = 0;
};

// The indices from f over A (`fa`, n values), B (`fb`) and each AB_i (`fab[i]`, n values).
// REQUIRES: fa.size() == fb.size() == fab[i].size() >= 2.
SobolResult sobol_indices(const std::vector<double>& fa, const std::vector<double>& fb,
                          const std::vector<std::vector<double>>& fab, Stream bootstrap_stream,
                          int bootstrap = 200);

}  // namespace ntpsim::sim
