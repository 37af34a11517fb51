// Published Megatron-LM step times and the analytic model's predictions of them, shared by the
// model tests and `ntpsim validate` so both report the same points.
//
// Source: V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
// MLSys 2023, arXiv 2205.05198, on Selene (DGX A100 80GB): Table 4 (one 22B layer, TP 8,
// micro-batch 4, forward + backward), Table 5 (iteration times; configurations from Table 3) and
// the 530B run with 8-way data parallelism (gradient all-reduce not overlapped). Every point
// uses the spec-derived a100-sxm-80gb profile and the software of that run (unfused attention,
// no distributed optimizer, no DP overlap); nothing is fitted per configuration.
// Pure function; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "models/hardware.h"

namespace ntpsim::models {

struct StepValidationPoint {
  std::string name;    // e.g. "Table 5: 175B, SP + selective"
  std::string layout;  // e.g. "TP8 PP8 v3, batch 64"
  double measured_s = 0;
  double predicted_s = 0;
  double error() const { return predicted_s / measured_s - 1.0; }
};

// Every published point, in the paper's order. REQUIRES: an A100 80GB profile.
std::vector<StepValidationPoint> megatron_step_validation(const HardwareProfile& a100);

}  // namespace ntpsim::models
