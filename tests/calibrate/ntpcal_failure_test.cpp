// ntpcal's failure classification (calibrate/ntpcal/failure.h): which CUDA and cuBLAS failures
// end only the point being measured and which end the run. Header-only over the CUDA headers'
// types, so it runs without a GPU wherever the toolkit is installed.
#include <gtest/gtest.h>

#include "calibrate/ntpcal/failure.h"

namespace ntpsim::ntpcal {
namespace {

TEST(NtpcalFailure, RefusalsAndOutOfMemoryEndOnlyThePoint) {
  for (const cudaError_t rc :
       {cudaErrorMemoryAllocation, cudaErrorInvalidValue, cudaErrorNotSupported,
        cudaErrorInvalidConfiguration, cudaErrorStreamCaptureUnsupported,
        cudaErrorStreamCaptureInvalidated}) {
    SCOPED_TRACE(static_cast<int>(rc));
    EXPECT_EQ(classify_cuda_error(rc), FailureScope::kPoint);
  }
  for (const cublasStatus_t rc : {CUBLAS_STATUS_NOT_SUPPORTED, CUBLAS_STATUS_INVALID_VALUE,
                                  CUBLAS_STATUS_ALLOC_FAILED, CUBLAS_STATUS_ARCH_MISMATCH}) {
    SCOPED_TRACE(static_cast<int>(rc));
    EXPECT_EQ(classify_cublas_status(rc), FailureScope::kPoint);
  }
}

TEST(NtpcalFailure, StickyAndUnknownErrorsEndTheRun) {
  // CUDA's sticky errors corrupt the context: every later call fails too.
  for (const cudaError_t rc :
       {cudaErrorIllegalAddress, cudaErrorLaunchFailure, cudaErrorECCUncorrectable,
        cudaErrorHardwareStackError, cudaErrorIllegalInstruction, cudaErrorMisalignedAddress,
        cudaErrorInvalidPc, cudaErrorAssert, cudaErrorLaunchTimeout, cudaErrorNvlinkUncorrectable,
        cudaErrorDevicesUnavailable, cudaErrorUnknown}) {
    SCOPED_TRACE(static_cast<int>(rc));
    EXPECT_EQ(classify_cuda_error(rc), FailureScope::kRun);
  }
  for (const cublasStatus_t rc : {CUBLAS_STATUS_EXECUTION_FAILED, CUBLAS_STATUS_INTERNAL_ERROR,
                                  CUBLAS_STATUS_MAPPING_ERROR, CUBLAS_STATUS_NOT_INITIALIZED}) {
    SCOPED_TRACE(static_cast<int>(rc));
    EXPECT_EQ(classify_cublas_status(rc), FailureScope::kRun);
  }
}

}  // namespace
}  // namespace ntpsim::ntpcal
