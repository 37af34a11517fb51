#include "models/collective_model.h"

#include <cmath>
#include <iterator>

#include "models/base/check.h"

namespace ntpsim::models {

const char* to_string(Collective c) {
  switch (c) {
    case Collective::kAllReduce:
      return "all_reduce";
    case Collective::kAllGather:
      return "all_gather";
    case Collective::kReduceScatter:
      return "reduce_scatter";
    case Collective::kAllToAll:
      return "all_to_all";
    case Collective::kSendRecv:
      return "send_recv";
    case Collective::kBroadcast:
      return "broadcast";
  }
  return "?";
}

double bus_factor(Collective c, int n) {
  NTPSIM_CHECK(n >= 1);
  const double frac = static_cast<double>(n - 1) / n;
  switch (c) {
    case Collective::kAllReduce:
      return 2.0 * frac;
    case Collective::kAllGather:
    case Collective::kReduceScatter:
    case Collective::kAllToAll:
      return frac;
    case Collective::kSendRecv:
    case Collective::kBroadcast:
      return 1.0;
  }
  return 1.0;
}

double ring_steps(Collective c, int n) {
  NTPSIM_CHECK(n >= 1);
  switch (c) {
    case Collective::kAllReduce:
      return 2.0 * (n - 1);
    case Collective::kAllGather:
    case Collective::kReduceScatter:
    case Collective::kAllToAll:
    case Collective::kBroadcast:
      return n - 1;
    case Collective::kSendRecv:
      return 1.0;
  }
  return 1.0;
}

CollectiveFit collective_params(const Fabric& f, Collective c, int n) {
  CollectiveFit fit{f.alpha_s, f.bw_per_gpu_Bps * f.efficiency};
  const auto it = f.collectives.find(to_string(c));
  if (it == f.collectives.end()) return fit;
  const CollectiveParams& p = it->second;
  fit.alpha_s = p.alpha_s;
  if (p.bus_bw_Bps > 0) fit.bus_bw_Bps = p.bus_bw_Bps;
  const auto& sizes = p.by_group_size;
  if (sizes.empty()) return fit;
  auto hi = sizes.lower_bound(n);
  if (hi == sizes.end()) return std::prev(hi)->second;  // above the largest measured size
  if (hi->first == n || hi == sizes.begin()) return hi->second;
  const auto lo = std::prev(hi);
  const double x =
      (std::log(n) - std::log(lo->first)) / (std::log(hi->first) - std::log(lo->first));
  return CollectiveFit{lo->second.alpha_s + x * (hi->second.alpha_s - lo->second.alpha_s),
                       lo->second.bus_bw_Bps + x * (hi->second.bus_bw_Bps - lo->second.bus_bw_Bps)};
}

double collective_time_s(const Fabric& f, Collective c, int n, double bytes) {
  NTPSIM_CHECK(n >= 1 && bytes >= 0);
  if (n == 1) return 0.0;
  const CollectiveFit p = collective_params(f, c, n);
  NTPSIM_CHECK(p.bus_bw_Bps > 0);
  return p.alpha_s * ring_steps(c, n) + bytes * bus_factor(c, n) / p.bus_bw_Bps;
}

}  // namespace ntpsim::models
