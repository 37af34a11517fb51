// Device-side random fill of GEMM operands (the only CUDA C++ kernels of ntpcal).
//
// Values are uniform in [-scale, scale], from a counter-based hash of (seed, index), so inputs are
// random (no all-zero fast paths) yet the same for a given seed. Launches on `stream`
// (a cudaStream_t) and returns the cudaError_t of the launch as an int.
// Thread safety: stateless.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ntpsim::ntpcal {

enum class FillType { kBF16, kFP8E4M3, kF32 };

int fill_random(void* data, size_t elements, FillType type, uint64_t seed, float scale, void* stream);

}  // namespace ntpsim::ntpcal
