// Turning a fit (fit.h) into a hardware profile that `ntpsim run/step` read (models/hardware.h).
//
// With a base profile (a spec profile such as h200-sxm) the measured parts replace the base's:
// GEMM tile-model parameters, efficiency and measured table; per-collective latency/bandwidth
// (pooled, and per group size) on scale_up / scale_out; power elasticity (from a power-limit
// sweep) and clock ceiling; TDP and maximum power from the GPU's default and maximum power limit
// (NVML, in the context header). Everything not measured stays as in the base. Without a base,
// only what the raw files determine is written (peaks = fitted sustained rates with efficiency 1,
// HBM and TDP from the context header); a required value that was not measured is an error that
// asks for --base.
// The profile has one GEMM efficiency for both types: with bf16 and fp8 measured, gemm_efficiency
// comes from bf16 and peak_fp8 becomes the fp8 rate / gemm_efficiency (an effective peak, not the
// datasheet's), so both types' times match the measurements.
// The NTP reshard fit (per fabric and T) is written as the `all_to_all` parameters at group size
// T: the analytic step model uses all_to_all at n = T only for the reshard, with the same formula
// the reshard fit uses, so the measured pattern itself sets that cost.
// The written file holds the profile YAML (origin: measured, with the `measured:` section) after a
// comment header naming the raw files, the fits and the model checks; every fit's per-point
// relative errors follow as comments.
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "calibrate/fit.h"
#include "calibrate/model_check.h"
#include "models/hardware.h"

namespace ntpsim::calibrate {

struct ProfileOptions {
  std::string name;                               // profile name; "" = derived from base / GPU
  std::optional<models::HardwareProfile> base;    // spec profile to merge onto
  bool gemm_table = true;                         // write the measured GEMM table
};

// Applies the fit. Errors (bad input): a fabric other than scale_up/scale_out, a value the
// profile needs that is neither measured nor in the base.
Result<models::HardwareProfile> make_profile(const FitResult& fit, const ProfileOptions& options);

// The profile file text: comment header (raw files, fits, model checks), YAML, per-point error
// comments.
std::string profile_text(const models::HardwareProfile& profile, const FitResult& fit,
                         const std::vector<ModelCheck>& checks);

// Per-point relative errors of every fit as CSV (fit,what,measured_s,predicted_s,rel_error).
std::string fit_report_csv(const FitResult& fit);

}  // namespace ntpsim::calibrate
