#include "calibrate/recorded_backend.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace ntpsim::calibrate {
namespace {

long long milliwatts(double w) { return w > 0 ? std::llround(w * 1e3) : 0; }

}  // namespace

RecordedBackend::RecordedBackend(const std::vector<RawData>& files, std::string fabric)
    : fabric_(std::move(fabric)) {
  for (const RawData& f : files) {
    files_ += (files_.empty() ? "" : ", ") + f.file;
    if (limit_w_ == 0.0) {
      const double ctx = std::atof(f.context.get("power_limit_w").c_str());
      if (ctx > 0) limit_w_ = ctx;
    }
    for (const GemmRow& g : f.gemm) {
      const GemmMeasurement m{g.time, g.power};
      const auto d = static_cast<int>(g.request.dtype);
      const auto l = static_cast<int>(g.request.layout);
      gemm_[{d, l, g.request.m, g.request.n, g.request.k, milliwatts(g.power_limit_w)}] = m;
      gemm_.try_emplace({d, l, g.request.m, g.request.n, g.request.k, 0}, m);
      if (limit_w_ == 0.0) limit_w_ = g.power_limit_w;  // the limit the rows were measured at
    }
    for (const CollectiveRow& c : f.collectives) {
      if (c.fabric != fabric_) continue;
      coll_[{static_cast<int>(c.request.kind), c.request.group_size, c.request.bytes}] =
          CollectiveMeasurement{c.time};
      max_group_ = std::max(max_group_, c.request.group_size);
    }
    for (const ReshardRow& r : f.reshards) {
      if (r.fabric != fabric_) continue;
      reshard_[{r.request.tp, r.request.k, r.request.bytes_per_rank}] = ReshardMeasurement{r.time};
      max_group_ = std::max(max_group_, r.request.tp);
    }
  }
}

Error RecordedBackend::missing(const std::string& what) const {
  return Error::bad_input(fmt::format("no recorded measurement for {} in {}", what,
                                      files_.empty() ? "(no files)" : files_));
}

Result<GemmMeasurement> RecordedBackend::gemm(const GemmRequest& r) {
  const auto d = static_cast<int>(r.dtype);
  const auto l = static_cast<int>(r.layout);
  auto it = gemm_.find({d, l, r.m, r.n, r.k, milliwatts(limit_w_)});
  if (it == gemm_.end()) it = gemm_.find({d, l, r.m, r.n, r.k, 0});
  if (it == gemm_.end()) {
    return missing(fmt::format("gemm {} {} {}x{}x{} at {} W", to_string(r.dtype),
                               to_string(r.layout), r.m, r.n, r.k, limit_w_));
  }
  return it->second;
}

Result<CollectiveMeasurement> RecordedBackend::collective(const CollectiveRequest& r) {
  const auto it = coll_.find({static_cast<int>(r.kind), r.group_size, r.bytes});
  if (it == coll_.end()) {
    return missing(fmt::format("{} {} n={} bytes={}", fabric_, to_string(r.kind), r.group_size,
                               r.bytes));
  }
  return it->second;
}

Result<ReshardMeasurement> RecordedBackend::reshard(const ReshardRequest& r) {
  const auto it = reshard_.find({r.tp, r.k, r.bytes_per_rank});
  if (it == reshard_.end()) {
    return missing(fmt::format("{} reshard T={} k={} bytes={}", fabric_, r.tp, r.k,
                               r.bytes_per_rank));
  }
  return it->second;
}

Result<double> RecordedBackend::set_power_limit_w(double watts) {
  limit_w_ = watts;
  return limit_w_;
}

}  // namespace ntpsim::calibrate

