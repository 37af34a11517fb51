// Checks a written profile against the measurements it was fitted to, through the cost models
// the simulator uses (models/gemm_model.h, models/collective_model.h, the analytic model's
// reshard formula), so `ntpsim fit` reports how well `ntpsim run/step` will reproduce the
// measured times, not only how well the fit's own regression did.
//   gemm.<dtype> (tile model)  GemmModel on the profile without its table
//   gemm.<dtype> (table)       GemmModel with the measured table (as written)
//   <fabric>.<collective>      collective_time_s at each measured group size and size
//   <fabric>.reshard           2 (alpha_a2a k + busiest / bus_bw_a2a) at n = T, all_to_all params
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "calibrate/fit.h"
#include "calibrate/raw_reader.h"
#include "models/hardware.h"

namespace ntpsim::calibrate {

struct ModelCheck {
  std::string name;
  FitQuality quality;
};

std::vector<ModelCheck> check_profile(const models::HardwareProfile& h,
                                      const std::vector<RawData>& files);

// One line per check: "gemm.bf16 (tile model): 32 points, max |rel err| 1.2%, mean 0.4%".
std::string describe(const std::vector<ModelCheck>& checks);

}  // namespace ntpsim::calibrate
