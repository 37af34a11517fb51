// The GPU measurement backend of ntpcal: cuBLASLt GEMMs, NCCL collectives and the NTP reshard,
// with NVML power/clock sampling (DESIGN.md §5).
//
// GEMMs run on this process's measured GPU (the first of `devices`): random bf16 or fp8 (e4m3)
// inputs in the request's layout (TN, NN or NT), fp32 accumulation, bf16 output; fp8 with unit
// per-tensor scale pointers and fast accumulation for forward-only shapes (as Transformer Engine
// runs fprop); mxfp8 with unit UE8M0 scales per 32 elements along k (cuBLASLt's VEC32_UE8M0 scale
// mode, compute capability 10.0+); the first of up to 8 heuristic algorithms that launches, with
// a 32 MiB workspace by default. A failure that leaves the context usable (an unsupported shape,
// type or layout, out of memory for one shape: failure.h) is reported recoverable, so the loops
// skip that shape; any other ends the run.
// Operands rotate over enough copies that each launch reads them cold from HBM (together at
// least twice the L2 cache), as training reads weights. After warm-up, each timed sample is one
// CUDA-event pair around a batch of back-to-back launches lasting at least 1 ms (so host launch
// cost is hidden; with the request's `graph` the batch is one captured CUDA graph, which also
// removes the host cost of launches shorter than their kernels), repeated for `reps` samples and at
// least `min_seconds`, while NVML samples power (the mean from the energy counter after the first
// second), SM clock, temperature and clock-event reasons. Collectives and reshards run over NCCL
// communicators of the requested group size (the first n of `rank_order`; one communicator set at a
// time): each sample is a barrier, `iters` back-to-back launches (with `graph`: one captured CUDA
// graph of them, as nccl-tests -G) and the wait for every rank, divided by `iters` and averaged
// over ranks (as nccl-tests). Every wait has a deadline of `timeout_s` plus the expected run time;
// on a timeout or any NCCL error the communicators are aborted and a runtime error returned. Out of
// memory for one size's buffers (agreed over all ranks) is a recoverable failure: that size is
// skipped. Power limits change only through set_power_limit_w (ntpcal power --set-power-limits).
// Thread safety: one thread; the object owns its CUDA streams, buffers and communicators.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "calibrate/backend.h"
#include "calibrate/ntpcal/nvml.h"
#include "calibrate/ntpcal/plan.h"
#include "calibrate/ntpcal/world.h"
#include "calibrate/raw_csv.h"

namespace ntpsim::ntpcal {

// How many CUDA devices this machine has, or an error (exit 2) saying why there are none: no
// driver loaded, or a driver older than this CUDA runtime needs, named as such.
Result<int> cuda_device_count();

// What this machine offers without touching a GPU: CUDA toolkit (build) and runtime versions,
// the driver's CUDA version and NVML's driver version, cuBLASLt, NCCL (library version, NCCL_*
// environment), NVML status and MPI (built, ranks).
void describe_host(calibrate::RawContext& ctx, const Nvml& nvml, const World& world);

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
  bool failure_recoverable() const override;
  double power_limit_w() const override;
  double enforced_power_limit_w() const override;

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
