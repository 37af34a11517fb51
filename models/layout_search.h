// The fastest Megatron layout (TP x PP x DP, at a given CP or over the CP degrees allowed) under
// the analytic step model: every
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
  // Context-parallel degree of every candidate. >= 1: kept as given (the search varies TP, PP,
  // DP). 0: chosen as well, among the degrees Megatron-LM allows: load-balanced causal attention
  // splits each sequence into 2 x CP chunks, so 2 x CP must divide the sequence length (any such
  // CP, not only powers of two); with exact_gpus CP also divides the GPUs; and a CP group that
  // fits in a domain lies inside one (CP divides the domain's floor(G/TP) TP groups), as the
  // step model costs it. A long sequence's activations may fit only split over several ranks.
  int cp = 1;
  int max_cp = 0;  // with cp 0: the largest CP tried; 0: as large as the GPUs and sequence allow
};

struct LayoutChoice {
  Layout layout;
  StepBreakdown healthy;  // at the nominal TP degree, full share, TDP
};

// The layout with the most tokens/s per GPU (exact_gpus) or for the job; ties keep the smaller
// CP, then the smaller TP, then the smaller PP. nullopt when no layout fits. With a fixed CP the
// result is the one of that CP alone. REQUIRES: domain_gpus >= 1, gpus >= 1 with exact_gpus,
// cp >= 0 and max_cp >= 0.
std::optional<LayoutChoice> fastest_layout(const Workload& w, const HardwareProfile& h,
                                           const LayoutSearch& search,
                                           const StepOptions& options = {});

// A note for the user when `chosen` gives less than 1/1.1 of the fastest layout's tokens/s per
// GPU (MFU and tokens/s of both); empty when it is within 10%, when `chosen` does not fit, or
// when nothing fits. The chosen layout stays the input's choice (a study may need it).
// REQUIRES: search.exact_gpus, chosen.gpus() == search.gpus and chosen.cp == search.cp.
std::string layout_gap_note(const Workload& w, const HardwareProfile& h, const Layout& chosen,
                            const LayoutSearch& search, const StepOptions& options = {});

// A note for the user when `chosen` does not fit in memory at its nominal TP degree: its
// busiest GPU's memory against the usable memory, and the fastest layout of the same GPUs that
// fits, with the CP degree chosen as well (search.cp is ignored; search.max_cp bounds it): at a
// long sequence the activations may fit only split over more context-parallel ranks. When no
// layout of those GPUs fits, the note says so. Empty when `chosen` fits.
// REQUIRES: search.exact_gpus, chosen.gpus() == search.gpus.
std::string layout_fit_note(const Workload& w, const HardwareProfile& h, const Layout& chosen,
                            const LayoutSearch& search, const StepOptions& options = {});

}  // namespace ntpsim::models
