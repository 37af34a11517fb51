// NCCL collectives and the NTP reshard pattern for ntpcal (used by CudaBackend).
//
// One communicator set (the group size last asked for) is kept at a time: ranks 0..n-1, over MPI
// (each process one GPU; the NCCL id broadcast from rank 0) or, in a single process, one
// communicator per local GPU (ncclCommInitAll). Every rank of the World calls each method in the
// same order, also ranks outside the group (they take part in the barrier and the max).
// Message sizes follow nccl-tests: `bytes` is the whole buffer (all-gather's output,
// reduce-scatter's input, all-to-all's total), float elements.
// A wait past `timeout_s` or an asynchronous NCCL error aborts the communicators and returns a
// runtime error. With a request's `graph`, each sample's `iters` launches are captured once per
// local stream into a CUDA graph and replayed (nccl-tests -G). Thread safety: one thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "calibrate/backend.h"
#include "calibrate/ntpcal/world.h"

namespace ntpsim::ntpcal {

class NcclRunner {
 public:
  virtual ~NcclRunner() = default;
  virtual std::string version() const = 0;
  virtual Result<calibrate::CollectiveMeasurement> collective(const calibrate::CollectiveRequest& r) = 0;
  virtual Result<calibrate::ReshardMeasurement> reshard(const calibrate::ReshardRequest& r) = 0;
  // After a failed collective or reshard: true when only that point failed (every rank agreed
  // that one rank's buffers did not fit) and the communicators are fit for the next point.
  virtual bool failure_recoverable() const = 0;
  virtual void clear_failure() = 0;
};

// nullptr when ntpcal was built without NCCL.
// `rank_order`: the world ranks in the order groups take them (empty: 0, 1, 2, ...).
std::unique_ptr<NcclRunner> make_nccl_runner(const World& world, const std::vector<int>& devices,
                                             double timeout_s, const std::vector<int>& rank_order);

// The NCCL library's version ("2.28.3"), or "not built" without NCCL. Needs no GPU.
std::string nccl_library_version();

}  // namespace ntpsim::ntpcal
