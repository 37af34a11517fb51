// ntpcal's subcommand options, parsed and checked into a plan before any GPU is touched.
//
// Plain C++ (no CUDA), so the option parsing and its refusal messages are tested without a GPU
// (tests/calibrate/ntpcal_plan_test.cpp). Errors are bad input (exit 2).
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/driver.h"
#include "calibrate/ntpcal/args.h"
#include "calibrate/raw_csv.h"
#include "calibrate/shapes.h"

namespace ntpsim::ntpcal {

// What the GPU backend needs besides the requests.
struct CudaOptions {
  // Local CUDA devices this process drives. With MPI: exactly one. Without: the ranks of the
  // collectives (device i is rank i); GEMM and power use the first.
  std::vector<int> devices;
  double timeout_s = 120.0;
  uint64_t seed = 1;
  size_t workspace_bytes = size_t{32} << 20;  // cuBLASLt workspace
  // World ranks in the order collective groups take them (group of n = the first n); empty:
  // 0, 1, 2, ... (--fabric scale_out orders them one per host, round robin).
  std::vector<int> rank_order;
};

// Everything a subcommand will do. Defaults that need the ranks (group sizes, T) stay empty / 0
// until the backend exists.
struct Plan {
  calibrate::RawKind kind = calibrate::RawKind::kGemm;
  std::vector<calibrate::GemmRequest> shapes;  // gemm, power
  std::vector<double> limits_w;                // power --set-power-limits
  calibrate::CollectivePlan collectives;
  calibrate::ReshardPlan reshard;
  std::string fabric = "auto";
  int gpus = 0;        // collectives/reshard --gpus (0 = all)
  bool graph = false;  // --graph: time with captured CUDA graphs
  CudaOptions cuda;    // devices filled for gemm/power in single-process mode
};

// Declares the options of subcommand `sub` (gemm, power, collectives, reshard, info).
void declare(Args& a, const std::string& sub);

// The plan the parsed options ask for.
Result<Plan> make_plan(const Args& a, const std::string& sub);

// The context lines that say how a plan times (`timing`), recorded in every raw file.
std::string timing_context(const Plan& p);

}  // namespace ntpsim::ntpcal
