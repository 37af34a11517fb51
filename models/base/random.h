// The only source of randomness in ntpsim (STYLE.md §5, DESIGN.md §3.6).
//
// A `Stream` is a xoshiro256** generator seeded from (scenario seed, replication index, stream
// name), so each replication and each model (failures of a component class, repair times, trace
// placement, ...) draws from its own sequence: adding a stream or a strategy never shifts another
// stream's draws, and results do not depend on thread or process count.
//
// Derivation, and what it guarantees. The stream name is hashed once to a 64-bit key (FNV-1a, then
// SplitMix64's finaliser). The 128-bit word (seed, replication) goes through a four-round Feistel
// network keyed by it (round function: SplitMix64's finaliser of the other half XOR a round key).
// A Feistel network is a permutation of its 2^128 inputs for every key, so for every stream name
// the map (seed, replication) -> material is a bijection: two different (seed, replication) pairs
// never share a stream, whatever the seeds (`origin` inverts it). The material is the first half
// of the generator state, so distinct material gives distinct states. Neighbouring seeds are not
// shifted copies of each other (the previous additive mix made (s, r) and (s + 1, ~r + 64) share a
// stream): every bit of the material depends on every bit of seed and replication. Different names
// use different permutations; they collide only by chance (probability ~2^-128 per pair).
// Samplers are our own (std::*_distribution differ between standard libraries).
// Thread safety: a Stream is a value; use one per thread (one per replication).
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

#include "models/base/check.h"

namespace ntpsim {

// 64-bit FNV-1a of a byte string; used to turn stream names into seeds and for scenario hashes.
constexpr uint64_t fnv1a64(std::string_view s, uint64_t h = 0xcbf29ce484222325ULL) {
  for (const char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// SplitMix64's finaliser: a bijection of 64-bit words with full avalanche (every output bit
// depends on every input bit), for hashing keys and deriving well-mixed constants.
constexpr uint64_t fmix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The 128 bits a stream is seeded from.
struct StreamMaterial {
  uint64_t hi = 0;
  uint64_t lo = 0;
  friend bool operator==(const StreamMaterial&, const StreamMaterial&) = default;
};

class Stream {
 public:
  // The material of stream (seed, replication, name); a bijection of (seed, replication) for each
  // name.
  static StreamMaterial material(uint64_t seed, uint64_t replication, std::string_view name);
  // The inverse: the (seed, replication) whose material under `name` is `m`, as {hi: seed, lo:
  // replication}.
  static StreamMaterial origin(StreamMaterial m, std::string_view name);

  // The stream for (seed, replication, name). Same arguments, same sequence, on every platform.
  Stream(uint64_t seed, uint64_t replication, std::string_view name);
  // A child stream, e.g. one per component unit: deterministic in (parent material, index);
  // distinct indices of one parent give distinct streams.
  Stream child(uint64_t index) const;

  uint64_t next_u64();
  // Uniform on [0, 1) with 53 random bits.
  double uniform01();
  // Uniform on (0, 1]: safe for log().
  double uniform_open0();
  // Unbiased integer in [0, n). REQUIRES: n > 0.
  uint64_t uniform_int(uint64_t n);
  bool bernoulli(double p) { return uniform01() < p; }

  // Samplers; all parameters in the caller's unit (typically seconds).
  double exponential(double mean);
  // Weibull with shape k and scale lambda: lambda * (-ln U)^(1/k).
  double weibull(double shape, double scale);
  // Standard normal (Marsaglia polar method, deterministic in the stream).
  double normal();
  // exp(mu + sigma * N(0,1)).
  double lognormal(double mu, double sigma);

 private:
  Stream() = default;
  void seed_state();  // xoshiro state from m_
  uint64_t s_[4] = {0, 0, 0, 0};
  StreamMaterial m_;  // material this stream was derived from, for child()
};

// The generator and the samplers drawn per event, inline: each failure draws several.

inline uint64_t Stream::next_u64() {
  const auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
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

inline double Stream::uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

inline double Stream::uniform_open0() {
  return (static_cast<double>(next_u64() >> 11) + 1.0) * 0x1.0p-53;
}

inline uint64_t Stream::uniform_int(uint64_t n) {
  NTPSIM_CHECK(n > 0);
  // Lemire's nearly divisionless method.
  uint64_t x = next_u64();
  __uint128_t m = static_cast<__uint128_t>(x) * n;
  auto low = static_cast<uint64_t>(m);
  if (low < n) [[unlikely]] {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      x = next_u64();
      m = static_cast<__uint128_t>(x) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

inline double Stream::exponential(double mean) { return -mean * std::log(uniform_open0()); }

// Weibull scale that gives the requested mean for shape k: mean / Gamma(1 + 1/k).
double weibull_scale_for_mean(double mean, double shape);
// Lognormal mu that gives the requested mean for sigma: ln(mean) - sigma^2 / 2.
double lognormal_mu_for_mean(double mean, double sigma);

}  // namespace ntpsim
