#include "calibrate/ntpcal/fill.h"

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

namespace ntpsim::ntpcal {
namespace {

__device__ inline float uniform_pm1(uint64_t seed, size_t i) {
  // SplitMix64 finaliser of (seed, i): a counter-based hash, 24 bits kept.
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (static_cast<uint64_t>(i) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

__global__ void fill_kernel(void* data, size_t n, int type, uint64_t seed, float scale) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const float v = scale * uniform_pm1(seed, i);
    if (type == 0) {
      static_cast<__nv_bfloat16*>(data)[i] = __float2bfloat16(v);
    } else if (type == 1) {
      static_cast<__nv_fp8_e4m3*>(data)[i] = __nv_fp8_e4m3(v);
    } else {
      static_cast<float*>(data)[i] = v;
    }
  }
}

}  // namespace

int fill_random(void* data, size_t elements, FillType type, uint64_t seed, float scale, void* stream) {
  if (elements == 0) return 0;
  const int threads = 256;
  const size_t want = (elements + threads - 1) / threads;
  const int blocks = static_cast<int>(want < 65535 ? want : 65535);
  fill_kernel<<<blocks, threads, 0, static_cast<cudaStream_t>(stream)>>>(
      data, elements, static_cast<int>(type), seed, scale);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace ntpsim::ntpcal
