// Who this ntpcal process is among the processes measuring together (as nccl-tests does).
//
// Built with MPI and started by a launcher (mpirun, srun: detected from its environment), each
// process drives one GPU: local rank = rank among the processes of its host, device = local rank.
// Otherwise one process drives every local GPU it is asked to use. The host-side collectives the
// harness needs (barrier, max, broadcast of the NCCL id, gather of host names) are here.
// Thread safety: main thread only.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ntpsim::ntpcal {

class World {
 public:
  // Initialises MPI when built with it and a launcher environment is present.
  World(int* argc, char*** argv);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  bool mpi() const { return mpi_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }

  void barrier() const;
  double max(double v) const;
  double sum(double v) const;  // over every rank
  int min(int v) const;
  // Copies rank 0's bytes to every rank.
  void broadcast(void* data, size_t bytes) const;
  // Every rank's host name, indexed by rank.
  std::vector<std::string> hostnames() const;
  // Ends every process (MPI_Abort) after a failure on one rank; no-op without MPI.
  void abort(int code) const;

 private:
  bool mpi_ = false;
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  void* local_comm_ = nullptr;  // MPI_Comm of this host's processes (when mpi_)
};

std::string this_hostname();

}  // namespace ntpsim::ntpcal
