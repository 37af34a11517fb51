// Sobol' indices from a Saltelli design: see sobol.h.
#include "sim/sensitivity/sobol.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "models/base/random.h"
#include "models/base/statistics.h"

namespace ntpsim::sim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Var f over the rows `rows` of A and B together (divisor 2n - 1).
double variance_ab(const std::vector<double>& fa, const std::vector<double>& fb,
                   const std::vector<size_t>& rows) {
  const double n = static_cast<double>(rows.size());
  double mean = 0;
  for (size_t r : rows) mean += fa[r] + fb[r];
  mean /= 2 * n;
  double ss = 0;
  for (size_t r : rows) {
    ss += (fa[r] - mean) * (fa[r] - mean) + (fb[r] - mean) * (fb[r] - mean);
  }
  return ss / (2 * n - 1);
}

// S_i and ST_i of every input over the rows `rows` (indices into fa, fb, fab[i]).
void estimate(const std::vector<double>& fa, const std::vector<double>& fb,
              const std::vector<std::vector<double>>& fab, const std::vector<size_t>& rows,
              std::vector<double>& first, std::vector<double>& total) {
  const size_t k = fab.size();
  const double n = static_cast<double>(rows.size());
  const double var = variance_ab(fa, fb, rows);
  first.assign(k, kNaN);
  total.assign(k, kNaN);
  if (!(var > 0)) return;
  for (size_t i = 0; i < k; ++i) {
    double s = 0, t = 0;
    for (size_t r : rows) {
      const double delta = fab[i][r] - fa[r];
      s += fb[r] * delta;
      t += delta * delta;
    }
    first[i] = s / n / var;
    total[i] = t / (2 * n) / var;
  }
}

}  // namespace

std::vector<std::vector<double>> latin_hypercube_u(const Stream& stream, int k, int n) {
  std::vector<std::vector<double>> u(static_cast<size_t>(n), std::vector<double>(k));
  for (int j = 0; j < k; ++j) {
    Stream s = stream.child(static_cast<uint64_t>(j));
    std::vector<int> perm(static_cast<size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    for (int i = n - 1; i > 0; --i) {  // Fisher-Yates
      const auto swap_with = static_cast<int>(s.uniform_int(static_cast<uint64_t>(i) + 1));
      std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(swap_with)]);
    }
    for (int i = 0; i < n; ++i) {
      u[static_cast<size_t>(i)][static_cast<size_t>(j)] =
          (perm[static_cast<size_t>(i)] + s.uniform01()) / n;
    }
  }
  return u;
}

std::vector<std::vector<double>> to_quantiles(const std::vector<std::vector<double>>& u,
                                              const std::vector<InputDistribution>& dists) {
  std::vector<std::vector<double>> x = u;
  for (auto& row : x) {
    for (size_t j = 0; j < row.size(); ++j) row[j] = dists[j].quantile(row[j]);
  }
  return x;
}

SobolResult sobol_indices(const std::vector<double>& fa, const std::vector<double>& fb,
                          const std::vector<std::vector<double>>& fab, Stream bootstrap_stream,
                          int bootstrap) {
  const size_t n = fa.size(), k = fab.size();
  SobolResult out;
  out.bootstrap = bootstrap;
  std::vector<size_t> all(n);
  std::iota(all.begin(), all.end(), size_t{0});
  std::vector<double> first, total;
  estimate(fa, fb, fab, all, first, total);
  out.variance = variance_ab(fa, fb, all);
  // Bootstrap: the resampled S_i and ST_i of each input.
  std::vector<std::vector<double>> boot_first(k), boot_total(k);
  std::vector<size_t> rows(n);
  std::vector<double> bf, bt;
  for (int b = 0; b < bootstrap; ++b) {
    for (auto& r : rows) r = static_cast<size_t>(bootstrap_stream.uniform_int(n));
    estimate(fa, fb, fab, rows, bf, bt);
    for (size_t i = 0; i < k; ++i) {
      boot_first[i].push_back(bf[i]);
      boot_total[i].push_back(bt[i]);
    }
  }
  auto summarise = [&](double value, std::vector<double> draws) {
    SobolEstimate e;
    e.value = value;
    // A resample with no variance gives NaN; the error is over the others.
    draws.erase(std::remove_if(draws.begin(), draws.end(), [](double v) { return std::isnan(v); }),
                draws.end());
    if (std::isnan(value) || draws.size() < 2) {
      e.stderr_ = e.ci95_lo = e.ci95_hi = kNaN;
      return e;
    }
    double m = 0;
    for (double v : draws) m += v;
    m /= static_cast<double>(draws.size());
    double ss = 0;
    for (double v : draws) ss += (v - m) * (v - m);
    e.stderr_ = std::sqrt(ss / static_cast<double>(draws.size() - 1));
    std::sort(draws.begin(), draws.end());
    e.ci95_lo = percentile_sorted(draws, 0.025);
    e.ci95_hi = percentile_sorted(draws, 0.975);
    return e;
  };
  for (size_t i = 0; i < k; ++i) {
    out.index.push_back({summarise(first[i], std::move(boot_first[i])),
                         summarise(total[i], std::move(boot_total[i]))});
  }
  for (size_t rows_used : {n / 4, n / 2, n}) {
    if (rows_used < 2) continue;
    SobolConvergencePoint p;
    p.rows = static_cast<int>(rows_used);
    estimate(fa, fb, fab,
             std::vector<size_t>(all.begin(), all.begin() + static_cast<long>(rows_used)),
             p.first_order, p.total);
    out.convergence.push_back(std::move(p));
  }
  return out;
}

}  // namespace ntpsim::sim
