// The GPU measurement backend of ntpcal: cuBLASLt GEMMs, NCCL collectives and the NTP reshard,
// with NVML power/clock sampling (DESIGN.md §5).
//
// GEMMs run on this process's measured GPU (the first of `devices`): random bf16 or fp8 (e4m3)
// inputs in the "TN" layout cuBLASLt needs for fp8, fp32 accumulation, bf16 output, the best
// heuristic algorithm with a 64 MiB workspace, warm-up, then repetitions each timed with a pair
// of CUDA events while NVML samples power and SM clock. Collectives and reshards run over NCCL
// communicators of the requested group size (ranks 0..n-1; one per group size at a time), each
// repetition timed on the host between a barrier and the completion of every rank's stream, the
// slowest rank's time counting (as nccl-tests does). Every wait has a deadline: a call that does
// not finish in `timeout_s` aborts the communicator and returns a runtime error.
// Power limits change only through set_power_limit_w (ntpcal power --set-power-limits).
// Thread safety: one thread; the object owns its CUDA streams, buffers and communicators.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "calibrate/backend.h"
#include "calibrate/raw_csv.h"
#include "calibrate/ntpcal/nvml.h"
#include "calibrate/ntpcal/world.h"

namespace ntpsim::ntpcal {

struct CudaOptions {
  // Local CUDA devices this process drives. With MPI: exactly one. Without: the ranks of the
  // collectives (device i is rank i); GEMM and power use the first.
  std::vector<int> devices;
  double timeout_s = 120.0;
  uint64_t seed = 1;
};

// How many CUDA devices this machine has, or an error (exit 2) saying why there are none.
Result<int> cuda_device_count();

class CudaBackend final : public calibrate::Backend {
 public:
  static Result<std::unique_ptr<CudaBackend>> create(const World& world, const Nvml& nvml,
                                                     CudaOptions options);
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  std::string name() const override { return "cuda"; }
  int max_group_size() const override;
  std::string gemm_unsupported(const calibrate::GemmRequest& r) const override;
  double power_limit_w() const override;

  Result<calibrate::GemmMeasurement> gemm(const calibrate::GemmRequest& r) override;
  Result<calibrate::CollectiveMeasurement> collective(const calibrate::CollectiveRequest& r) override;
  Result<calibrate::ReshardMeasurement> reshard(const calibrate::ReshardRequest& r) override;
  Result<double> set_power_limit_w(double watts) override;

  // GPU model, count, SM count, memory, versions (driver, CUDA, cuBLASLt, NCCL), clocks and power
  // limits of the measured GPU. With `measure_memory_bw`, also a device-to-device copy bandwidth.
  void describe(calibrate::RawContext& ctx, bool measure_memory_bw);

 private:
  struct Impl;
  CudaBackend(const World& world, const Nvml& nvml, CudaOptions options);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ntpsim::ntpcal
