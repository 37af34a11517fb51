// The only source of randomness in ntpsim (STYLE.md §5, DESIGN.md §3.6).
//
// A `Stream` is a xoshiro256** generator seeded from (scenario seed, replication index, stream
// name) through SplitMix64, so each replication and each model (failures of a component class,
// repair times, trace placement, ...) draws from its own sequence: adding a stream or a strategy
// never shifts another stream's draws, and results do not depend on thread or process count.
// Samplers are our own (std::*_distribution differ between standard libraries).
// Thread safety: a Stream is a value; use one per thread (one per replication).
#pragma once

#include <cstdint>
#include <string_view>

namespace ntpsim {

// 64-bit FNV-1a of a byte string; used to turn stream names into seeds and for scenario hashes.
constexpr uint64_t fnv1a64(std::string_view s, uint64_t h = 0xcbf29ce484222325ULL) {
  for (const char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

class Stream {
 public:
  // The stream for (seed, replication, name). Same arguments, same sequence, on every platform.
  Stream(uint64_t seed, uint64_t replication, std::string_view name);
  // A child stream, e.g. one per component unit: deterministic in (parent seed material, index).
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
  uint64_t s_[4] = {0, 0, 0, 0};
  uint64_t material_ = 0;  // seed material this stream was derived from, for child()
};

// Weibull scale that gives the requested mean for shape k: mean / Gamma(1 + 1/k).
double weibull_scale_for_mean(double mean, double shape);
// Lognormal mu that gives the requested mean for sigma: ln(mean) - sigma^2 / 2.
double lognormal_mu_for_mean(double mean, double sigma);

}  // namespace ntpsim
