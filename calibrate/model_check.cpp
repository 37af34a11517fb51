#include "calibrate/model_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "models/collective_model.h"
#include "models/gemm_model.h"

namespace ntpsim::calibrate {
namespace {

models::Collective to_model(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::kAllReduce: return models::Collective::kAllReduce;
    case CollectiveKind::kAllGather: return models::Collective::kAllGather;
    case CollectiveKind::kReduceScatter: return models::Collective::kReduceScatter;
    case CollectiveKind::kAllToAll: return models::Collective::kAllToAll;
    case CollectiveKind::kSendRecv: return models::Collective::kSendRecv;
  }
  return models::Collective::kAllReduce;
}

const models::Fabric* fabric_of(const models::HardwareProfile& h, const std::string& name) {
  if (name == "scale_up") return &h.scale_up;
  if (name == "scale_out") return &h.scale_out;
  return nullptr;
}

struct Series {
  std::vector<double> measured, predicted;
  std::vector<std::string> what;
  void add(double m, double p, std::string w) {
    measured.push_back(m);
    predicted.push_back(p);
    what.push_back(std::move(w));
  }
};

}  // namespace

std::vector<ModelCheck> check_profile(const models::HardwareProfile& h,
                                      const std::vector<RawData>& files) {
  std::map<std::string, Series> series;  // ordered by name for stable output
  models::HardwareProfile no_table = h;
  no_table.gemm.table.clear();
  for (const RawData& f : files) {
    if (f.kind == RawKind::kGemm) {
      for (const GemmRow& g : f.gemm) {
        const bool fp8 = is_fp8(g.request.dtype);
        if (h.peak_flops(fp8) <= 0 || h.hbm_bw_Bps <= 0) continue;
        const auto m = static_cast<double>(g.request.m), n = static_cast<double>(g.request.n),
                   k = static_cast<double>(g.request.k);
        const std::string what = fmt::format("{}:{} {}x{}x{}", f.file, g.line, g.request.m,
                                             g.request.n, g.request.k);
        const std::string base = fmt::format("gemm.{}", to_string(g.request.dtype));
        series[base + " (tile model)"].add(g.time.median_s,
                                           models::GemmModel(no_table, fp8).time_s(m, n, k), what);
        // The table holds one dtype's throughput (the profile's main GEMM type).
        if (!h.gemm.table.empty() && !fp8) {
          series[base + " (table)"].add(g.time.median_s, models::GemmModel(h, fp8).time_s(m, n, k), what);
        }
      }
    }
    for (const CollectiveRow& c : f.collectives) {
      const models::Fabric* fab = fabric_of(h, c.fabric);
      if (fab == nullptr) continue;
      series[fmt::format("{}.{}", c.fabric, to_string(c.request.kind))].add(
          c.time.median_s,
          models::collective_time_s(*fab, to_model(c.request.kind), c.request.group_size,
                                    static_cast<double>(c.request.bytes)),
          fmt::format("{}:{} n={} bytes={}", f.file, c.line, c.request.group_size, c.request.bytes));
    }
    for (const ReshardRow& r : f.reshards) {
      const models::Fabric* fab = fabric_of(h, r.fabric);
      if (fab == nullptr) continue;
      const models::CollectiveFit a2a =
          models::collective_params(*fab, models::Collective::kAllToAll, r.request.tp);
      if (a2a.bus_bw_Bps <= 0) continue;
      const double predicted = 2.0 * (a2a.alpha_s * r.request.k + r.request.busiest_bytes() / a2a.bus_bw_Bps);
      series[r.fabric + ".reshard (all_to_all model)"].add(
          r.time.median_s, predicted,
          fmt::format("{}:{} T={} k={} bytes={}", f.file, r.line, r.request.tp, r.request.k,
                      r.request.bytes_per_rank));
    }
  }
  std::vector<ModelCheck> out;
  for (const auto& [name, s] : series) {
    out.push_back({name, quality_of(s.measured, s.predicted, s.what)});
  }
  return out;
}

std::string describe(const std::vector<ModelCheck>& checks) {
  std::string s;
  for (const ModelCheck& c : checks) {
    s += fmt::format("{}: {} points, max |rel err| {:.1f}%, mean {:.1f}%\n", c.name,
                     c.quality.points, 100 * c.quality.max_abs_rel_error,
                     100 * c.quality.mean_abs_rel_error);
  }
  return s;
}

}  // namespace ntpsim::calibrate
