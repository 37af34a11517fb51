// Small RAII owners and error translation for CUDA runtime and cuBLASLt calls in ntpcal.
// Every failed call becomes a runtime Error naming the call and CUDA's message, and records how
// far the failure reaches (failure.h) for the backend to read right after a failed measurement.
// Thread safety: owners are used by one thread.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <csignal>
#include <string>

#include "calibrate/ntpcal/failure.h"
#include "models/base/status.h"

namespace ntpsim::ntpcal {

// Set by ntpcal's SIGINT/SIGTERM handler (the only thing it does, which is async-signal-safe).
// Every wait loop polls it and returns an error, so the ordinary return paths run, among them
// the one that restores a power limit changed by `power --set-power-limits`.
inline volatile std::sig_atomic_t g_interrupted = 0;
inline bool interrupted() {
  return g_interrupted != 0;
}

// Set when a wait on the GPU timed out: its queued work may never finish, so freeing device
// memory (cudaFree waits for it) or destroying the context could hang. main() then exits at
// once (every completed row is already flushed), leaving the clean-up to the driver.
inline volatile std::sig_atomic_t g_device_hung = 0;

// The scope of the most recent failure on this thread (ntpcal measures from one thread). Checks
// set it; code that fails without a CUDA status (a timeout, no heuristic) sets it explicitly.
inline thread_local FailureScope g_last_failure = FailureScope::kRun;
inline void note_failure(FailureScope scope) {
  g_last_failure = scope;
}

inline Status cuda_check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return Status::Ok();
  note_failure(classify_cuda_error(rc));
  return Error::runtime(std::string(what) + " failed: " + cudaGetErrorString(rc));
}

inline Status blas_check(cublasStatus_t rc, const char* what) {
  if (rc == CUBLAS_STATUS_SUCCESS) return Status::Ok();
  note_failure(classify_cublas_status(rc));
  return Error::runtime(std::string(what) + " failed: " + cublasLtGetStatusName(rc));
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
      note_failure(classify_cuda_error(rc));
      return Error::runtime("cudaMalloc of " + std::to_string(bytes) + " bytes failed: " + cudaGetErrorString(rc));
    }
    size_ = bytes;
    return Status::Ok();
  }
  void* get() const { return p_; }
  size_t size() const { return size_; }

 private:
  void release() {
    // After a timed-out wait cudaFree could block forever; the process is about to exit and the
    // driver reclaims the memory (g_device_hung).
    if (p_ != nullptr && g_device_hung == 0) cudaFree(p_);
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

// A captured CUDA graph and its executable instance.
struct GraphExec {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  GraphExec() = default;
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  GraphExec(GraphExec&& o) noexcept : graph(o.graph), exec(o.exec) {
    o.graph = nullptr;
    o.exec = nullptr;
  }
  GraphExec& operator=(GraphExec&&) = delete;
  ~GraphExec() {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
  }
};

// Captures what `body` queues on `stream` into `out` (instantiated, ready to launch). The capture
// is always ended, also when `body` fails (its error is returned and the partial graph dropped),
// so the stream is never left capturing.
template <typename Body>
Status capture_graph(cudaStream_t stream, cudaStreamCaptureMode mode, Body&& body, GraphExec& out) {
  NTPSIM_RETURN_IF_ERROR(
      cuda_check(cudaStreamBeginCapture(stream, mode), "cudaStreamBeginCapture"));
  const Status st = body();
  cudaGraph_t g = nullptr;
  const cudaError_t end = cudaStreamEndCapture(stream, &g);
  if (!st.ok()) {
    if (g != nullptr) cudaGraphDestroy(g);
    return st;
  }
  NTPSIM_RETURN_IF_ERROR(cuda_check(end, "cudaStreamEndCapture"));
  out.graph = g;
  return cuda_check(cudaGraphInstantiate(&out.exec, g, 0), "cudaGraphInstantiate");
}

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
