// The fit's central-difference derivatives (sim/failures/fit_internal.h) on several threads: each
// worker evaluates its own copy of the function (a likelihood may keep a cache, as the regime
// fits' does), and the gradient and Hessian are the same bits as on one thread. Under
// ThreadSanitizer (CMakePresets.json, tsan) a shared copy would show as a race on the cache.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/failures/fit_internal.h"

namespace ntpsim::sim::fit_internal {
namespace {

// A smooth function of 7 coordinates that remembers every point it was called at, as a cache
// would: a call writes to its own copy's memory.
struct Remembering {
  mutable std::vector<double> seen;
  double operator()(const Vec<7>& x) const {
    seen.push_back(x[0]);
    double v = 0.0;
    for (int i = 0; i < 7; ++i) v += std::sin(1.0 + i * x[i]) * std::exp(0.1 * x[(i + 1) % 7]);
    return v;
  }
};

TEST(Derivatives, ThreadsGiveTheSameBitsAsOne) {
  Vec<7> th;
  th << 0.3, -1.2, 0.7, 2.0, -0.4, 0.05, 1.1;
  Vec<7> g1, g;
  Mat<7> h1, h;
  const Remembering f;
  derivatives<7>(f, th, g1, h1, 1);
  const size_t serial_calls = f.seen.size();
  EXPECT_EQ(serial_calls, 1u + 2u * 7u + 4u * 21u);
  for (const int threads : {2, 3, 7, 64}) {
    const Remembering fresh;
    derivatives<7>(fresh, th, g, h, threads);
    for (int i = 0; i < 7; ++i) {
      EXPECT_EQ(g[i], g1[i]) << threads << " threads, i " << i;
      for (int j = 0; j < 7; ++j) EXPECT_EQ(h(i, j), h1(i, j)) << threads << " threads";
    }
    // However the rows fell to the workers, the caller's copy made no more calls than alone.
    EXPECT_LE(fresh.seen.size(), serial_calls) << threads << " threads";
  }
  // The Hessian is symmetric and near the analytic one at one entry (the step is 1e-4): x0
  // enters only the last term, sin(1 + 6 x6) exp(0.1 x0).
  EXPECT_EQ(h1(2, 5), h1(5, 2));
  EXPECT_NEAR(h1(0, 0), 0.01 * std::sin(1.0 + 6 * th[6]) * std::exp(0.1 * th[0]), 1e-5);
}

}  // namespace
}  // namespace ntpsim::sim::fit_internal
