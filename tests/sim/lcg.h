// A fixed pseudo-random sequence for tests that need many varied inputs: Knuth's 64-bit linear
// congruential generator (MMIX constants). Not for statistics: its low bits are weak, so callers
// take high bits (next() >> k).
#pragma once

#include <cstdint>

namespace ntpsim::sim::testing {

struct Lcg {
  uint64_t x;
  uint64_t next() {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x;
  }
};

}  // namespace ntpsim::sim::testing
