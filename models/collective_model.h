// Time of one NCCL-style collective on one fabric (DESIGN.md §4, collective model).
//
// Alpha-beta with the nccl-tests bus-bandwidth definitions (NVIDIA/nccl-tests
// doc/PERFORMANCE.md): for a group of n ranks and a buffer of `bytes` (the nccl-tests "size":
// the whole vector for all-reduce, the gathered output for all-gather, the input for
// reduce-scatter, the per-rank send buffer for all-to-all, the message for send/recv and
// broadcast),
//   time = alpha · steps(n) + bytes · factor(n) / bus_bw
// with factor 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all,
// and 1 for send/recv and broadcast; steps(n) = 2(n-1) for ring all-reduce, n-1 for the other
// ring collectives, 1 for send/recv. Any group size n >= 1 works (n = 1 costs nothing).
// Parameters come from the fabric: a per-collective entry, interpolated between measured group
// sizes (linear in log n, clamped at the ends), else the fabric's alpha and
// bw_per_gpu × efficiency. Immutable; thread-safe.
#pragma once

#include <string>

#include "models/hardware.h"

namespace ntpsim::models {

enum class Collective { kAllReduce, kAllGather, kReduceScatter, kAllToAll, kSendRecv, kBroadcast };

// "all_reduce", ... (the profile keys).
const char* to_string(Collective c);
// nccl-tests bus-bandwidth factor and ring step count for n ranks.
double bus_factor(Collective c, int n);
double ring_steps(Collective c, int n);

// Alpha and bus bandwidth the fabric gives collective `c` at group size n.
CollectiveFit collective_params(const Fabric& f, Collective c, int n);

// Seconds for collective `c` over `n` ranks of fabric `f` moving `bytes` (nccl-tests size).
// REQUIRES: n >= 1, bytes >= 0, the fabric has a positive bandwidth.
double collective_time_s(const Fabric& f, Collective c, int n, double bytes);

}  // namespace ntpsim::models
