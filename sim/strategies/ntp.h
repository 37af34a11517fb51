// The parameter table of ntp (and, with `power_boost`, of ntp_power_boost), shared with the policy
// chains whose terminal action is reduce_tp (chain.cpp), so both document and read the same
// options. Usable during static initialisation (it builds the table from literals).
// Thread safety: a pure function.
#pragma once

#include <vector>

#include "sim/strategies/registry.h"

namespace ntpsim::sim {

std::vector<ParamSpec> ntp_param_specs(bool power_boost);

}  // namespace ntpsim::sim
