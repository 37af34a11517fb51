// The long-run means of a failure process that the closed forms need and the engine's sampler
// (sim/failures/process.cpp) realises: the share of failures that start in each regime state and
// the mean repair a failure draws. The one home of these formulas: the cluster-shortage closed
// form (sim/simulation/shortage.h) and the validation's Little's-law table use them.
// Thread safety: pure functions.
#pragma once

#include "sim/scenario/scenario.h"

namespace ntpsim::sim {

// The mean of a repair law, what its sampler draws on average: the values' average for
// empirical (the loader also stores it in mean_s; a law built in code may not), mean_s for the
// others (each sampler is parameterised by its mean).
double repair_law_mean_s(const RepairDist& d);

// Whether the process's regimes are in force (the engine applies them to hawkes only).
bool has_regimes(const FailureProcess& p);

// The long-run share of the process's failures that start in the high regime state, as the
// engine samples them; 0 without regimes. It is not the immigrants' share, because a triggered
// failure starts in whatever state the chain has moved to since its parent. Immigrants arrive
// at mu_s in state s (time shares pi_s; rho_s = mu_s / the time-average mu); every failure
// triggers failures after delays of density phi(u) = sum_k n_k / tau_k e^(-u / tau_k), whatever
// the state; the chain's transition law is P_rs(u) = pi_s + (1{r = s} - pi_s) e^(-gamma u) with
// gamma = 1 / mean high spell + 1 / mean low spell. The rate a_s of failures in state s solves
// a_s = pi_s mu_s + sum_r a_r int phi(u) P_rs(u) du, so with n = sum_k n_k,
// c = sum_k n_k / (1 + gamma tau_k) and A = sum_s a_s = (time-average mu) / (1 - n):
//   a_s / A = pi_s (rho_s (1 - n) + n - c) / (1 - c).
// No excitation, or spells long against the delays (c -> n), give the immigrants' share
// pi_s rho_s; spells short against the delays (c -> 0) spread the triggered failures by time.
// It leaves out the failures dropped while every unit is in repair and the start of a run
// (the excitation starts at 0).
double regime_high_failure_share(const FailureProcess& p);

// The mean repair time of one failure of the process (the share of its units down is its
// failure rate x units per event x this). Without regimes, the kinds' laws' means weighted by
// share. With regimes, each repair comes from the state its failure starts in: that state's law
// (regime_repair, with regime_state_repairs) or else its kind's, times the state's repair
// scale; the states weighted by regime_high_failure_share. Deferred repairs (a share of the
// failures waiting for the next maintenance visit) last the mean gap between visits. Shared
// repairs (shared_repairs) count as drawn ones: a shared repair lasts what is left of the
// previous failure's, which depends on when failures come, and no closed form here sees that.
double mean_repair_s(const FailureProcess& p);

}  // namespace ntpsim::sim
