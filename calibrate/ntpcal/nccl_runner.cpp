#include "calibrate/ntpcal/nccl_runner.h"

#ifdef NTPCAL_HAVE_NCCL

#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <functional>
#include <thread>

#include "calibrate/ntpcal/cuda_util.h"

namespace ntpsim::ntpcal {
namespace {

using calibrate::CollectiveKind;

Status nccl_check(ncclResult_t rc, const char* what) {
  if (rc == ncclSuccess) return Status::Ok();
  return Error::runtime(std::string(what) + " failed: " + ncclGetErrorString(rc));
}

class Runner final : public NcclRunner {
 public:
  Runner(const World& world, std::vector<int> devices, double timeout_s)
      : world_(world), devices_(std::move(devices)), timeout_s_(timeout_s) {}
  ~Runner() override { destroy(false); }

  std::string version() const override {
    int v = 0;
    ncclGetVersion(&v);
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
  }

  Result<calibrate::CollectiveMeasurement> collective(const calibrate::CollectiveRequest& r) override {
    const int g = r.group_size;
    NTPSIM_RETURN_IF_ERROR(ensure(g));
    const size_t bytes = static_cast<size_t>(r.bytes);
    const size_t count = bytes / sizeof(float);                 // whole-buffer elements
    const size_t part = count / static_cast<size_t>(g);         // per-rank slice
    const bool gather = r.kind == CollectiveKind::kAllGather;
    NTPSIM_RETURN_IF_ERROR(buffers(gather ? part * sizeof(float) : bytes,
                                   r.kind == CollectiveKind::kReduceScatter ? part * sizeof(float) : bytes));
    const auto launch = [&]() -> Status {
      NTPSIM_RETURN_IF_ERROR(nccl_check(ncclGroupStart(), "ncclGroupStart"));
      for (Local& l : locals_) {
        void* s = l.send.get();
        void* d = l.recv.get();
        ncclResult_t rc = ncclSuccess;
        switch (r.kind) {
          case CollectiveKind::kAllReduce: rc = ncclAllReduce(s, d, count, ncclFloat, ncclSum, l.comm, l.stream); break;
          case CollectiveKind::kAllGather: rc = ncclAllGather(s, d, part, ncclFloat, l.comm, l.stream); break;
          case CollectiveKind::kReduceScatter: rc = ncclReduceScatter(s, d, part, ncclFloat, ncclSum, l.comm, l.stream); break;
          case CollectiveKind::kAllToAll: rc = ncclAlltoAll(s, d, part, ncclFloat, l.comm, l.stream); break;
          case CollectiveKind::kSendRecv:
            rc = ncclSend(s, count, ncclFloat, (l.rank + 1) % g, l.comm, l.stream);
            if (rc == ncclSuccess) rc = ncclRecv(d, count, ncclFloat, (l.rank + g - 1) % g, l.comm, l.stream);
            break;
        }
        if (rc != ncclSuccess) {
          ncclGroupEnd();
          return nccl_check(rc, calibrate::to_string(r.kind));
        }
      }
      return nccl_check(ncclGroupEnd(), "ncclGroupEnd");
    };
    auto t = timed(launch, r.warmup, r.reps, calibrate::to_string(r.kind));
    if (!t.ok()) return t.error();
    return calibrate::CollectiveMeasurement{*t};
  }

  Result<calibrate::ReshardMeasurement> reshard(const calibrate::ReshardRequest& r) override {
    const int core = r.tp - r.k;
    NTPSIM_RETURN_IF_ERROR(ensure(r.tp));
    const size_t bytes = static_cast<size_t>(r.bytes_per_rank);
    // Extra rank e splits its shard into `core` near-equal chunks, chunk j to core rank j.
    const auto chunk = [&](int j) {
      return bytes / static_cast<size_t>(core) + (static_cast<size_t>(j) < bytes % static_cast<size_t>(core) ? 1 : 0);
    };
    const auto offset = [&](int j) {
      size_t off = 0;
      for (int i = 0; i < j; ++i) off += chunk(i);
      return off;
    };
    const size_t max_chunk = chunk(0);
    NTPSIM_RETURN_IF_ERROR(buffers(bytes, max_chunk * static_cast<size_t>(r.k)));
    const auto phase = [&](bool out) -> Status {
      NTPSIM_RETURN_IF_ERROR(nccl_check(ncclGroupStart(), "ncclGroupStart"));
      for (Local& l : locals_) {
        auto* s = static_cast<char*>(l.send.get());
        auto* d = static_cast<char*>(l.recv.get());
        ncclResult_t rc = ncclSuccess;
        if (l.rank >= core) {  // extra rank: sends its chunks out, receives them back
          for (int j = 0; j < core && rc == ncclSuccess; ++j) {
            rc = out ? ncclSend(s + offset(j), chunk(j), ncclInt8, j, l.comm, l.stream)
                     : ncclRecv(s + offset(j), chunk(j), ncclInt8, j, l.comm, l.stream);
          }
        } else {  // core rank j: receives chunk j of every extra rank, sends it back
          for (int e = core; e < r.tp && rc == ncclSuccess; ++e) {
            char* slot = d + static_cast<size_t>(e - core) * max_chunk;
            rc = out ? ncclRecv(slot, chunk(l.rank), ncclInt8, e, l.comm, l.stream)
                     : ncclSend(slot, chunk(l.rank), ncclInt8, e, l.comm, l.stream);
          }
        }
        if (rc != ncclSuccess) {
          ncclGroupEnd();
          return nccl_check(rc, "reshard send/recv");
        }
      }
      return nccl_check(ncclGroupEnd(), "ncclGroupEnd");
    };
    const auto launch = [&]() -> Status {
      NTPSIM_RETURN_IF_ERROR(phase(true));
      return phase(false);
    };
    auto t = timed(launch, r.warmup, r.reps, "reshard");
    if (!t.ok()) return t.error();
    return calibrate::ReshardMeasurement{*t};
  }

 private:
  struct Local {
    int rank = 0;
    int device = 0;
    ncclComm_t comm = nullptr;
    cudaStream_t stream = nullptr;
    DeviceBuffer send, recv;
  };

  void destroy(bool abort) {
    for (Local& l : locals_) {
      cudaSetDevice(l.device);
      if (l.comm != nullptr) {
        if (abort) ncclCommAbort(l.comm);
        else ncclCommDestroy(l.comm);
      }
      if (l.stream != nullptr) cudaStreamDestroy(l.stream);
    }
    locals_.clear();
    group_ = 0;
  }

  Status ensure(int g) {
    if (g == group_) return Status::Ok();
    destroy(false);
    if (world_.mpi()) {
      ncclUniqueId id{};
      if (world_.rank() == 0) NTPSIM_RETURN_IF_ERROR(nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId"));
      world_.broadcast(&id, sizeof id);
      if (world_.rank() < g) {
        locals_.resize(1);
        Local& l = locals_[0];
        l.rank = world_.rank();
        l.device = devices_.front();
        NTPSIM_RETURN_IF_ERROR(cuda_check(cudaSetDevice(l.device), "cudaSetDevice"));
        NTPSIM_RETURN_IF_ERROR(cuda_check(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking), "cudaStreamCreate"));
        NTPSIM_RETURN_IF_ERROR(nccl_check(ncclCommInitRank(&l.comm, g, id, l.rank), "ncclCommInitRank"));
      }
    } else {
      std::vector<ncclComm_t> comms(static_cast<size_t>(g));
      NTPSIM_RETURN_IF_ERROR(nccl_check(ncclCommInitAll(comms.data(), g, devices_.data()), "ncclCommInitAll"));
      locals_.resize(static_cast<size_t>(g));
      for (int i = 0; i < g; ++i) {
        Local& l = locals_[static_cast<size_t>(i)];
        l.rank = i;
        l.device = devices_[static_cast<size_t>(i)];
        l.comm = comms[static_cast<size_t>(i)];
        NTPSIM_RETURN_IF_ERROR(cuda_check(cudaSetDevice(l.device), "cudaSetDevice"));
        NTPSIM_RETURN_IF_ERROR(cuda_check(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking), "cudaStreamCreate"));
      }
    }
    group_ = g;
    return Status::Ok();
  }

  Status buffers(size_t send_bytes, size_t recv_bytes) {
    for (Local& l : locals_) {
      NTPSIM_RETURN_IF_ERROR(cuda_check(cudaSetDevice(l.device), "cudaSetDevice"));
      if (l.send.size() < send_bytes) NTPSIM_RETURN_IF_ERROR(l.send.allocate(send_bytes));
      if (l.recv.size() < recv_bytes) NTPSIM_RETURN_IF_ERROR(l.recv.allocate(recv_bytes));
    }
    return Status::Ok();
  }

  // Waits for every local stream; aborts the communicators on an NCCL error or the deadline.
  Status wait_all(const char* what) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s_);
    while (true) {
      bool done = true;
      for (Local& l : locals_) {
        const cudaError_t rc = cudaStreamQuery(l.stream);
        if (rc == cudaErrorNotReady) {
          done = false;
        } else if (rc != cudaSuccess) {
          destroy(true);
          return cuda_check(rc, what);
        }
        ncclResult_t async = ncclSuccess;
        ncclCommGetAsyncError(l.comm, &async);
        if (async != ncclSuccess && async != ncclInProgress) {
          destroy(true);
          return nccl_check(async, what);
        }
      }
      if (done) return Status::Ok();
      if (std::chrono::steady_clock::now() > deadline) {
        destroy(true);
        return Error::runtime(std::string(what) + ": timed out after " + std::to_string(timeout_s_) +
                              " s (NCCL communicator aborted)");
      }
      std::this_thread::yield();
    }
  }

  Result<calibrate::TimeStats> timed(const std::function<Status()>& launch, int warmup, int reps,
                                     const char* what) {
    for (int i = 0; i < warmup; ++i) {
      if (!locals_.empty()) NTPSIM_RETURN_IF_ERROR(launch());
      NTPSIM_RETURN_IF_ERROR(wait_all(what));
    }
    std::vector<double> times;
    for (int i = 0; i < std::max(1, reps); ++i) {
      world_.barrier();
      const auto t0 = std::chrono::steady_clock::now();
      if (!locals_.empty()) NTPSIM_RETURN_IF_ERROR(launch());
      NTPSIM_RETURN_IF_ERROR(wait_all(what));
      const double mine = locals_.empty() ? 0.0 : std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      times.push_back(world_.max(mine));
    }
    return calibrate::summarize(std::move(times));
  }

  const World& world_;
  std::vector<int> devices_;
  double timeout_s_;
  int group_ = 0;
  std::vector<Local> locals_;
};

}  // namespace

std::unique_ptr<NcclRunner> make_nccl_runner(const World& world, const std::vector<int>& devices,
                                             double timeout_s) {
  return std::make_unique<Runner>(world, devices, timeout_s);
}

}  // namespace ntpsim::ntpcal

#else  // built without NCCL

namespace ntpsim::ntpcal {

std::unique_ptr<NcclRunner> make_nccl_runner(const World&, const std::vector<int>&, double) {
  return nullptr;
}

}  // namespace ntpsim::ntpcal

#endif
