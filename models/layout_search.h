// The fastest Megatron layout (TP x PP x DP) of a given number of GPUs under the analytic step
// model: every layout the scenario rules allow (TP inside one scale-up domain and at most the
// heads and FFN width, PP x virtual stages at most the layers, at least one micro-batch per
// replica, the TP groups fitting in the cluster's domains) whose busiest GPU fits in memory at
// its nominal TP degree, ranked by healthy tokens/s per GPU. Used to tell a user how far a
// chosen layout is from the best one, and by the planner to choose layouts.
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
  int64_t gpus = 0;        // TP x PP x DP of every candidate, exactly
  int domain_gpus = 0;     // GPUs of one scale-up domain: the largest TP
  int64_t domains = 0;     // domains the TP groups must fit in (0: no limit)
  int virtual_stages = 1;  // interleaved chunks per stage, kept where PP x this <= layers
};

struct LayoutChoice {
  Layout layout;
  StepBreakdown healthy;  // at the nominal TP degree, full share, TDP
};

// The layout with the most tokens/s per GPU; ties keep the smaller TP, then the smaller PP.
// nullopt when no layout of exactly `gpus` GPUs fits. REQUIRES: gpus >= 1, domain_gpus >= 1.
std::optional<LayoutChoice> fastest_layout(const Workload& w, const HardwareProfile& h,
                                           const LayoutSearch& search,
                                           const StepOptions& options = {});

// A note for the user when `chosen` gives less than 1/1.1 of the fastest layout's tokens/s per
// GPU (MFU and tokens/s of both); empty when it is within 10%, when `chosen` does not fit, or
// when nothing fits. The chosen layout stays the input's choice (a study may need it).
// REQUIRES: chosen.gpus() == search.gpus.
std::string layout_gap_note(const Workload& w, const HardwareProfile& h, const Layout& chosen,
                            const LayoutSearch& search, const StepOptions& options = {});

}  // namespace ntpsim::models
