#include "sim/failures/renewal.h"

#include <cmath>

#include "models/base/check.h"

namespace ntpsim::sim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Acklam's coefficients (P. J. Acklam, "An algorithm for computing the inverse normal cumulative
// distribution function", 2003).
constexpr double kA[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                         1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
constexpr double kB[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                         6.680131188771972e+01,  -1.328068155288572e+01};
constexpr double kC[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                         -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
constexpr double kD[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                         3.754408661907416e+00};

double tail_approx(double q) {  // q = sqrt(-2 ln p) for the lower tail
  return (((((kC[0] * q + kC[1]) * q + kC[2]) * q + kC[3]) * q + kC[4]) * q + kC[5]) /
         ((((kD[0] * q + kD[1]) * q + kD[2]) * q + kD[3]) * q + 1);
}

// Survival of the standard normal, 1 - Φ(z), accurate in both tails.
double normal_survival(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace

double inverse_normal_cdf(double p) {
  if (!(p > 0.0)) return -kInf;
  if (!(p < 1.0)) return kInf;
  constexpr double kLow = 0.02425;
  double x = 0.0;
  if (p < kLow) {
    x = tail_approx(std::sqrt(-2.0 * std::log(p)));
  } else if (p <= 1.0 - kLow) {
    const double q = p - 0.5;
    const double r = q * q;
    x = (((((kA[0] * r + kA[1]) * r + kA[2]) * r + kA[3]) * r + kA[4]) * r + kA[5]) * q /
        (((((kB[0] * r + kB[1]) * r + kB[2]) * r + kB[3]) * r + kB[4]) * r + 1);
  } else {
    x = -tail_approx(std::sqrt(-2.0 * std::log1p(-p)));
  }
  // One Halley step: e = Φ(x) - p.
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2.0 * M_PI) * std::exp(x * x / 2.0);
  return x - u / (1.0 + x * u / 2.0);
}

LifetimeLaw LifetimeLaw::weibull_with_mean(double mean_s, double k) {
  return LifetimeLaw{true, k, weibull_scale_for_mean(mean_s, k)};
}

LifetimeLaw LifetimeLaw::lognormal_with_mean(double mean_s, double sigma) {
  return LifetimeLaw{false, sigma, lognormal_mu_for_mean(mean_s, sigma)};
}

double LifetimeLaw::draw(Stream& s) const {
  return weibull ? s.weibull(shape, param) : s.lognormal(param, shape);
}

double LifetimeLaw::cumulative_hazard(double t_s) const {
  if (!(t_s > 0.0)) return 0.0;
  if (weibull) return std::pow(t_s / param, shape);
  const double z = (std::log(t_s) - param) / shape;
  // -ln S(z): for z < 0 the survival is near 1, so take log1p of the small lower tail.
  if (z < 0.0) return -std::log1p(-normal_survival(-z));
  const double survival = normal_survival(z);
  return survival > 0.0 ? -std::log(survival) : kInf;
}

double LifetimeLaw::inverse_cumulative_hazard(double h) const {
  if (!(h < kInf)) return kInf;
  if (!(h > 0.0)) return 0.0;
  if (weibull) return param * std::pow(h, 1.0 / shape);
  // Survival s = e^-h; z = Φ^-1(1 - s), computed from whichever of s and 1 - s is accurate.
  const double survival = std::exp(-h);
  const double z = survival < 0.5 ? -inverse_normal_cdf(survival) : inverse_normal_cdf(-std::expm1(-h));
  return std::exp(param + shape * z);
}

void FirstFailurePool::reset(const LifetimeLaw& law, bool fails, std::vector<int32_t> members,
                             std::vector<int32_t>& position, Stream& s) {
  law_ = law;
  fails_ = fails;
  members_ = std::move(members);
  for (size_t i = 0; i < members_.size(); ++i) position[static_cast<size_t>(members_[i])] = static_cast<int32_t>(i);
  h_ = 0.0;
  redraw(s);
}

void FirstFailurePool::redraw(Stream& s) {
  if (!fails_ || members_.empty()) {
    next_t_ = kInf;
    return;
  }
  next_h_ = h_ + s.exponential(1.0) / static_cast<double>(members_.size());
  next_t_ = law_.inverse_cumulative_hazard(next_h_);
}

void FirstFailurePool::erase_at(size_t i, std::vector<int32_t>& position) {
  NTPSIM_CHECK(i < members_.size());
  const int32_t unit = members_[i];
  const int32_t last = members_.back();
  members_[i] = last;
  position[static_cast<size_t>(last)] = static_cast<int32_t>(i);
  members_.pop_back();
  position[static_cast<size_t>(unit)] = -1;
}

int64_t FirstFailurePool::take(Stream& s, std::vector<int32_t>& position) {
  NTPSIM_CHECK(next_t_ < kInf && !members_.empty());
  const auto i = static_cast<size_t>(s.uniform_int(members_.size()));
  const int64_t unit = members_[i];
  erase_at(i, position);
  h_ = next_h_;
  redraw(s);
  return unit;
}

void FirstFailurePool::remove(int64_t unit, double now_s, Stream& s, std::vector<int32_t>& position) {
  const int32_t i = position[static_cast<size_t>(unit)];
  NTPSIM_CHECK(i >= 0);
  erase_at(static_cast<size_t>(i), position);
  // Every remaining member survived to now: restart the candidate from there (memoryless in H).
  h_ = std::max(h_, law_.cumulative_hazard(now_s));
  redraw(s);
}

}  // namespace ntpsim::sim
