// The closed form of how short of healthy TP groups a cluster runs (sim/planner/README.md,
// "Closed form"): the expected share of GPUs down, the chance the cluster has fewer healthy
// groups than the job needs, and the expected number missing. The planner's screen uses it for
// its goodput estimate, and a prepared Simulation for the rate at which spares run out (the
// rollbacks of a strategy that restarts only then, checkpoint_interval.h).
// Thread safety: pure function.
#pragma once

#include "sim/cluster/layout.h"
#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

struct Shortage {
  double down_fraction = 0;      // expected share of GPUs down (failure rate x repair time)
  double short_probability = 0;  // P(the cluster has fewer healthy TP groups than the job needs)
  double short_groups = 0;       // E[groups missing]
  double damaged_domains = 0;    // E[job domains with more failed GPUs than idle ones]
  // P(a domain's failed GPUs are all covered by its idle ones | it has a failed GPU); 1 when no
  // domain is expected to have one.
  double in_domain_cover = 1;
};

// From the scenario's failure processes (a trace contributes nothing: its rate is not a
// parameter): per domain, failed GPUs ~ Poisson(G x down_fraction), a domain re-forms
// floor((G - failed) / T) groups, and the groups lost over all domains ~ Poisson.
Shortage expected_shortage(const Scenario& s, const JobLayout& l);

}  // namespace ntpsim::sim
