// MPI for `ntpsim run` and `ntpsim sweep` (bench/README.md): when the program was
// started by mpirun or srun, replications are split across the ranks (sim::Distribution) and
// every rank ends with all results; only rank 0 prints and writes files, so the output is
// byte-identical to a single-process run.
// Ownership: MpiWorld owns the MPI session: MPI_Init on join, MPI_Finalize on destruction; at most
// one per process. Thread safety: call from the main thread only (MPI_THREAD_FUNNELED); the
// exchange runs on the thread that calls run_monte_carlo.
#pragma once

#include <memory>
#include <string>

#include "sim/montecarlo/montecarlo.h"

namespace ntpsim::cli {

class MpiWorld {
 public:
  // Null when ntpsim was built without MPI or not launched by an MPI launcher (no
  // OMPI_COMM_WORLD_SIZE / PMIX_RANK / PMI_SIZE in the environment), or with a single rank.
  static std::unique_ptr<MpiWorld> join();
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  // The split and the all-gather of replication results for RunOptions::distribution.
  sim::Distribution distribution() const;
  // Rank 0's `code` and `text` on every rank (a collective: every rank calls it once).
  void broadcast(int& code, std::string& text) const;
  // Ends every rank with exit code `code` (MPI_Abort): for an error one rank meets alone (rank 0
  // failing to write a progress record) that would otherwise leave the others waiting.
  [[noreturn]] void abort(int code) const;

 private:
  MpiWorld(int rank, int ranks) : rank_(rank), ranks_(ranks) {}
  int rank_ = 0;
  int ranks_ = 1;
};

// True when this process prints and writes: no world, or rank 0.
inline bool is_root(const std::unique_ptr<MpiWorld>& world) { return !world || world->rank() == 0; }

}  // namespace ntpsim::cli
