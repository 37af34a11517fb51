#include "models/base/random.h"

#include <cmath>

#include "models/base/check.h"

namespace ntpsim {
namespace {

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t x = a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
  return splitmix64(x);
}

}  // namespace

Stream::Stream(uint64_t seed, uint64_t replication, std::string_view name) {
  material_ = mix(mix(seed, replication), fnv1a64(name));
  uint64_t x = material_;
  for (auto& s : s_) s = splitmix64(x);
}

Stream Stream::child(uint64_t index) const {
  Stream c;
  c.material_ = mix(material_, index + 1);
  uint64_t x = c.material_;
  for (auto& s : c.s_) s = splitmix64(x);
  return c;
}

uint64_t Stream::next_u64() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Stream::uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Stream::uniform_open0() { return (static_cast<double>(next_u64() >> 11) + 1.0) * 0x1.0p-53; }

uint64_t Stream::uniform_int(uint64_t n) {
  NTPSIM_CHECK(n > 0);
  // Lemire's nearly divisionless method.
  uint64_t x = next_u64();
  __uint128_t m = static_cast<__uint128_t>(x) * n;
  auto low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      x = next_u64();
      m = static_cast<__uint128_t>(x) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

double Stream::exponential(double mean) { return -mean * std::log(uniform_open0()); }

double Stream::weibull(double shape, double scale) {
  return scale * std::pow(-std::log(uniform_open0()), 1.0 / shape);
}

double Stream::normal() {
  for (;;) {
    const double u = 2.0 * uniform01() - 1.0;
    const double v = 2.0 * uniform01() - 1.0;
    const double s = u * u + v * v;
    if (s > 0 && s < 1) return u * std::sqrt(-2.0 * std::log(s) / s);
  }
}

double Stream::lognormal(double mu, double sigma) { return std::exp(mu + sigma * normal()); }

double weibull_scale_for_mean(double mean, double shape) {
  return mean / std::tgamma(1.0 + 1.0 / shape);
}

double lognormal_mu_for_mean(double mean, double sigma) {
  return std::log(mean) - 0.5 * sigma * sigma;
}

}  // namespace ntpsim
