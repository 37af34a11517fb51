// The fastest Megatron layout (TP x PP x DP, at a given CP) under the analytic step model: every
// layout the scenario rules allow (TP inside one scale-up domain, the TP groups fitting in the
// cluster's domains, at least one micro-batch per replica) and Megatron-LM's even splits require
// (TP divides the heads and the FFN width, PP divides the layers; virtual stages kept where PP x v
// divides the layers), whose busiest GPU fits in memory at its nominal TP degree. Either of
// exactly a given number of GPUs, ranked by healthy tokens/s per GPU (to tell a user how far a
// chosen layout is from the best one), or filling a number of domains with as many replicas as
// they hold, ranked by the job's healthy tokens/s (the planner's `layout: auto`).
// Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "models/analytic_step_model.h"
#include "models/hardware.h"
#include "models/workload.h"

namespace ntpsim::models {

struct LayoutSearch {
  int64_t gpus = 0;        // TP x CP x PP x DP of every candidate, exactly (with exact_gpus)
  int domain_gpus = 0;     // GPUs of one scale-up domain: the largest TP
  int64_t domains = 0;     // domains the TP groups must fit in (0: no limit)
  int virtual_stages = 1;  // interleaved chunks per stage, kept where PP x this divides the layers
  // false: ignore `gpus`; DP is the most replicas the domains hold (at most the global batch
  // over the micro-batch), and the job's tokens/s ranks. REQUIRES then domains >= 1.
  bool exact_gpus = true;
  // Context-parallel degree of every candidate, kept as given (the search varies TP, PP, DP):
  // CP is chosen for the sequence length, not for speed at a fixed one.
  int cp = 1;
};

struct LayoutChoice {
  Layout layout;
  StepBreakdown healthy;  // at the nominal TP degree, full share, TDP
};

// The layout with the most tokens/s per GPU (exact_gpus) or for the job; ties keep the smaller
// TP, then the smaller PP. nullopt when no layout fits. REQUIRES: domain_gpus >= 1, and
// gpus >= 1 with exact_gpus.
std::optional<LayoutChoice> fastest_layout(const Workload& w, const HardwareProfile& h,
                                           const LayoutSearch& search,
                                           const StepOptions& options = {});

// A note for the user when `chosen` gives less than 1/1.1 of the fastest layout's tokens/s per
// GPU (MFU and tokens/s of both); empty when it is within 10%, when `chosen` does not fit, or
// when nothing fits. The chosen layout stays the input's choice (a study may need it).
// REQUIRES: search.exact_gpus, chosen.gpus() == search.gpus and chosen.cp == search.cp.
std::string layout_gap_note(const Workload& w, const HardwareProfile& h, const Layout& chosen,
                            const LayoutSearch& search, const StepOptions& options = {});

}  // namespace ntpsim::models
