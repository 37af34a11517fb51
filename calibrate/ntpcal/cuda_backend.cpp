#include "calibrate/ntpcal/cuda_backend.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "calibrate/ntpcal/cuda_util.h"
#include "calibrate/ntpcal/fill.h"
#include "calibrate/ntpcal/nccl_runner.h"

namespace ntpsim::ntpcal {

using calibrate::GemmDType;
using calibrate::GemmMeasurement;
using calibrate::GemmRequest;

Result<int> cuda_device_count() {
  int n = 0;
  const cudaError_t rc = cudaGetDeviceCount(&n);
  if (rc != cudaSuccess) {
    return Error::bad_input(std::string("no CUDA GPU found (cudaGetDeviceCount: ") +
                            cudaGetErrorString(rc) + "); ntpcal needs an NVIDIA GPU and driver");
  }
  if (n == 0) return Error::bad_input("no CUDA GPU found (cudaGetDeviceCount returned 0)");
  return n;
}

struct CudaBackend::Impl {
  const World& world;
  const Nvml& nvml;
  CudaOptions opt;
  int device = 0;            // the measured GPU
  void* nvml_dev = nullptr;
  cudaDeviceProp prop{};
  cudaStream_t stream = nullptr;
  cublasLtHandle_t lt = nullptr;
  DeviceBuffer workspace;
  std::unique_ptr<NcclRunner> nccl;  // null when built without NCCL

  Impl(const World& w, const Nvml& n, CudaOptions o) : world(w), nvml(n), opt(std::move(o)) {}

  ~Impl() {
    nccl.reset();
    if (lt != nullptr) cublasLtDestroy(lt);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }

  Status init() {
    device = opt.devices.front();
    NTPSIM_RETURN_IF_ERROR(cuda_check(cudaSetDevice(device), "cudaSetDevice"));
    NTPSIM_RETURN_IF_ERROR(cuda_check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties"));
    NTPSIM_RETURN_IF_ERROR(cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate"));
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtCreate(&lt), "cublasLtCreate"));
    NTPSIM_RETURN_IF_ERROR(workspace.allocate(64ull << 20));
    char bus[32] = {0};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess) nvml_dev = nvml.device_for_pci(bus);
    nccl = make_nccl_runner(world, opt.devices, opt.timeout_s);
    return Status::Ok();
  }

  // Waits for `ev` with a deadline.
  Status wait_event(cudaEvent_t ev, const char* what) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(opt.timeout_s);
    while (true) {
      const cudaError_t rc = cudaEventQuery(ev);
      if (rc == cudaSuccess) return Status::Ok();
      if (rc != cudaErrorNotReady) return cuda_check(rc, what);
      if (std::chrono::steady_clock::now() > deadline) {
        return Error::runtime(std::string(what) + ": timed out after " + std::to_string(opt.timeout_s) + " s");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  Result<GemmMeasurement> gemm(const GemmRequest& r) {
    NTPSIM_RETURN_IF_ERROR(cuda_check(cudaSetDevice(device), "cudaSetDevice"));
    const bool fp8 = r.dtype == GemmDType::kFP8;
    const size_t in_size = fp8 ? 1 : 2;
    const auto m = static_cast<uint64_t>(r.m), n = static_cast<uint64_t>(r.n), k = static_cast<uint64_t>(r.k);
    DeviceBuffer a, b, d;
    NTPSIM_RETURN_IF_ERROR(a.allocate(m * k * in_size));
    NTPSIM_RETURN_IF_ERROR(b.allocate(k * n * in_size));
    NTPSIM_RETURN_IF_ERROR(d.allocate(m * n * 2));
    const FillType ft = fp8 ? FillType::kFP8E4M3 : FillType::kBF16;
    NTPSIM_RETURN_IF_ERROR(cuda_check(static_cast<cudaError_t>(fill_random(a.get(), m * k, ft, opt.seed, 1.0f, stream)), "fill A"));
    NTPSIM_RETURN_IF_ERROR(cuda_check(static_cast<cudaError_t>(fill_random(b.get(), k * n, ft, opt.seed + 1, 1.0f, stream)), "fill B"));

    // D[m x n] (column-major) = A^T B with A stored k x m and B stored k x n ("TN", as fp8 needs).
    const cudaDataType_t in_t = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    LtObjects o;
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtMatmulDescCreate(&o.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate"));
    const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtMatmulDescSetAttribute(o.desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa), "set TRANSA"));
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtMatmulDescSetAttribute(o.desc, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb), "set TRANSB"));
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtMatrixLayoutCreate(&o.a, in_t, k, m, static_cast<int64_t>(k)), "layout A"));
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtMatrixLayoutCreate(&o.b, in_t, k, n, static_cast<int64_t>(k)), "layout B"));
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtMatrixLayoutCreate(&o.c, CUDA_R_16BF, m, n, static_cast<int64_t>(m)), "layout C"));
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtMatmulPreferenceCreate(&o.pref), "cublasLtMatmulPreferenceCreate"));
    const size_t ws = workspace.size();
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtMatmulPreferenceSetAttribute(o.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws), "set workspace"));
    cublasLtMatmulHeuristicResult_t heur{};
    int found = 0;
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtMatmulAlgoGetHeuristic(lt, o.desc, o.a, o.b, o.c, o.c, o.pref, 1, &heur, &found), "cublasLtMatmulAlgoGetHeuristic"));
    if (found == 0) return Error::runtime("cuBLASLt has no algorithm for this shape");
    const float alpha = 1.0f, beta = 0.0f;
    const auto launch = [&]() {
      return blas_check(cublasLtMatmul(lt, o.desc, &alpha, a.get(), o.a, b.get(), o.b, &beta, d.get(), o.c,
                                       d.get(), o.c, &heur.algo, workspace.get(), ws, stream),
                        "cublasLtMatmul");
    };
    for (int i = 0; i < std::max(1, r.warmup); ++i) NTPSIM_RETURN_IF_ERROR(launch());
    EventPair probe;
    NTPSIM_RETURN_IF_ERROR(probe.create());
    cudaEventRecord(probe.start, stream);
    NTPSIM_RETURN_IF_ERROR(launch());
    cudaEventRecord(probe.stop, stream);
    NTPSIM_RETURN_IF_ERROR(wait_event(probe.stop, "GEMM warm-up"));
    float probe_ms = 0.0f;
    cudaEventElapsedTime(&probe_ms, probe.start, probe.stop);
    int reps = std::max(1, r.reps);
    if (r.min_seconds > 0 && probe_ms > 0) {
      reps = std::max(reps, static_cast<int>(r.min_seconds * 1e3 / static_cast<double>(probe_ms)) + 1);
    }
    reps = std::min(reps, 100000);
    std::vector<EventPair> ev(static_cast<size_t>(reps));
    for (auto& e : ev) NTPSIM_RETURN_IF_ERROR(e.create());
    PowerSampler sampler(nvml, nvml_dev);
    sampler.start();
    for (auto& e : ev) {
      cudaEventRecord(e.start, stream);
      NTPSIM_RETURN_IF_ERROR(launch());
      cudaEventRecord(e.stop, stream);
    }
    const Status waited = wait_event(ev.back().stop, "GEMM");
    GemmMeasurement out;
    out.power = sampler.stop();
    NTPSIM_RETURN_IF_ERROR(waited);
    std::vector<double> times;
    for (auto& e : ev) {
      float ms = 0.0f;
      NTPSIM_RETURN_IF_ERROR(cuda_check(cudaEventElapsedTime(&ms, e.start, e.stop), "cudaEventElapsedTime"));
      times.push_back(static_cast<double>(ms) * 1e-3);
    }
    out.time = calibrate::summarize(std::move(times));
    return out;
  }

  double memory_bw_GBps() {
    const size_t bytes = std::min<size_t>(1ull << 30, prop.totalGlobalMem / 8);
    DeviceBuffer src, dst;
    if (!src.allocate(bytes).ok() || !dst.allocate(bytes).ok()) return 0.0;
    EventPair e;
    if (!e.create().ok()) return 0.0;
    cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream);
    cudaEventRecord(e.start, stream);
    constexpr int kReps = 10;
    for (int i = 0; i < kReps; ++i) cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream);
    cudaEventRecord(e.stop, stream);
    if (!wait_event(e.stop, "memory bandwidth").ok()) return 0.0;
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, e.start, e.stop);
    // A copy reads and writes every byte.
    return ms > 0 ? 2.0 * static_cast<double>(bytes) * kReps / (static_cast<double>(ms) * 1e-3) / 1e9 : 0.0;
  }
};

CudaBackend::CudaBackend(const World& world, const Nvml& nvml, CudaOptions options)
    : impl_(std::make_unique<Impl>(world, nvml, std::move(options))) {}

CudaBackend::~CudaBackend() = default;

Result<std::unique_ptr<CudaBackend>> CudaBackend::create(const World& world, const Nvml& nvml,
                                                         CudaOptions options) {
  auto count = cuda_device_count();
  if (!count.ok()) return count.error();
  if (options.devices.empty()) return Error::bad_input("no CUDA device selected");
  for (const int d : options.devices) {
    if (d < 0 || d >= *count) {
      return Error::bad_input("CUDA device " + std::to_string(d) + " does not exist (this machine has " +
                              std::to_string(*count) + ")");
    }
  }
  std::unique_ptr<CudaBackend> b(new CudaBackend(world, nvml, std::move(options)));
  NTPSIM_RETURN_IF_ERROR(b->impl_->init());
  return b;
}

int CudaBackend::max_group_size() const {
  return impl_->world.mpi() ? impl_->world.size() : static_cast<int>(impl_->opt.devices.size());
}

std::string CudaBackend::gemm_unsupported(const GemmRequest& r) const {
  if (r.dtype != GemmDType::kFP8) return {};
  const int cc = impl_->prop.major * 10 + impl_->prop.minor;
  if (cc < 89) return "fp8 needs compute capability 8.9 or newer, this GPU has " + std::to_string(cc);
  if (r.m % 16 != 0 || r.n % 16 != 0 || r.k % 16 != 0) return "fp8 needs m, n, k multiples of 16";
  return {};
}

double CudaBackend::power_limit_w() const {
  double w = 0.0;
  impl_->nvml.power_limit_w(impl_->nvml_dev, w);
  return w;
}

Result<GemmMeasurement> CudaBackend::gemm(const GemmRequest& r) { return impl_->gemm(r); }

Result<calibrate::CollectiveMeasurement> CudaBackend::collective(const calibrate::CollectiveRequest& r) {
  if (!impl_->nccl) return Error::bad_input("ntpcal was built without NCCL: no collectives");
  return impl_->nccl->collective(r);
}

Result<calibrate::ReshardMeasurement> CudaBackend::reshard(const calibrate::ReshardRequest& r) {
  if (!impl_->nccl) return Error::bad_input("ntpcal was built without NCCL: no reshard");
  return impl_->nccl->reshard(r);
}

Result<double> CudaBackend::set_power_limit_w(double watts) {
  const std::string err = impl_->nvml.set_power_limit_w(impl_->nvml_dev, watts);
  if (!err.empty()) return Error::runtime(err);
  double now = 0.0;
  if (!impl_->nvml.power_limit_w(impl_->nvml_dev, now)) now = watts;
  return now;
}

void CudaBackend::describe(calibrate::RawContext& ctx, bool measure_memory_bw) {
  const Impl& s = *impl_;
  const World& w = s.world;
  ctx.set("gpu", s.prop.name);
  ctx.set("gpu_count", std::to_string(max_group_size()));
  ctx.set("compute_capability", std::to_string(s.prop.major) + "." + std::to_string(s.prop.minor));
  ctx.set("sm_count", std::to_string(s.prop.multiProcessorCount));
  ctx.set("gpu_memory_bytes", std::to_string(s.prop.totalGlobalMem));
  int v = 0;
  cudaDriverGetVersion(&v);
  ctx.set("cuda_driver", std::to_string(v));
  cudaRuntimeGetVersion(&v);
  ctx.set("cuda_runtime", std::to_string(v));
  ctx.set("cublas", std::to_string(cublasLtGetVersion()));
  ctx.set("nccl", s.nccl ? s.nccl->version() : "not built");
  ctx.set("nvml", s.nvml.status());
  const std::string drv = s.nvml.driver_version();
  ctx.set("driver", drv.empty() ? "unknown (NVML unavailable)" : drv);
  double x = 0, y = 0;
  if (s.nvml.max_sm_clock_mhz(s.nvml_dev, x)) ctx.set("sm_clock_max_mhz", calibrate::format_number(x));
  if (s.nvml.sm_clock_mhz(s.nvml_dev, x)) ctx.set("sm_clock_now_mhz", calibrate::format_number(x));
  if (s.nvml.power_w(s.nvml_dev, x)) ctx.set("power_now_w", calibrate::format_number(x));
  if (s.nvml.power_limit_w(s.nvml_dev, x)) ctx.set("power_limit_w", calibrate::format_number(x));
  if (s.nvml.default_power_limit_w(s.nvml_dev, x)) ctx.set("power_limit_default_w", calibrate::format_number(x));
  if (s.nvml.power_limit_range_w(s.nvml_dev, x, y)) {
    ctx.set("power_limit_min_w", calibrate::format_number(x));
    ctx.set("power_limit_max_w", calibrate::format_number(y));
  }
  ctx.set("ranks", std::to_string(w.size()) + (w.mpi() ? " (MPI, one GPU per process)" : " (single process)"));
  ctx.set("measured_device", std::to_string(s.device));
  if (measure_memory_bw) {
    const double bw = impl_->memory_bw_GBps();
    if (bw > 0) ctx.set("memory_bw_measured_GBps", calibrate::format_number(bw));
  }
}

}  // namespace ntpsim::ntpcal
