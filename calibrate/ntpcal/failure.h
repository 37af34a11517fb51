// How far a failed CUDA runtime or cuBLASLt call reaches: one measurement point, or the run.
//
// A point failure leaves the CUDA context usable (the call was refused before it touched the
// device, or one allocation did not fit): the measurement loops record the point as skipped and
// go on. A run failure is "sticky" in CUDA's sense (the context is corrupted: illegal address,
// launch failure, ECC or NVLink error, a device that fell off the bus) or leaves the device in an
// unknown state (a timeout, an unknown error): every later call would fail too, so the run stops
// with what it has measured. Unknown codes count as run failures.
// Header-only over the CUDA and cuBLAS headers' types (no calls), so it is tested without a GPU.
// Thread safety: pure functions.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

namespace ntpsim::ntpcal {

enum class FailureScope { kPoint, kRun };

inline FailureScope classify_cuda_error(cudaError_t rc) {
  switch (rc) {
    case cudaErrorInvalidValue:              // a size or argument this shape makes invalid
    case cudaErrorMemoryAllocation:          // this shape's buffers do not fit
    case cudaErrorInvalidConfiguration:      // launch configuration refused before launch
    case cudaErrorLaunchOutOfResources:      // refused before launch
    case cudaErrorNotSupported:              // feature not offered by this device/driver
    case cudaErrorStreamCaptureUnsupported:  // an operation that cannot be graph-captured
    case cudaErrorStreamCaptureInvalidated:  // capture broken by such an operation
    case cudaErrorStreamCaptureUnjoined:
    case cudaErrorStreamCaptureImplicit:
      return FailureScope::kPoint;
    default:
      return FailureScope::kRun;
  }
}

inline FailureScope classify_cublas_status(cublasStatus_t rc) {
  switch (rc) {
    case CUBLAS_STATUS_NOT_SUPPORTED:  // no kernel for this shape, type or layout
    case CUBLAS_STATUS_INVALID_VALUE:  // arguments this shape makes invalid
    case CUBLAS_STATUS_ALLOC_FAILED:   // host or device allocation for this shape
    case CUBLAS_STATUS_ARCH_MISMATCH:  // feature absent on this architecture
      return FailureScope::kPoint;
    default:  // EXECUTION_FAILED, INTERNAL_ERROR, MAPPING_ERROR, NOT_INITIALIZED, ...
      return FailureScope::kRun;
  }
}

}  // namespace ntpsim::ntpcal
