#include "sim/failures/renewal.h"

#include <cmath>

#include "models/base/check.h"
#include "models/base/statistics.h"

namespace ntpsim::sim {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Survival of the standard normal, 1 - Φ(z), accurate in both tails.
double normal_survival(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace

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
  return survival > 0.0 ? -std::log(survival) : kInfinity;
}

double LifetimeLaw::inverse_cumulative_hazard(double h) const {
  if (!(h < kInfinity)) return kInfinity;
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
    next_t_ = kInfinity;
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
  NTPSIM_CHECK(next_t_ < kInfinity && !members_.empty());
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
