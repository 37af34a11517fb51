#include "tools/ntpsim/mpi_world.h"

#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "models/base/check.h"

#if NTPSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace ntpsim::cli {

#if NTPSIM_HAVE_MPI

namespace {

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

// Rank r's block of the batch [begin, end), as in sim::Distribution.
int block_begin(int begin, int end, int r, int ranks) {
  return begin + static_cast<int>(int64_t{end - begin} * r / ranks);
}

}  // namespace

std::unique_ptr<MpiWorld> MpiWorld::join() {
  if (!launched_by_mpi()) return nullptr;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::unique_ptr<MpiWorld> world(new MpiWorld(rank, ranks));
  if (ranks <= 1) return nullptr;  // the destructor finalizes
  return world;
}

MpiWorld::~MpiWorld() { MPI_Finalize(); }

sim::Distribution MpiWorld::distribution() const {
  sim::Distribution d;
  d.rank = rank_;
  d.ranks = ranks_;
  const int ranks = ranks_;
  d.exchange = [ranks](int begin, int end, bool ok, std::vector<sim::StrategyRun>& runs,
                       uint64_t& events) {
    int failed = ok ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (failed != 0) return false;
    unsigned long long total = events;
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    events = total;
    // One buffer in rank order; rank r's part holds its block for every strategy.
    const int per_rep = static_cast<int>(sim::kMetricCount);
    const int nstrat = static_cast<int>(runs.size());
    std::vector<int> counts(static_cast<size_t>(ranks));
    std::vector<int> displs(static_cast<size_t>(ranks));
    int offset = 0;
    for (int r = 0; r < ranks; ++r) {
      const int reps = block_begin(begin, end, r + 1, ranks) - block_begin(begin, end, r, ranks);
      counts[static_cast<size_t>(r)] = reps * nstrat * per_rep;
      displs[static_cast<size_t>(r)] = offset;
      offset += counts[static_cast<size_t>(r)];
    }
    std::vector<double> buf(static_cast<size_t>(offset));
    auto copy = [&](int r, bool pack) {
      size_t pos = static_cast<size_t>(displs[static_cast<size_t>(r)]);
      for (int k = 0; k < nstrat; ++k) {
        auto& reps = runs[static_cast<size_t>(k)].replications;
        NTPSIM_CHECK(static_cast<int>(reps.size()) >= end);
        for (int i = block_begin(begin, end, r, ranks); i < block_begin(begin, end, r + 1, ranks);
             ++i) {
          auto& m = reps[static_cast<size_t>(i)];
          for (int j = 0; j < per_rep; ++j, ++pos) {
            if (pack) {
              buf[pos] = m[static_cast<size_t>(j)];
            } else {
              m[static_cast<size_t>(j)] = buf[pos];
            }
          }
        }
      }
    };
    int me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    copy(me, true);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf.data(), counts.data(), displs.data(),
                   MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 0; r < ranks; ++r) {
      if (r != me) copy(r, false);
    }
    return true;
  };
  return d;
}

void MpiWorld::broadcast(int& code, std::string& text) const {
  unsigned long long size = text.size();
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  text.resize(static_cast<size_t>(size));
  // In chunks: MPI counts are ints.
  constexpr size_t kChunk = size_t{1} << 30;
  for (size_t off = 0; off < text.size(); off += kChunk) {
    const size_t n = std::min(kChunk, text.size() - off);
    MPI_Bcast(text.data() + off, static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD);
  }
}

void MpiWorld::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

#else  // built without MPI: always a single process

std::unique_ptr<MpiWorld> MpiWorld::join() { return nullptr; }
MpiWorld::~MpiWorld() = default;
sim::Distribution MpiWorld::distribution() const { return sim::Distribution{}; }
void MpiWorld::broadcast(int& /*code*/, std::string& /*text*/) const {}
void MpiWorld::abort(int code) const { std::_Exit(code); }

#endif

}  // namespace ntpsim::cli
