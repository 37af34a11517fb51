// Turning a fit (fit.h) into a hardware profile that `ntpsim run/step` read (models/hardware.h).
//
// With a base profile (a spec profile such as h200-sxm) the measured parts replace the base's:
// GEMM tile-model parameters, efficiency and measured table; per-collective latency/bandwidth
// (pooled, and per group size) on scale_up / scale_out; power elasticity and clock ceiling when a
// power-limit sweep was fitted. Everything not measured stays as in the base. Without a base,
// only what the raw files determine is written (peaks = fitted sustained rates with efficiency 1,
// HBM and TDP from the context header); a required value that was not measured is an error that
// asks for --base.
// The written file holds the profile YAML (origin: measured, with the `measured:` section) after a
// comment header naming the raw files and, as comments, every fit's per-point relative errors and
// the reshard fit (which the profile schema has no key for).
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "calibrate/fit.h"
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

// The profile file text: comment header, YAML, per-point error comments.
std::string profile_text(const models::HardwareProfile& profile, const FitResult& fit);

// Per-point relative errors of every fit as CSV (fit,what,measured_s,predicted_s,rel_error).
std::string fit_report_csv(const FitResult& fit);

}  // namespace ntpsim::calibrate
