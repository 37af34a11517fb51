#include "calibrate/ntpcal/cuda_backend.h"

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

#include "calibrate/ntpcal/cuda_util.h"
#include "calibrate/ntpcal/fill.h"
#include "calibrate/ntpcal/nccl_runner.h"
#include "calibrate/shapes.h"

// Block-scaled (mxfp8) cuBLASLt: the VEC32_UE8M0 scale mode arrived with cuBLAS 12.8.
#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 120800
#define NTPCAL_HAVE_BLOCK_SCALING 1
#else
#define NTPCAL_HAVE_BLOCK_SCALING 0
#endif

namespace ntpsim::ntpcal {

using calibrate::GemmDType;
using calibrate::GemmLayout;
using calibrate::GemmMeasurement;
using calibrate::GemmRequest;

namespace {

// "13.0" from CUDA's 13000-style version numbers.
std::string cuda_version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

// Points a matmul descriptor's A and B scale attributes at device scale tensors (fp8 per-tensor
// scales, or mxfp8 block scales).
Status set_scale_pointers(cublasLtMatmulDesc_t desc, const void* a, const void* b) {
  NTPSIM_RETURN_IF_ERROR(blas_check(
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a, sizeof a),
      "set A scale pointer"));
  return blas_check(
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b, sizeof b),
      "set B scale pointer");
}

// True when every part of a merged shape label ("qkv.fwd tp=8|attn_out.dgrad tp=7") is a forward
// GEMM: Transformer Engine runs fp8 fprop with fast accumulation, dgrad and wgrad without.
bool forward_only(const std::string& label) {
  if (label.empty()) return false;
  size_t start = 0;
  while (start <= label.size()) {
    const size_t bar = std::min(label.find('|', start), label.size());
    if (label.substr(start, bar - start).find(".fwd") == std::string::npos) return false;
    start = bar + 1;
  }
  return true;
}

// NVML's spelling of a CUDA device UUID: "GPU-" and 32 hex digits in 8-4-4-4-12 groups.
std::string uuid_text(const char (&bytes)[16]) {
  std::string s = "GPU-";
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(bytes[i]));
    s += hex;
    if (i == 3 || i == 5 || i == 7 || i == 9) s += '-';
  }
  return s;
}

}  // namespace

Result<int> cuda_device_count() {
  int n = 0;
  const cudaError_t rc = cudaGetDeviceCount(&n);
  if (rc == cudaErrorInsufficientDriver || rc == cudaErrorNoDevice) {
    std::error_code ec;
    if (!std::filesystem::exists("/proc/driver/nvidia/version", ec)) {
      return Error::bad_input(
          std::string("no CUDA GPU found: no NVIDIA driver is loaded (cudaGetDeviceCount: ") +
          cudaGetErrorString(rc) + ")");
    }
    if (rc == cudaErrorInsufficientDriver) {
      int driver = 0, runtime = 0;
      cudaDriverGetVersion(&driver);
      cudaRuntimeGetVersion(&runtime);
      return Error::bad_input("no usable CUDA GPU: the NVIDIA driver supports CUDA " +
                              cuda_version_text(driver) +
                              ", older than this ntpcal's CUDA runtime " +
                              cuda_version_text(runtime) + " needs (update the driver)");
    }
  }
  if (rc != cudaSuccess) {
    return Error::bad_input(std::string("no CUDA GPU found (cudaGetDeviceCount: ") +
                            cudaGetErrorString(rc) + "); ntpcal needs an NVIDIA GPU and driver");
  }
  if (n == 0) return Error::bad_input("no CUDA GPU found (cudaGetDeviceCount returned 0)");
  return n;
}

void describe_host(calibrate::RawContext& ctx, const Nvml& nvml, const World& world) {
  ctx.set("cuda_toolkit", cuda_version_text(CUDART_VERSION) + " (built with)");
  int v = 0;
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) ctx.set("cuda_runtime", std::to_string(v));
  v = 0;
  cudaDriverGetVersion(&v);
  ctx.set("cuda_driver", v > 0 ? std::to_string(v) : "none (no NVIDIA driver)");
  ctx.set("cublas", std::to_string(cublasLtGetVersion()));
  ctx.set("cublaslt_block_scaling", NTPCAL_HAVE_BLOCK_SCALING
                                        ? "built (mxfp8 on GPUs of compute capability 10.0+)"
                                        : "not built (toolkit older than CUDA 12.8: no mxfp8)");
  ctx.set("nccl", nccl_library_version());
  std::string env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "NCCL_", 5) != 0) continue;
    if (!env.empty()) env += ' ';
    env += *e;
  }
  ctx.set("nccl_env", env.empty() ? "(none)" : env);
  ctx.set("nvml", nvml.status());
  const std::string drv = nvml.driver_version();
  ctx.set("driver", drv.empty() ? "unknown (NVML unavailable)" : drv);
#ifdef NTPCAL_HAVE_MPI
  ctx.set("mpi", world.mpi() ? "yes (" + std::to_string(world.size()) + " ranks)"
                             : "built with MPI; not launched by mpirun/srun");
#else
  ctx.set("mpi", world.mpi() ? "yes" : "not built (single process drives every local GPU)");
#endif
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
  bool recoverable = false;          // the last failed gemm left the context usable

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
    NTPSIM_RETURN_IF_ERROR(workspace.allocate(opt.workspace_bytes));
    char bus[32] = {0};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess) nvml_dev = nvml.device_for_pci(bus);
    if (nvml_dev == nullptr && nvml.available()) {
      // The PCI lookup can fail in containers that remap bus ids; the UUID is stable.
      char uuid[16];
      std::memcpy(uuid, prop.uuid.bytes, sizeof uuid);
      nvml_dev = nvml.device_for_uuid(uuid_text(uuid));
      std::fprintf(
          stderr, "ntpcal: warning: NVML found no GPU at PCI %s%s\n", bus,
          nvml_dev != nullptr ? "; matched it by UUID" : " nor by UUID: no power or clock samples");
    }
    nccl = make_nccl_runner(world, opt.devices, opt.timeout_s, opt.rank_order);
    return Status::Ok();
  }

  // Waits for `ev` with a deadline of the timeout plus the run time expected of the queued work.
  Status wait_event(cudaEvent_t ev, const char* what, double expected_s = 0.0) const {
    const double limit = opt.timeout_s + std::max(0.0, expected_s);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit);
    while (true) {
      if (interrupted()) {
        note_failure(FailureScope::kRun);
        return Error::runtime(std::string(what) + ": interrupted by a signal");
      }
      const cudaError_t rc = cudaEventQuery(ev);
      if (rc == cudaSuccess) return Status::Ok();
      if (rc != cudaErrorNotReady) return cuda_check(rc, what);
      if (std::chrono::steady_clock::now() > deadline) {
        note_failure(FailureScope::kRun);  // the GPU is still busy with the queued work
        g_device_hung = 1;
        return Error::runtime(std::string(what) + ": timed out after " + std::to_string(limit) +
                              " s");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  // Measures one GEMM. On failure, `recoverable` says whether the context is still fit for the
  // next shape: the failure's scope (failure.h) is a point failure, any queued work finishes
  // without error, and no sticky error shows afterwards.
  Result<GemmMeasurement> gemm(const GemmRequest& r) {
    recoverable = false;
    note_failure(FailureScope::kRun);
    auto out = gemm_once(r);
    if (out.ok() || g_last_failure != FailureScope::kPoint) return out;
    cudaGetLastError();  // clears a non-sticky error; a sticky one stays and shows below
    EventPair probe;
    recoverable = probe.create().ok() &&
                  cuda_check(cudaEventRecord(probe.stop, stream), "cudaEventRecord").ok() &&
                  wait_event(probe.stop, "GEMM clean-up", 0.0).ok() &&
                  cudaDeviceSynchronize() == cudaSuccess;
    return out;
  }

  Result<GemmMeasurement> gemm_once(const GemmRequest& r) {
    NTPSIM_RETURN_IF_ERROR(cuda_check(cudaSetDevice(device), "cudaSetDevice"));
    const bool fp8 = calibrate::is_fp8(r.dtype);
    const bool mx = r.dtype == GemmDType::kMXFP8;
    const size_t in_size = fp8 ? 1 : 2;
    const auto m = static_cast<uint64_t>(r.m), n = static_cast<uint64_t>(r.n),
               k = static_cast<uint64_t>(r.k);
    const FillType ft = fp8 ? FillType::kFP8E4M3 : FillType::kBF16;
    // Operand copies: together at least 2x the L2 cache, so every launch reads A and B from HBM;
    // as many as fit in a quarter of the free memory (at least one).
    const size_t set_bytes = (m * k + k * n) * in_size;
    const size_t l2 = static_cast<size_t>(std::max(0, prop.l2CacheSize));
    size_t free_b = 0, total_b = 0;
    NTPSIM_RETURN_IF_ERROR(cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo"));
    size_t sets = std::max<size_t>(1, (2 * l2 + set_bytes - 1) / std::max<size_t>(1, set_bytes));
    sets = std::min<size_t>(
        {sets, 64, std::max<size_t>(1, free_b / 4 / std::max<size_t>(1, set_bytes))});
    std::vector<DeviceBuffer> a(sets), b(sets);
    DeviceBuffer d;
    for (size_t i = 0; i < sets; ++i) {
      NTPSIM_RETURN_IF_ERROR(a[i].allocate(m * k * in_size));
      NTPSIM_RETURN_IF_ERROR(b[i].allocate(k * n * in_size));
      NTPSIM_RETURN_IF_ERROR(cuda_check(static_cast<cudaError_t>(fill_random(
                                            a[i].get(), m * k, ft, opt.seed + 2 * i, 1.0f, stream)),
                                        "fill A"));
      NTPSIM_RETURN_IF_ERROR(
          cuda_check(static_cast<cudaError_t>(
                         fill_random(b[i].get(), k * n, ft, opt.seed + 2 * i + 1, 1.0f, stream)),
                     "fill B"));
    }
    NTPSIM_RETURN_IF_ERROR(d.allocate(m * n * 2));

    // D[m x n] (column-major, bf16) = op(A) op(B). The layout names op(A) and op(B): A is stored
    // k x m when transposed (T) and m x k otherwise (N); B is stored k x n (N) or n x k (T).
    const bool ta = r.layout == GemmLayout::kTN;
    const bool tb = r.layout == GemmLayout::kNT;
    const cudaDataType_t in_t = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    LtObjects o;
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtMatmulDescCreate(&o.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate"));
    const cublasOperation_t transa = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t transb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtMatmulDescSetAttribute(o.desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa), "set TRANSA"));
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtMatmulDescSetAttribute(o.desc, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb), "set TRANSB"));
    DeviceBuffer scale, scale_a, scale_b;
    if (mx) {
#if NTPCAL_HAVE_BLOCK_SCALING
      // MXFP8: one UE8M0 scale per 32 consecutive elements along k, in cuBLASLt's tiled layout
      // (blocks of 128 rows x 4 scale columns): roundup(rows, 128) x roundup(ceil(k/32), 4)
      // bytes per operand. Every scale is 0x7F = 2^0, the unit scale.
      const auto scale_bytes = [&](uint64_t rows) {
        return calibrate::ceil_div(static_cast<int64_t>(rows), 128) * 128 *
               calibrate::ceil_div(calibrate::ceil_div(static_cast<int64_t>(k), 32), 4) * 4;
      };
      NTPSIM_RETURN_IF_ERROR(scale_a.allocate(static_cast<size_t>(scale_bytes(m))));
      NTPSIM_RETURN_IF_ERROR(scale_b.allocate(static_cast<size_t>(scale_bytes(n))));
      NTPSIM_RETURN_IF_ERROR(cuda_check(
          cudaMemsetAsync(scale_a.get(), 0x7F, scale_a.size(), stream), "fill A scales"));
      NTPSIM_RETURN_IF_ERROR(cuda_check(
          cudaMemsetAsync(scale_b.get(), 0x7F, scale_b.size(), stream), "fill B scales"));
      const cublasLtMatmulMatrixScale_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
      NTPSIM_RETURN_IF_ERROR(
          blas_check(cublasLtMatmulDescSetAttribute(o.desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE,
                                                    &mode, sizeof mode),
                     "set A_SCALE_MODE"));
      NTPSIM_RETURN_IF_ERROR(
          blas_check(cublasLtMatmulDescSetAttribute(o.desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE,
                                                    &mode, sizeof mode),
                     "set B_SCALE_MODE"));
      NTPSIM_RETURN_IF_ERROR(set_scale_pointers(o.desc, scale_a.get(), scale_b.get()));
#else
      note_failure(FailureScope::kPoint);
      return Error::runtime("mxfp8: this ntpcal was built without block-scaled cuBLASLt");
#endif
    } else if (fp8) {
      // Per-tensor scales of 1.0, set explicitly as Transformer Engine does (cuBLASLt's
      // LtFp8Matmul sample); fast accumulation only where every use of the shape is a forward GEMM.
      const float one = 1.0f;
      NTPSIM_RETURN_IF_ERROR(scale.allocate(sizeof one));
      NTPSIM_RETURN_IF_ERROR(cuda_check(
          cudaMemcpy(scale.get(), &one, sizeof one, cudaMemcpyHostToDevice), "copy fp8 scale"));
      NTPSIM_RETURN_IF_ERROR(set_scale_pointers(o.desc, scale.get(), scale.get()));
      const int8_t fast = forward_only(r.label) ? 1 : 0;
      NTPSIM_RETURN_IF_ERROR(
          blas_check(cublasLtMatmulDescSetAttribute(o.desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast,
                                                    sizeof fast),
                     "set FAST_ACCUM"));
    }
    const auto i64 = [](uint64_t v) { return static_cast<int64_t>(v); };
    NTPSIM_RETURN_IF_ERROR(blas_check(ta ? cublasLtMatrixLayoutCreate(&o.a, in_t, k, m, i64(k))
                                         : cublasLtMatrixLayoutCreate(&o.a, in_t, m, k, i64(m)),
                                      "layout A"));
    NTPSIM_RETURN_IF_ERROR(blas_check(tb ? cublasLtMatrixLayoutCreate(&o.b, in_t, n, k, i64(n))
                                         : cublasLtMatrixLayoutCreate(&o.b, in_t, k, n, i64(k)),
                                      "layout B"));
    NTPSIM_RETURN_IF_ERROR(
        blas_check(cublasLtMatrixLayoutCreate(&o.c, CUDA_R_16BF, m, n, i64(m)), "layout C"));
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtMatmulPreferenceCreate(&o.pref), "cublasLtMatmulPreferenceCreate"));
    const size_t ws = workspace.size();
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtMatmulPreferenceSetAttribute(o.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws), "set workspace"));
    constexpr int kAlgos = 8;
    cublasLtMatmulHeuristicResult_t heur[kAlgos] = {};
    int found = 0;
    NTPSIM_RETURN_IF_ERROR(blas_check(cublasLtMatmulAlgoGetHeuristic(lt, o.desc, o.a, o.b, o.c, o.c,
                                                                     o.pref, kAlgos, heur, &found),
                                      "cublasLtMatmulAlgoGetHeuristic"));
    if (found == 0) {
      note_failure(FailureScope::kPoint);
      return Error::runtime("cuBLASLt has no algorithm for this shape");
    }
    const float alpha = 1.0f, beta = 0.0f;
    int algo = 0;
    size_t next = 0;
    const auto launch = [&]() {
      const size_t i = next;
      next = (next + 1) % sets;
      return cublasLtMatmul(lt, o.desc, &alpha, a[i].get(), o.a, b[i].get(), o.b, &beta, d.get(),
                            o.c, d.get(), o.c, &heur[algo].algo, workspace.get(), ws, stream);
    };
    // The heuristic's first algorithm that launches (the top one, as TE and PyTorch use, unless
    // it is not supported for these operands).
    cublasStatus_t first = CUBLAS_STATUS_SUCCESS;
    while (algo < found) {
      first = launch();
      if (first == CUBLAS_STATUS_SUCCESS) break;
      ++algo;
    }
    if (algo == found)
      return blas_check(first, "cublasLtMatmul (every heuristic algorithm)").error();
    const auto checked = [&]() { return blas_check(launch(), "cublasLtMatmul"); };
    for (int i = 1; i < std::max(1, r.warmup); ++i) NTPSIM_RETURN_IF_ERROR(checked());
    EventPair probe;
    NTPSIM_RETURN_IF_ERROR(probe.create());
    NTPSIM_RETURN_IF_ERROR(cuda_check(cudaEventRecord(probe.start, stream), "cudaEventRecord"));
    NTPSIM_RETURN_IF_ERROR(checked());
    NTPSIM_RETURN_IF_ERROR(cuda_check(cudaEventRecord(probe.stop, stream), "cudaEventRecord"));
    NTPSIM_RETURN_IF_ERROR(wait_event(probe.stop, "GEMM warm-up"));
    float probe_ms = 0.0f;
    NTPSIM_RETURN_IF_ERROR(cuda_check(cudaEventElapsedTime(&probe_ms, probe.start, probe.stop),
                                      "cudaEventElapsedTime"));
    // Launches per sample: at least 1 ms of GPU work, so the GPU never waits for the host.
    const double one_s = std::max(1e-7, static_cast<double>(probe_ms) * 1e-3);
    const int batch =
        static_cast<int>(std::clamp(std::ceil(1e-3 / one_s), 1.0, r.graph ? 10000.0 : 100000.0));
    // With r.graph the batch is captured once (operand rotation included) and each sample is one
    // graph launch: no host cost per GEMM even where one launch takes longer than the kernel.
    GraphExec graph;
    if (r.graph) {
      const auto queue_batch = [&]() -> Status {
        for (int j = 0; j < batch; ++j) NTPSIM_RETURN_IF_ERROR(checked());
        return Status::Ok();
      };
      NTPSIM_RETURN_IF_ERROR(
          capture_graph(stream, cudaStreamCaptureModeThreadLocal, queue_batch, graph));
      // The first launch uploads the graph; it is not timed.
      NTPSIM_RETURN_IF_ERROR(cuda_check(cudaGraphLaunch(graph.exec, stream), "cudaGraphLaunch"));
      NTPSIM_RETURN_IF_ERROR(cuda_check(cudaEventRecord(probe.stop, stream), "cudaEventRecord"));
      NTPSIM_RETURN_IF_ERROR(wait_event(probe.stop, "GEMM graph warm-up", batch * one_s * 4));
    }
    const auto one_sample = [&]() -> Status {
      if (r.graph) return cuda_check(cudaGraphLaunch(graph.exec, stream), "cudaGraphLaunch");
      for (int j = 0; j < batch; ++j) NTPSIM_RETURN_IF_ERROR(checked());
      return Status::Ok();
    };
    const int reps = std::max(1, r.reps);
    constexpr int kChunk = 16;  // samples queued between waits
    PowerSampler sampler(nvml, nvml_dev);
    sampler.start();
    std::vector<double> times;
    double total_s = 0.0;
    Status status = Status::Ok();
    while (status.ok() && (static_cast<int>(times.size()) < reps || total_s < r.min_seconds)) {
      std::vector<EventPair> ev(kChunk);
      for (auto& e : ev) {
        if (status = e.create(); !status.ok()) break;
        if (status = cuda_check(cudaEventRecord(e.start, stream), "cudaEventRecord"); !status.ok())
          break;
        if (status = one_sample(); !status.ok()) break;
        status = cuda_check(cudaEventRecord(e.stop, stream), "cudaEventRecord");
        if (!status.ok()) break;
      }
      if (!status.ok()) break;
      status = wait_event(ev.back().stop, "GEMM", kChunk * batch * one_s * 4);
      for (auto& e : ev) {
        if (!status.ok()) break;
        float ms = 0.0f;
        status = cuda_check(cudaEventElapsedTime(&ms, e.start, e.stop), "cudaEventElapsedTime");
        times.push_back(static_cast<double>(ms) * 1e-3 / batch);
        total_s += static_cast<double>(ms) * 1e-3;
      }
      if (times.size() > 1000000) break;
    }
    GemmMeasurement out;
    out.power = sampler.stop();
    NTPSIM_RETURN_IF_ERROR(status);
    out.time = calibrate::summarize(std::move(times));
    return out;
  }

  double memory_bw_GBps() {
    const size_t bytes = std::min<size_t>(1ull << 30, prop.totalGlobalMem / 8);
    DeviceBuffer src, dst;
    if (!src.allocate(bytes).ok() || !dst.allocate(bytes).ok()) return 0.0;
    EventPair e;
    if (!e.create().ok()) return 0.0;
    constexpr int kReps = 10;
    bool ok = cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream) ==
                  cudaSuccess &&
              cudaEventRecord(e.start, stream) == cudaSuccess;
    for (int i = 0; i < kReps && ok; ++i) {
      ok = cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream) ==
           cudaSuccess;
    }
    ok = ok && cudaEventRecord(e.stop, stream) == cudaSuccess;
    if (!ok || !wait_event(e.stop, "memory bandwidth").ok()) return 0.0;
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, e.start, e.stop) != cudaSuccess) return 0.0;
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
  const int cc = impl_->prop.major * 10 + impl_->prop.minor;
  return calibrate::gemm_support(r, cc, static_cast<int>(cublasLtGetVersion()),
                                 NTPCAL_HAVE_BLOCK_SCALING != 0);
}

bool CudaBackend::failure_recoverable() const {
  return impl_->recoverable || (impl_->nccl && impl_->nccl->failure_recoverable());
}

double CudaBackend::power_limit_w() const {
  double w = 0.0;
  impl_->nvml.power_limit_w(impl_->nvml_dev, w);
  return w;
}

double CudaBackend::enforced_power_limit_w() const {
  double w = 0.0;
  if (impl_->nvml.enforced_power_limit_w(impl_->nvml_dev, w) && w > 0) return w;
  return power_limit_w();
}

Result<GemmMeasurement> CudaBackend::gemm(const GemmRequest& r) {
  if (impl_->nccl) impl_->nccl->clear_failure();
  return impl_->gemm(r);
}

Result<calibrate::CollectiveMeasurement> CudaBackend::collective(const calibrate::CollectiveRequest& r) {
  impl_->recoverable = false;
  if (!impl_->nccl) return Error::bad_input("ntpcal was built without NCCL: no collectives");
  return impl_->nccl->collective(r);
}

Result<calibrate::ReshardMeasurement> CudaBackend::reshard(const calibrate::ReshardRequest& r) {
  impl_->recoverable = false;
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
  char uuid[16];
  std::memcpy(uuid, s.prop.uuid.bytes, sizeof uuid);
  ctx.set("gpu_uuid", uuid_text(uuid));
  ctx.set("l2_cache_bytes", std::to_string(s.prop.l2CacheSize));
  ctx.set("cublaslt_workspace_bytes", std::to_string(s.workspace.size()));
  double x = 0, y = 0;
  if (s.nvml.max_mem_clock_mhz(s.nvml_dev, x))
    ctx.set("mem_clock_max_mhz", calibrate::format_number(x));
  if (s.nvml.enforced_power_limit_w(s.nvml_dev, x))
    ctx.set("power_limit_enforced_w", calibrate::format_number(x));
  if (s.nvml.temperature_c(s.nvml_dev, x)) ctx.set("gpu_temp_c", calibrate::format_number(x));
  std::string mode;
  if (s.nvml.ecc_enabled(s.nvml_dev, mode)) ctx.set("ecc", mode);
  if (s.nvml.compute_mode(s.nvml_dev, mode)) ctx.set("compute_mode", mode);
  int procs = 0;
  if (s.nvml.compute_processes(s.nvml_dev, procs)) {
    ctx.set("compute_processes", std::to_string(procs));
    if (procs > 1) {
      std::fprintf(
          stderr,
          "ntpcal: warning: %d compute processes on GPU %d: other work skews the measurement\n",
          procs, s.device);
    }
  }
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
