// Importing nccl-tests logs (github.com/NVIDIA/nccl-tests: all_reduce_perf, all_gather_perf,
// reduce_scatter_perf, alltoall_perf, sendrecv_perf output) as collective measurements, so that
// `ntpsim fit` fits the same collective parameters from them as from `ntpcal collectives` files.
//
// The documented log layout that is read:
//   # nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20
//   ... # Collective test starting: all_reduce_perf          (newer nccl-tests; optional) # Using
//   devices #  Rank  0 Group  0 Pid  1234 on     node01 device  0 [0x1b] NVIDIA H200
//   ...                                                   (one line per rank; "Group" optional)
//   #                                    out-of-place                       in-place
//   #       size         count      type   redop    root     time   algbw   busbw #wrong     time
//   ... #        (B)    (elements)                               (us)  (GB/s)  (GB/s) (us) ...
//              8             2     float     sum      -1    10.27    0.00    0.00      0    10.01
//              ...
//   # Avg bus bandwidth    : 12.34
// Columns are located by the header line's names, so versions without redop/root columns read
// too. `size` is the whole buffer as nccl-tests counts it (all-gather's output, reduce-scatter's
// input, all-to-all's per-rank buffer) and `time` is the mean of the timed iterations in µs.
//
// The collective comes from --nccl-collective, else the "Collective test starting" line, else
// the file name (all_reduce/allreduce, all_gather/allgather, reduce_scatter/reducescatter,
// alltoall/all_to_all, sendrecv/send_recv). The group size is the number of ranks of group 0 in
// the "# Using devices" list (or --nccl-ranks); the node count the number of distinct hosts there
// (or --nccl-nodes). The fabric is scale_up on one node and scale_out across nodes unless given
// (a multi-node NVLink domain such as an NVL72 rack is scale_up: pass it).
// Every row is checked against nccl-tests' own conventions: algbw = size / time and busbw =
// algbw × bus_factor(collective, ranks) (within the log's 2-decimal rounding) — a mismatch means
// the collective or the rank count is not what the log measured, and is an error. Rows with
// #wrong > 0 are errors (the run did not validate); size-0 rows are skipped.
// A log carrying a "# synthetic: ..." line is synthetic test data and is labelled so.
// Errors name file:line:col. Part of ntpsim_calibrate (uses fmt). Thread safety: pure functions.
#pragma once

#include <string>

#include "calibrate/raw_reader.h"
#include "models/base/status.h"

namespace ntpsim::calibrate {

struct NcclTestsOptions {
  std::string collective;  // "" = detect; else all_reduce, all_gather, ... (ntpsim names)
  int ranks = 0;           // ranks in the communicator; 0 = from "# Using devices"
  int nodes = 0;           // nodes the ranks span; 0 = from "# Using devices"
  std::string fabric;      // "" = scale_up on one node, scale_out across nodes
  bool in_place = false;   // read the in-place columns instead of the out-of-place ones
};

// True when `text` is not an ntpcal raw file but has an nccl-tests table or device header.
bool looks_like_nccl_tests(const std::string& text);

// Parses one nccl-tests log into collective rows (kind collective). `name` is used in messages.
Result<RawData> parse_nccl_tests(const std::string& text, const std::string& name,
                                 const NcclTestsOptions& options = {});

// Reads a measurement file of either kind: an ntpcal raw file or an nccl-tests log.
Result<RawData> read_measurement_file(const std::string& path,
                                      const NcclTestsOptions& options = {});

}  // namespace ntpsim::calibrate
