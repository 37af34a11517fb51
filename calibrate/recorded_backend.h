// A backend that replays raw measurement files (raw_reader.h) instead of touching a GPU.
//
// Each request is answered with the recorded row of the same key: GEMM (dtype, layout, m, n, k,
// power limit when the file recorded one), collective (fabric, kind, group size, bytes), reshard
// (fabric, T, k, bytes per rank). A request with no recorded row is an error naming it and the
// files searched, so a replayed plan must be a subset of what was measured. Power-limit changes
// only select which recorded rows answer. With it the measurement loops, the fitter and the
// profile -> step-time path are tested end to end on machines without GPUs.
// Thread safety: one user at a time.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "calibrate/backend.h"
#include "calibrate/raw_reader.h"

namespace ntpsim::calibrate {

class RecordedBackend final : public Backend {
 public:
  // `fabric` selects which fabric's collective and reshard rows answer.
  explicit RecordedBackend(const std::vector<RawData>& files, std::string fabric = "scale_up");

  std::string name() const override { return "recorded"; }
  int max_group_size() const override { return max_group_; }
  // Every shape is "supported"; a shape that was not recorded is an error from gemm().
  std::string gemm_unsupported(const GemmRequest&) const override { return {}; }
  double power_limit_w() const override { return limit_w_; }

  Result<GemmMeasurement> gemm(const GemmRequest& r) override;
  Result<CollectiveMeasurement> collective(const CollectiveRequest& r) override;
  Result<ReshardMeasurement> reshard(const ReshardRequest& r) override;
  Result<double> set_power_limit_w(double watts) override;

 private:
  Error missing(const std::string& what) const;

  // dtype, layout, m, n, k, limit in mW (0 = any)
  using GemmKey = std::tuple<int, int, int64_t, int64_t, int64_t, long long>;
  std::map<GemmKey, GemmMeasurement> gemm_;
  std::map<std::tuple<int, int, int64_t>, CollectiveMeasurement> coll_;
  std::map<std::tuple<int, int, int64_t>, ReshardMeasurement> reshard_;
  std::string fabric_;
  std::string files_;
  int max_group_ = 1;
  double limit_w_ = 0.0;
};

}  // namespace ntpsim::calibrate
