#include "calibrate/ntpcal/world.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

#ifdef NTPCAL_HAVE_MPI
#include <mpi.h>
#endif

namespace ntpsim::ntpcal {

std::string this_hostname() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

namespace {

// True when a process launcher (Open MPI's mpirun, PMIx, Slurm's srun with PMI) started us.
[[maybe_unused]] bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK",
                        "MPI_LOCALNRANKS", "SLURM_STEP_NUM_TASKS"}) {
    if (std::getenv(v) != nullptr) return true;
  }
  return false;
}

}  // namespace

World::World(int* argc, char*** argv) {
#ifdef NTPCAL_HAVE_MPI
  if (!launched_by_mpi()) return;
  MPI_Init(argc, argv);
  mpi_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  auto* local = new MPI_Comm;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, local);
  MPI_Comm_rank(*local, &local_rank_);
  MPI_Comm_size(*local, &local_size_);
  local_comm_ = local;
#else
  (void)argc;
  (void)argv;
#endif
}

World::~World() {
#ifdef NTPCAL_HAVE_MPI
  if (mpi_) {
    auto* local = static_cast<MPI_Comm*>(local_comm_);
    MPI_Comm_free(local);
    delete local;
    MPI_Finalize();
  }
#endif
}

void World::barrier() const {
#ifdef NTPCAL_HAVE_MPI
  if (mpi_) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

double World::max(double v) const {
#ifdef NTPCAL_HAVE_MPI
  if (mpi_) {
    double out = v;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return out;
  }
#endif
  return v;
}

double World::sum(double v) const {
#ifdef NTPCAL_HAVE_MPI
  if (mpi_) {
    double out = v;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return out;
  }
#endif
  return v;
}

int World::min(int v) const {
#ifdef NTPCAL_HAVE_MPI
  if (mpi_) {
    int out = v;
    MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return out;
  }
#endif
  return v;
}

void World::broadcast(void* data, size_t bytes) const {
#ifdef NTPCAL_HAVE_MPI
  if (mpi_) MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD);
#else
  (void)data;
  (void)bytes;
#endif
}

std::vector<std::string> World::hostnames() const {
  std::vector<std::string> out;
  const std::string me = this_hostname();
#ifdef NTPCAL_HAVE_MPI
  if (mpi_) {
    constexpr int kLen = 256;
    char mine[kLen] = {0};
    std::strncpy(mine, me.c_str(), kLen - 1);
    std::vector<char> all(static_cast<size_t>(kLen) * static_cast<size_t>(size_));
    MPI_Allgather(mine, kLen, MPI_CHAR, all.data(), kLen, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < size_; ++r) out.emplace_back(all.data() + static_cast<size_t>(r) * kLen);
    return out;
  }
#endif
  out.push_back(me);
  return out;
}

void World::abort(int code) const {
#ifdef NTPCAL_HAVE_MPI
  if (mpi_ && size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
#else
  (void)code;
#endif
}

}  // namespace ntpsim::ntpcal
