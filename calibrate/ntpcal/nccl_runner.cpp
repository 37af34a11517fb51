#include "calibrate/ntpcal/nccl_runner.h"

#ifdef NTPCAL_HAVE_NCCL

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
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

std::string version_text() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return "unknown";
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

class Runner final : public NcclRunner {
 public:
  Runner(const World& world, std::vector<int> devices, double timeout_s, std::vector<int> order)
      : world_(world),
        devices_(std::move(devices)),
        timeout_s_(timeout_s),
        order_(std::move(order)) {
    if (order_.empty()) {
      for (int r = 0; r < world_.size(); ++r) order_.push_back(r);
    }
  }
  ~Runner() override { destroy(false); }

  std::string version() const override { return version_text(); }
  bool failure_recoverable() const override { return recoverable_; }
  void clear_failure() override { recoverable_ = false; }

  Result<calibrate::CollectiveMeasurement> collective(const calibrate::CollectiveRequest& r) override {
    const int g = r.group_size;
    recoverable_ = false;
    NTPSIM_RETURN_IF_ERROR(ensure(g));
    const size_t bytes = static_cast<size_t>(r.bytes);
    const size_t count = bytes / sizeof(float);                 // whole-buffer elements
    const size_t part = count / static_cast<size_t>(g);         // per-rank slice
    const bool gather = r.kind == CollectiveKind::kAllGather;
    NTPSIM_RETURN_IF_ERROR(
        agreed_buffers(gather ? part * sizeof(float) : bytes,
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
          case CollectiveKind::kAllToAll:
#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
            rc = ncclAlltoAll(s, d, part, ncclFloat, l.comm,
                              l.stream);  // part elements to each peer
#else
            // NCCL before 2.28 has no ncclAlltoAll: grouped send/recv (as nccl-tests alltoall.cu).
            for (int peer = 0; peer < g && rc == ncclSuccess; ++peer) {
              const size_t chunk = part;
              rc = ncclSend(static_cast<float*>(s) + peer * chunk, chunk, ncclFloat, peer, l.comm,
                            l.stream);
              if (rc == ncclSuccess) {
                rc = ncclRecv(static_cast<float*>(d) + peer * chunk, chunk, ncclFloat, peer, l.comm,
                              l.stream);
              }
            }
#endif
            break;
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
    auto t = timed(launch, r.warmup, r.reps, r.iters, r.graph, calibrate::to_string(r.kind));
    if (!t.ok()) return t.error();
    return calibrate::CollectiveMeasurement{*t};
  }

  Result<calibrate::ReshardMeasurement> reshard(const calibrate::ReshardRequest& r) override {
    const int core = r.tp - r.k;
    recoverable_ = false;
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
    NTPSIM_RETURN_IF_ERROR(agreed_buffers(bytes, max_chunk * static_cast<size_t>(r.k)));
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
    auto t = timed(launch, r.warmup, r.reps, r.iters, r.graph, "reshard");
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
      const auto member = std::find(
          order_.begin(), order_.begin() + std::min<size_t>(static_cast<size_t>(g), order_.size()),
          world_.rank());
      if (member != order_.begin() + std::min<size_t>(static_cast<size_t>(g), order_.size())) {
        locals_.resize(1);
        Local& l = locals_[0];
        l.rank = static_cast<int>(member - order_.begin());
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

  // buffers() on every rank, then agreement: when any rank's allocation failed, every rank
  // returns an error (the others would otherwise wait in the collective), recoverable when every
  // failure was one that leaves the context usable (out of memory for this size).
  Status agreed_buffers(size_t send_bytes, size_t recv_bytes) {
    note_failure(FailureScope::kRun);
    const Status st = buffers(send_bytes, recv_bytes);
    const bool point = !st.ok() && g_last_failure == FailureScope::kPoint;
    if (point) cudaGetLastError();  // clears the non-sticky allocation error
    double failed = st.ok() ? 0.0 : 1.0;
    double fatal = st.ok() || point ? 0.0 : 1.0;
    if (world_.mpi()) {
      failed = world_.sum(failed);
      fatal = world_.sum(fatal);
    }
    if (failed == 0.0) return Status::Ok();
    recoverable_ = fatal == 0.0;
    if (!st.ok()) return st;
    return Error::runtime("another rank could not allocate this size's buffers");
  }

  // Captures `iters` launches on every local stream into one graph per stream (all streams
  // capture together: one group call spans them in a single process, as nccl-tests -G).
  Status capture(const std::function<Status()>& launch, int iters, std::vector<GraphExec>& graphs) {
    graphs.clear();
    graphs.resize(locals_.size());
    size_t begun = 0;
    Status st = Status::Ok();
    for (; begun < locals_.size() && st.ok(); ++begun) {
      Local& l = locals_[begun];
      st = cuda_check(cudaSetDevice(l.device), "cudaSetDevice");
      if (st.ok()) {
        st = cuda_check(cudaStreamBeginCapture(l.stream, cudaStreamCaptureModeGlobal),
                        "cudaStreamBeginCapture");
      }
      if (!st.ok()) break;
    }
    for (int j = 0; j < std::max(1, iters) && st.ok(); ++j) st = launch();
    for (size_t i = 0; i < begun; ++i) {  // every begun capture is ended, also after a failure
      cudaSetDevice(locals_[i].device);
      cudaGraph_t g = nullptr;
      const cudaError_t end = cudaStreamEndCapture(locals_[i].stream, &g);
      graphs[i].graph = g;
      if (st.ok()) st = cuda_check(end, "cudaStreamEndCapture");
      if (st.ok()) {
        st = cuda_check(cudaGraphInstantiate(&graphs[i].exec, g, 0), "cudaGraphInstantiate");
      }
    }
    return st;
  }

  // Waits for every local stream; aborts the communicators on an NCCL error or the deadline.
  // The deadline is the timeout plus the run time expected of the queued work.
  Status wait_all(const char* what, double expected_s) {
    const double limit = timeout_s_ + std::max(0.0, expected_s);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit);
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
        const ncclResult_t queried = ncclCommGetAsyncError(l.comm, &async);
        if (queried != ncclSuccess) {
          destroy(true);
          return nccl_check(queried, "ncclCommGetAsyncError");
        }
        if (async != ncclSuccess && async != ncclInProgress) {
          destroy(true);
          return nccl_check(async, what);
        }
      }
      if (done) return Status::Ok();
      if (interrupted()) {
        destroy(true);
        return Error::runtime(std::string(what) +
                              ": interrupted by a signal (NCCL communicator aborted)");
      }
      if (std::chrono::steady_clock::now() > deadline) {
        destroy(true);
        return Error::runtime(std::string(what) + ": timed out after " + std::to_string(limit) +
                              " s (NCCL communicator aborted)");
      }
      std::this_thread::yield();
    }
  }

  // After `warmup` launches, `reps` samples: a barrier, `iters` back-to-back launches (with
  // `graph`: one replay of their captured graph per local stream) and the wait for every local
  // stream, divided by `iters`; the sample is the mean over the ranks in the group (nccl-tests'
  // default average). Any error aborts the communicators.
  Result<calibrate::TimeStats> timed(const std::function<Status()>& launch, int warmup, int reps,
                                     int iters, bool graph, const char* what) {
    const auto fail = [&](Status s) -> Result<calibrate::TimeStats> {
      destroy(true);
      return s.error();
    };
    for (int i = 0; i < warmup; ++i) {
      if (!locals_.empty()) {
        if (Status s = launch(); !s.ok()) return fail(s);
      }
    }
    if (Status s = wait_all(what, 0.0); !s.ok()) return s.error();
    std::vector<GraphExec> graphs;
    const auto sample = [&]() -> Status {
      if (!graph) {
        for (int j = 0; j < std::max(1, iters); ++j) NTPSIM_RETURN_IF_ERROR(launch());
        return Status::Ok();
      }
      for (size_t i = 0; i < locals_.size(); ++i) {
        NTPSIM_RETURN_IF_ERROR(cuda_check(cudaSetDevice(locals_[i].device), "cudaSetDevice"));
        NTPSIM_RETURN_IF_ERROR(
            cuda_check(cudaGraphLaunch(graphs[i].exec, locals_[i].stream), "cudaGraphLaunch"));
      }
      return Status::Ok();
    };
    if (graph && !locals_.empty()) {
      if (Status s = capture(launch, iters, graphs); !s.ok()) return fail(s);
      if (Status s = sample(); !s.ok()) return fail(s);  // uploads the graphs; not timed
      if (Status s = wait_all(what, 0.0); !s.ok()) return s.error();
    }
    double expected = 0.0;  // a sample's run time, once one has been seen
    std::vector<double> times;
    const int in_group =
        world_.mpi() ? static_cast<int>(world_.sum(locals_.empty() ? 0.0 : 1.0)) : 1;
    for (int i = 0; i < std::max(1, reps); ++i) {
      world_.barrier();
      const auto t0 = std::chrono::steady_clock::now();
      if (!locals_.empty()) {
        if (Status s = sample(); !s.ok()) return fail(s);
      }
      if (Status s = wait_all(what, expected); !s.ok()) return s.error();
      const double mine =
          locals_.empty()
              ? 0.0
              : std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
                    std::max(1, iters);
      const double mean = world_.mpi() ? world_.sum(mine) / std::max(1, in_group) : mine;
      expected = mean * std::max(1, iters) * 4;
      times.push_back(mean);
    }
    return calibrate::summarize(std::move(times));
  }

  const World& world_;
  std::vector<int> devices_;
  double timeout_s_;
  std::vector<int> order_;
  int group_ = 0;
  std::vector<Local> locals_;
  bool recoverable_ = false;  // the last failed point left the communicators usable
};

}  // namespace

std::unique_ptr<NcclRunner> make_nccl_runner(const World& world, const std::vector<int>& devices,
                                             double timeout_s, const std::vector<int>& rank_order) {
  return std::make_unique<Runner>(world, devices, timeout_s, rank_order);
}

std::string nccl_library_version() {
  return version_text();
}

}  // namespace ntpsim::ntpcal

#else  // built without NCCL

namespace ntpsim::ntpcal {

std::unique_ptr<NcclRunner> make_nccl_runner(const World&, const std::vector<int>&, double,
                                             const std::vector<int>&) {
  return nullptr;
}

std::string nccl_library_version() {
  return "not built";
}

}  // namespace ntpsim::ntpcal

#endif
