// Small RAII owners and error translation for CUDA runtime and cuBLASLt calls in ntpcal.
// Every failed call becomes a runtime Error naming the call and CUDA's message.
// Thread safety: owners are used by one thread.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <csignal>
#include <string>

#include "models/base/status.h"

namespace ntpsim::ntpcal {

// Set by ntpcal's SIGINT/SIGTERM handler (the only thing it does, which is async-signal-safe).
// Every wait loop polls it and returns an error, so the ordinary return paths run, among them
// the one that restores a power limit changed by `power --set-power-limits`.
inline volatile std::sig_atomic_t g_interrupted = 0;
inline bool interrupted() {
  return g_interrupted != 0;
}

inline Status cuda_check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return Status::Ok();
  return Error::runtime(std::string(what) + " failed: " + cudaGetErrorString(rc));
}

inline Status blas_check(cublasStatus_t rc, const char* what) {
  if (rc == CUBLAS_STATUS_SUCCESS) return Status::Ok();
  return Error::runtime(std::string(what) + " failed: cuBLAS status " + std::to_string(static_cast<int>(rc)));
}

// Device memory on the current device.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), size_(o.size_) { o.p_ = nullptr; o.size_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      p_ = o.p_;
      size_ = o.size_;
      o.p_ = nullptr;
      o.size_ = 0;
    }
    return *this;
  }

  // (Re)allocates `bytes` (at least 1); out-of-memory is a runtime error naming the size.
  Status allocate(size_t bytes) {
    release();
    const cudaError_t rc = cudaMalloc(&p_, bytes == 0 ? 1 : bytes);
    if (rc != cudaSuccess) {
      p_ = nullptr;
      return Error::runtime("cudaMalloc of " + std::to_string(bytes) + " bytes failed: " + cudaGetErrorString(rc));
    }
    size_ = bytes;
    return Status::Ok();
  }
  void* get() const { return p_; }
  size_t size() const { return size_; }

 private:
  void release() {
    if (p_ != nullptr) cudaFree(p_);
    p_ = nullptr;
    size_ = 0;
  }
  void* p_ = nullptr;
  size_t size_ = 0;
};

struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() = default;
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  EventPair(EventPair&& o) noexcept : start(o.start), stop(o.stop) { o.start = o.stop = nullptr; }
  EventPair& operator=(EventPair&&) = delete;
  ~EventPair() {
    if (start != nullptr) cudaEventDestroy(start);
    if (stop != nullptr) cudaEventDestroy(stop);
  }
  Status create() {
    NTPSIM_RETURN_IF_ERROR(cuda_check(cudaEventCreate(&start), "cudaEventCreate"));
    return cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
  }
};

// The cuBLASLt descriptors of one GEMM shape.
struct LtObjects {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  LtObjects() = default;
  LtObjects(const LtObjects&) = delete;
  LtObjects& operator=(const LtObjects&) = delete;
  ~LtObjects() {
    if (pref != nullptr) cublasLtMatmulPreferenceDestroy(pref);
    if (c != nullptr) cublasLtMatrixLayoutDestroy(c);
    if (b != nullptr) cublasLtMatrixLayoutDestroy(b);
    if (a != nullptr) cublasLtMatrixLayoutDestroy(a);
    if (desc != nullptr) cublasLtMatmulDescDestroy(desc);
  }
};

}  // namespace ntpsim::ntpcal
