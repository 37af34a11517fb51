#include "calibrate/fit.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "calibrate/shapes.h"

namespace ntpsim::calibrate {
namespace {


// Weighted least squares y ≈ X·beta minimising sum(((X·beta - y) / y)^2). Columns whose
// coefficient must be >= 0 and comes out negative are dropped and the rest refitted.
// Returns false when the system is rank-deficient.
bool relative_lsq(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, Eigen::VectorXd& beta) {
  const Eigen::Index cols = x.cols();
  std::vector<bool> active(static_cast<size_t>(cols), true);
  for (int round = 0; round < static_cast<int>(cols); ++round) {
    std::vector<Eigen::Index> idx;
    for (Eigen::Index c = 0; c < cols; ++c) {
      if (active[static_cast<size_t>(c)]) idx.push_back(c);
    }
    if (idx.empty()) return false;
    Eigen::MatrixXd a(x.rows(), static_cast<Eigen::Index>(idx.size()));
    for (size_t j = 0; j < idx.size(); ++j) a.col(static_cast<Eigen::Index>(j)) = x.col(idx[j]).cwiseQuotient(y);
    const Eigen::VectorXd ones = Eigen::VectorXd::Ones(x.rows());
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
    if (qr.rank() < a.cols()) return false;
    const Eigen::VectorXd b = qr.solve(ones);
    beta = Eigen::VectorXd::Zero(cols);
    bool negative = false;
    for (size_t j = 0; j < idx.size(); ++j) {
      beta(idx[j]) = b(static_cast<Eigen::Index>(j));
      if (b(static_cast<Eigen::Index>(j)) < 0) {
        active[idx[j]] = false;
        negative = true;
      }
    }
    if (!negative) return true;
  }
  return false;
}

std::string where(const std::string& file, int line) { return fmt::format("{}:{}", file, line); }

// ---- GEMM ----------------------------------------------------------------------------------

struct GemmSample {
  int64_t m, n, k;
  double t;
  std::string what;
};

}  // namespace

double quantized_flops(int64_t m, int64_t n, int64_t k, int sms, int tm, int tn, int tk) {
  double best = 0.0;
  for (const auto& [a, b] : {std::pair{tm, tn}, std::pair{tn, tm}}) {
    const int64_t tiles = ceil_div(m, a) * ceil_div(n, b);
    const int64_t waves = ceil_div(tiles, sms);
    const double q = static_cast<double>(waves) * sms * 2.0 * a * b *
                     static_cast<double>(ceil_div(k, tk) * tk);
    if (best == 0.0 || q < best) best = q;
  }
  return best;
}

namespace {

double qflops(int64_t m, int64_t n, int64_t k, int sms, int tm, int tn, int tk) {
  return quantized_flops(m, n, k, sms, tm, tn, tk);
}

Result<GemmFit> fit_gemm(GemmDType dtype, std::optional<GemmLayout> layout,
                         const std::vector<GemmSample>& s, int sms, const FitOptions& opt) {
  GemmFit best;
  double best_sse = std::numeric_limits<double>::infinity();
  const auto rows = static_cast<Eigen::Index>(s.size());
  Eigen::VectorXd y(rows);
  for (Eigen::Index i = 0; i < rows; ++i) y(i) = s[static_cast<size_t>(i)].t;
  for (const auto& [tm, tn] : opt.tiles) {
    Eigen::MatrixXd x(rows, 2);
    for (Eigen::Index i = 0; i < rows; ++i) {
      const GemmSample& g = s[static_cast<size_t>(i)];
      x(i, 0) = 1.0;
      x(i, 1) = qflops(g.m, g.n, g.k, sms, tm, tn, 64);
    }
    Eigen::VectorXd beta;
    if (!relative_lsq(x, y, beta) || beta(1) <= 0) continue;
    const Eigen::VectorXd pred = x * beta;
    const double sse = (pred - y).cwiseQuotient(y).squaredNorm();
    if (sse < best_sse) {
      best_sse = sse;
      best.tile_m = tm;
      best.tile_n = tn;
      best.overhead_s = beta(0);
      best.rate_flops = 1.0 / beta(1);
    }
  }
  if (!std::isfinite(best_sse)) {
    return Error::bad_input(
        fmt::format("gemm {}{}: the fit has no solution (need shapes of "
                    "different sizes)",
                    to_string(dtype), layout ? std::string(" ") + to_string(*layout) : ""));
  }
  best.dtype = dtype;
  best.layout = layout;
  best.sm_count = sms;
  std::vector<double> measured, predicted;
  std::vector<std::string> what;
  for (const GemmSample& g : s) {
    measured.push_back(g.t);
    predicted.push_back(best.overhead_s +
                        qflops(g.m, g.n, g.k, sms, best.tile_m, best.tile_n, 64) / best.rate_flops);
    what.push_back(g.what);
  }
  // The table: one point per shape, the mean throughput of its measurements (several GPUs or files).
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::pair<double, int>> per_shape;
  for (const GemmSample& g : s) {
    const double f = 2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k) / g.t;
    auto& [sum, count] = per_shape[{g.m, g.n, g.k}];
    sum += f;
    ++count;
  }
  for (const auto& [shape, acc] : per_shape) {
    const double f = acc.first / acc.second;
    best.table.push_back({std::get<0>(shape), std::get<1>(shape), std::get<2>(shape), f});
    best.best_flops = std::max(best.best_flops, f);
  }
  best.quality = quality_of(measured, predicted, what);
  return best;
}

// ---- collectives and reshard -----------------------------------------------------------------

struct CollSample {
  int n;
  double bytes;
  double t;
  std::string what;
};

Result<CollectiveFitResult> fit_collective(const std::string& fabric, CollectiveKind kind,
                                           const std::vector<CollSample>& s) {
  CollectiveFitResult out;
  out.fabric = fabric;
  out.kind = kind;
  const std::string name = fmt::format("{} {}", fabric, to_string(kind));
  std::map<int, std::vector<const CollSample*>> by_n;
  for (const CollSample& c : s) by_n[c.n].push_back(&c);
  for (const auto& [n, pts] : by_n) {
    std::set<double> sizes;
    for (const CollSample* c : pts) sizes.insert(c->bytes);
    if (sizes.size() < 2) {
      return Error::bad_input(fmt::format("{} n={}: needs at least 2 message sizes to fit "
                                          "latency and bandwidth, found {}", name, n, sizes.size()));
    }
    const auto rows = static_cast<Eigen::Index>(pts.size());
    Eigen::MatrixXd x(rows, 2);
    Eigen::VectorXd y(rows);
    for (Eigen::Index i = 0; i < rows; ++i) {
      const CollSample& c = *pts[static_cast<size_t>(i)];
      x(i, 0) = 1.0;
      x(i, 1) = c.bytes * bus_factor(kind, n);
      y(i) = c.t;
    }
    Eigen::VectorXd beta;
    if (!relative_lsq(x, y, beta) || beta(1) <= 0) {
      return Error::bad_input(fmt::format("{} n={}: the fit has no solution", name, n));
    }
    CollectiveGroupFit g;
    g.group_size = n;
    g.alpha_s = beta(0) / latency_steps(kind, n);
    g.bus_bw_Bps = 1.0 / beta(1);
    std::vector<double> measured, predicted;
    std::vector<std::string> what;
    for (Eigen::Index i = 0; i < rows; ++i) {
      measured.push_back(y(i));
      predicted.push_back(x.row(i).dot(beta));
      what.push_back(pts[static_cast<size_t>(i)]->what);
    }
    g.quality = quality_of(measured, predicted, what);
    out.groups.push_back(g);
  }
  // Pooled over group sizes: columns latency_steps(n) and bytes * bus_factor(n).
  const auto rows = static_cast<Eigen::Index>(s.size());
  Eigen::MatrixXd x(rows, 2);
  Eigen::VectorXd y(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const CollSample& c = s[static_cast<size_t>(i)];
    x(i, 0) = latency_steps(kind, c.n);
    x(i, 1) = c.bytes * bus_factor(kind, c.n);
    y(i) = c.t;
  }
  Eigen::VectorXd beta;
  if (!relative_lsq(x, y, beta) || beta(1) <= 0) {
    return Error::bad_input(fmt::format("{}: the pooled fit has no solution", name));
  }
  out.alpha_s = beta(0);
  out.bus_bw_Bps = 1.0 / beta(1);
  std::vector<double> measured, predicted;
  std::vector<std::string> what;
  for (Eigen::Index i = 0; i < rows; ++i) {
    measured.push_back(y(i));
    predicted.push_back(x.row(i).dot(beta));
    what.push_back(s[static_cast<size_t>(i)].what);
  }
  out.quality = quality_of(measured, predicted, what);
  return out;
}

struct ReshardSample {
  int k;
  double busiest;
  double t;
  std::string what;
};

Result<ReshardFit> fit_reshard(const std::string& fabric, int tp, const std::vector<ReshardSample>& s) {
  const std::string name = fmt::format("{} reshard T={}", fabric, tp);
  std::set<double> sizes;
  for (const ReshardSample& c : s) sizes.insert(c.busiest);
  if (sizes.size() < 2) {
    return Error::bad_input(fmt::format("{}: needs at least 2 distinct busiest-GPU byte counts, "
                                        "found {}", name, sizes.size()));
  }
  const auto rows = static_cast<Eigen::Index>(s.size());
  Eigen::MatrixXd x(rows, 2);
  Eigen::VectorXd y(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const ReshardSample& c = s[static_cast<size_t>(i)];
    x(i, 0) = 2.0 * c.k;
    x(i, 1) = 2.0 * c.busiest;
    y(i) = c.t;
  }
  Eigen::VectorXd beta;
  if (!relative_lsq(x, y, beta) || beta(1) <= 0) {
    return Error::bad_input(fmt::format("{}: the fit has no solution", name));
  }
  ReshardFit r;
  r.fabric = fabric;
  r.tp = tp;
  r.alpha_s = beta(0);
  r.bw_Bps = 1.0 / beta(1);
  std::vector<double> measured, predicted;
  std::vector<std::string> what;
  for (Eigen::Index i = 0; i < rows; ++i) {
    measured.push_back(y(i));
    predicted.push_back(x.row(i).dot(beta));
    what.push_back(s[static_cast<size_t>(i)].what);
  }
  r.quality = quality_of(measured, predicted, what);
  return r;
}

// ---- power ---------------------------------------------------------------------------------

double context_number(const RawContext& c, const std::string& key) {
  const std::string v = c.get(key);
  if (v.empty()) return 0.0;
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  return end != v.c_str() ? d : 0.0;
}

constexpr unsigned long long kThermalReasons = 0x8 | 0x20 | 0x40;

Result<PowerFit> fit_power(const std::vector<const RawData*>& files) {
  PowerFit p;
  double max_clock = 0.0;
  // The most compute-bound shape: largest m*n*k over all power rows.
  const GemmRow* biggest = nullptr;
  for (const RawData* f : files) {
    p.tdp_w = std::max(p.tdp_w, context_number(f->context, "power_limit_default_w"));
    max_clock = std::max(max_clock, context_number(f->context, "sm_clock_max_mhz"));
    for (const GemmRow& g : f->gemm) {
      if (biggest == nullptr || g.request.flops() > biggest->request.flops()) biggest = &g;
    }
  }
  if (biggest == nullptr) return Error::bad_input("power: the files hold no rows");
  struct Pt {
    double limit, flops, clock, power;
  };
  std::map<long long, Pt> by_limit;  // key: limit in mW (one point per limit)
  for (const RawData* f : files) {
    for (const GemmRow& g : f->gemm) {
      if (g.request.m != biggest->request.m || g.request.n != biggest->request.n ||
          g.request.k != biggest->request.k || g.request.dtype != biggest->request.dtype) continue;
      const double limit = g.power_limit_w > 0 ? g.power_limit_w : p.tdp_w;
      // A thermal or hardware slowdown (NVML clock-event reasons 0x8 HW slowdown, 0x20 SW
      // thermal, 0x40 HW thermal) slowed the clock for heat, not for the power limit: such a
      // point says nothing about power elasticity.
      if ((g.power.clock_event_reasons & kThermalReasons) != 0) {
        ++p.thermal_excluded;
        continue;
      }
      by_limit[std::llround(limit * 1e3)] = {limit, g.request.flops() / g.time.median_s,
                                             g.power.sm_clock_mean_mhz, g.power.mean_w};
    }
  }
  if (by_limit.empty()) {
    return Error::bad_input(
        fmt::format("power: every run of the most compute-bound shape was slowed by heat "
                    "(NVML thermal clock-event reasons): no power-limit point to fit; cool "
                    "the GPUs or lower the limits and measure again"));
  }
  if (p.tdp_w <= 0) p.tdp_w = by_limit.rbegin()->second.limit;
  const auto at_tdp = by_limit.find(std::llround(p.tdp_w * 1e3));
  const Pt ref = at_tdp != by_limit.end() ? at_tdp->second : by_limit.rbegin()->second;
  p.full_load_power_w = ref.power;
  if (max_clock > 0 && ref.clock > 0) p.max_clock_speedup = std::max(1.0, max_clock / ref.clock);
  std::vector<Pt> use;
  for (const auto& [key, pt] : by_limit) {
    if (pt.limit > 0 && (max_clock <= 0 || pt.clock <= 0 || pt.clock < 0.99 * max_clock)) use.push_back(pt);
  }
  if (use.size() < 2) return p;  // observed only: no elasticity
  const auto rows = static_cast<Eigen::Index>(use.size());
  Eigen::MatrixXd x(rows, 2);
  Eigen::VectorXd y(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const Pt& pt = use[static_cast<size_t>(i)];
    x(i, 0) = 1.0;
    x(i, 1) = std::log(pt.limit / p.tdp_w);
    y(i) = std::log(pt.flops / ref.flops);
  }
  const Eigen::VectorXd beta = x.colPivHouseholderQr().solve(y);
  p.swept = true;
  p.elasticity = beta(1);
  p.points = static_cast<int>(use.size());
  const Eigen::VectorXd pred = x * beta;
  const double mean = y.mean();
  const double ss_tot = (y.array() - mean).square().sum();
  const double ss_res = (pred - y).squaredNorm();
  p.r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
  for (Eigen::Index i = 0; i < rows; ++i) {
    p.max_abs_rel_error = std::max(p.max_abs_rel_error, std::fabs(std::exp(pred(i) - y(i)) - 1.0));
  }
  return p;
}

}  // namespace

FitQuality quality_of(const std::vector<double>& measured, const std::vector<double>& predicted,
                      const std::vector<std::string>& what) {
  FitQuality q;
  q.points = static_cast<int>(measured.size());
  if (measured.empty()) return q;
  double mean = 0.0;
  for (const double m : measured) mean += m;
  mean /= static_cast<double>(measured.size());
  double ss_tot = 0.0, ss_res = 0.0, sum_abs = 0.0;
  for (size_t i = 0; i < measured.size(); ++i) {
    const double rel = (predicted[i] - measured[i]) / measured[i];
    q.per_point.push_back({i < what.size() ? what[i] : std::string(), measured[i], predicted[i], rel});
    q.max_abs_rel_error = std::max(q.max_abs_rel_error, std::fabs(rel));
    sum_abs += std::fabs(rel);
    ss_tot += (measured[i] - mean) * (measured[i] - mean);
    ss_res += (predicted[i] - measured[i]) * (predicted[i] - measured[i]);
  }
  q.mean_abs_rel_error = sum_abs / static_cast<double>(measured.size());
  q.r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
  return q;
}

std::string data_origin(const RawData& file) {
  return file.context.has("synthetic") ? "synthetic" : "measured";
}

std::string combine_origins(const std::vector<std::string>& origins) {
  std::string out;
  for (const std::string& o : origins) {
    if (out.empty()) {
      out = o;
    } else if (o != out) {
      return "mixed";
    }
  }
  return out;
}

Result<FitResult> fit_raw(const std::vector<RawData>& files, const FitOptions& options) {
  FitResult out;
  std::vector<std::string> all;
  std::map<std::string, std::vector<std::string>> parts;
  for (const RawData& f : files) {
    const std::string o = data_origin(f);
    all.push_back(o);
    if (f.rows() == 0) continue;
    switch (f.kind) {
      case RawKind::kGemm:
        parts["gemm"].push_back(o);
        break;
      case RawKind::kPower:
        parts["power"].push_back(o);
        break;
      case RawKind::kCollective:
        for (const CollectiveRow& c : f.collectives) parts[c.fabric].push_back(o);
        break;
      case RawKind::kReshard:
        for (const ReshardRow& r : f.reshards) parts[r.fabric].push_back(o);
        break;
    }
  }
  out.origin = combine_origins(all);
  for (const auto& [part, list] : parts) out.part_origins[part] = combine_origins(list);
  // Keyed by dtype and, with separate_layouts, the layout (pooled: all layouts under -1).
  std::map<std::pair<GemmDType, int>, std::vector<GemmSample>> gemm;
  int sms = options.sm_count;
  std::map<std::pair<std::string, CollectiveKind>, std::vector<CollSample>> coll;
  std::map<std::pair<std::string, int>, std::vector<ReshardSample>> reshard;
  std::vector<const RawData*> power;
  for (const RawData& f : files) {
    out.files.push_back(f.file);
    out.contexts.push_back(f.context);
    out.points += static_cast<int>(f.rows());
    for (const SkippedPoint& p : f.skipped) {
      out.skipped.push_back(fmt::format("{} {}: {}", where(f.file, p.line), p.what, p.reason));
    }
    switch (f.kind) {
      case RawKind::kGemm: {
        const int ctx_sms = static_cast<int>(context_number(f.context, "sm_count"));
        if (sms == 0) sms = ctx_sms;
        for (const GemmRow& g : f.gemm) {
          const int layout_key = options.separate_layouts ? static_cast<int>(g.request.layout) : -1;
          gemm[{g.request.dtype, layout_key}].push_back(
              {g.request.m, g.request.n, g.request.k, g.time.median_s,
               fmt::format("{} gemm {} {} {}x{}x{}", where(f.file, g.line),
                           to_string(g.request.dtype), to_string(g.request.layout), g.request.m,
                           g.request.n, g.request.k)});
        }
        break;
      }
      case RawKind::kPower: power.push_back(&f); break;
      case RawKind::kCollective:
        for (const CollectiveRow& c : f.collectives) {
          coll[{c.fabric, c.request.kind}].push_back(
              {c.request.group_size, static_cast<double>(c.request.bytes), c.time.median_s,
               fmt::format("{} {} {} n={} bytes={}", where(f.file, c.line), c.fabric,
                           to_string(c.request.kind), c.request.group_size, c.request.bytes)});
        }
        break;
      case RawKind::kReshard:
        for (const ReshardRow& r : f.reshards) {
          reshard[{r.fabric, r.request.tp}].push_back(
              {r.request.k, r.request.busiest_bytes(), r.time.median_s,
               fmt::format("{} {} reshard T={} k={} bytes={}", where(f.file, r.line), r.fabric,
                           r.request.tp, r.request.k, r.request.bytes_per_rank)});
        }
        break;
    }
  }
  if (out.points == 0) return Error::bad_input("the raw files hold no measurement rows");
  if (!gemm.empty() && sms <= 0) {
    return Error::bad_input(fmt::format("{}: no 'sm_count' in the context header (pass --sm-count)",
                                        files.front().file));
  }
  for (const auto& [key, samples] : gemm) {
    const std::optional<GemmLayout> layout =
        key.second < 0 ? std::nullopt : std::optional(static_cast<GemmLayout>(key.second));
    auto g = fit_gemm(key.first, layout, samples, sms, options);
    if (!g.ok()) return g.error();
    out.gemm.push_back(std::move(*g));
  }
  for (const auto& [key, samples] : coll) {
    auto c = fit_collective(key.first, key.second, samples);
    if (!c.ok()) return c.error();
    out.collectives.push_back(std::move(*c));
  }
  for (const auto& [key, samples] : reshard) {
    auto r = fit_reshard(key.first, key.second, samples);
    if (!r.ok()) return r.error();
    out.reshards.push_back(std::move(*r));
  }
  if (!power.empty()) {
    auto p = fit_power(power);
    if (!p.ok()) return p.error();
    out.power = *p;
  }
  return out;
}

std::string gemm_fit_name(const GemmFit& g) {
  return g.layout ? fmt::format("{}.{}", to_string(g.dtype), to_string(*g.layout))
                  : std::string(to_string(g.dtype));
}

const GemmFit* profile_gemm_fit(const FitResult& r, GemmDType dtype) {
  const GemmFit* chosen = nullptr;
  for (const GemmFit& g : r.gemm) {
    if (g.dtype != dtype) continue;
    if (!g.layout || *g.layout == GemmLayout::kTN) return &g;
    if (chosen == nullptr) chosen = &g;
  }
  return chosen;
}

std::string describe(const FitResult& r) {
  std::string s;
  for (const GemmFit& g : r.gemm) {
    s += fmt::format(
        "gemm {}: rate {:.1f} TFLOP/s (best measured {:.1f}), overhead {:.2f} us, "
        "tile {}x{} on {} SMs; {} points, R² {:.4f}, max |rel err| {:.1f}%\n",
        gemm_fit_name(g), g.rate_flops / 1e12, g.best_flops / 1e12, g.overhead_s * 1e6, g.tile_m,
        g.tile_n, g.sm_count, g.quality.points, g.quality.r2, 100 * g.quality.max_abs_rel_error);
  }
  for (const CollectiveFitResult& c : r.collectives) {
    s += fmt::format("{} {}: alpha {:.2f} us/step, bus bw {:.1f} GB/s; {} points, R² {:.4f}, "
                     "max |rel err| {:.1f}%\n",
                     c.fabric, to_string(c.kind), c.alpha_s * 1e6, c.bus_bw_Bps / 1e9,
                     c.quality.points, c.quality.r2, 100 * c.quality.max_abs_rel_error);
    for (const CollectiveGroupFit& g : c.groups) {
      s += fmt::format("    n={:<5} alpha {:.2f} us/step, bus bw {:.1f} GB/s, max |rel err| {:.1f}%\n",
                       g.group_size, g.alpha_s * 1e6, g.bus_bw_Bps / 1e9,
                       100 * g.quality.max_abs_rel_error);
    }
  }
  for (const ReshardFit& f : r.reshards) {
    s += fmt::format("{} reshard T={}: alpha {:.2f} us per extra rank, bw {:.1f} GB/s; {} points, "
                     "R² {:.4f}, max |rel err| {:.1f}%\n",
                     f.fabric, f.tp, f.alpha_s * 1e6, f.bw_Bps / 1e9, f.quality.points, f.quality.r2,
                     100 * f.quality.max_abs_rel_error);
  }
  if (!r.skipped.empty()) {
    s += fmt::format("note: {} point(s) were not measured (the runs skipped them):\n",
                     r.skipped.size());
    for (const std::string& k : r.skipped) s += "    " + k + "\n";
  }
  if (r.power) {
    const PowerFit& p = *r.power;
    if (p.swept) {
      s += fmt::format("power: elasticity {:.3f} over {} limits (R² {:.4f}), max clock speedup "
                       "{:.3f}, full-load power {:.0f} W at {:.0f} W limit\n",
                       p.elasticity, p.points, p.r2, p.max_clock_speedup, p.full_load_power_w, p.tdp_w);
    } else {
      s += fmt::format("power: observed at one limit ({:.0f} W): full-load power {:.0f} W, max "
                       "clock speedup {:.3f} (0: unknown); no elasticity (run power "
                       "--set-power-limits)\n",
                       p.tdp_w, p.full_load_power_w, p.max_clock_speedup);
    }
    if (p.thermal_excluded > 0) {
      s += fmt::format(
          "power: {} point(s) left out: the clock was slowed by heat (NVML thermal "
          "clock-event reasons), not by the power limit\n",
          p.thermal_excluded);
    }
  }
  return s;
}

}  // namespace ntpsim::calibrate
