#include "models/base/random.h"

#include <cmath>
#include <utility>

#include "models/base/check.h"

namespace ntpsim {
namespace {

uint64_t splitmix64(uint64_t& x) { return fmix64(x += 0x9e3779b97f4a7c15ULL); }

// Four rounds of a balanced Feistel network on the 128-bit word (hi, lo), round keys drawn from
// `key` by SplitMix64. Each round replaces one half by itself XOR a function of the other half,
// which can be undone given the other half, so for every key the whole map is a permutation of
// the 2^128 pairs, whatever the round function; fmix64 makes every output bit depend on every
// input bit of both halves after the rounds.
constexpr int kFeistelRounds = 4;

void feistel(uint64_t& hi, uint64_t& lo, uint64_t key) {
  for (int round = 0; round < kFeistelRounds; ++round) {
    hi ^= fmix64(lo ^ splitmix64(key));
    std::swap(hi, lo);
  }
}

}  // namespace

namespace {

uint64_t name_key(std::string_view name) {
  return fmix64(fnv1a64(name));
}

// Key of the permutation that derives child streams; any fixed value distinct from the name keys
// in use serves.
constexpr uint64_t kChildKey = 0x6a09e667f3bcc909ULL;

}  // namespace

StreamMaterial Stream::material(uint64_t seed, uint64_t replication, std::string_view name) {
  StreamMaterial m{seed, replication};
  feistel(m.hi, m.lo, name_key(name));
  return m;
}

StreamMaterial Stream::origin(StreamMaterial m, std::string_view name) {
  uint64_t key = name_key(name);
  uint64_t keys[kFeistelRounds];
  for (auto& k : keys) k = splitmix64(key);
  for (int round = kFeistelRounds - 1; round >= 0; --round) {
    std::swap(m.hi, m.lo);
    m.hi ^= fmix64(m.lo ^ keys[round]);
  }
  return m;
}

void Stream::seed_state() {
  // (s0, s1) is the material itself, so distinct material gives distinct generator states; the
  // other two words are bijective images of one half each plus a non-zero constant, so the state
  // is never all zero (fmix64 maps only 0 to 0).
  s_[0] = m_.hi;
  s_[1] = m_.lo;
  s_[2] = fmix64(m_.hi + 0x9e3779b97f4a7c15ULL);
  s_[3] = fmix64(m_.lo + 0x3c6ef372fe94f82aULL);
}

Stream::Stream(uint64_t seed, uint64_t replication, std::string_view name)
    : m_(material(seed, replication, name)) {
  seed_state();
}

Stream Stream::child(uint64_t index) const {
  // The child keeps the parent's high half and adds (index + 1) to the low half before another
  // keyed permutation, so distinct indices (below 2^64 - 1) of one parent give distinct material.
  Stream c;
  c.m_ = {m_.hi, m_.lo + index + 1};
  feistel(c.m_.hi, c.m_.lo, kChildKey);
  c.seed_state();
  return c;
}

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
