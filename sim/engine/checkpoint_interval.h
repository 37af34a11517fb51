// Checkpoint-interval closed forms: the renewal model of periodic checkpointing under Poisson
// rollbacks (Daly, "A higher order estimate of the optimum checkpoint interval for restart
// dumps", Future Generation Computer Systems 22(3), 2006, eq. 13-20), its exact optimum, the
// first-order Young/Daly interval, and the rate at which a strategy is rolled back.
//
// The renewal model: the job computes `interval` seconds of work, then pauses `cost` seconds to
// checkpoint; rollbacks arrive as a Poisson process of mean interval M. A rollback during the
// segment (work or pause) loses the segment and costs a recovery pause `recover` before the
// segment starts again. Expected wall time of one segment (E[S]):
//   failures during the pause restart it:  E[S] = M e^{R/M} (e^{(τ+C)/M} - 1)   (Daly eq. 13)
//   failures during the pause ignored:     E[S] = (M + R) (e^{(τ+C)/M} - 1)
// (the second: the same renewal argument with a recovery that always takes R; the first-order
// expansion of its waste is Daly's √(2C(M+R)) optimum). Goodput = τ / E[S]. In both R only
// scales E[S], so the optimum τ minimises (e^{(τ+C)/M} - 1) / τ, whose exact solution is
//   τ* = M (1 + W0(-e^{-(1 + C/M)}))        (W0: Lambert's W, principal branch),
// of which Daly's higher-order estimate √(2CM)[1 + ⅓√(C/2M) + (1/9)(C/2M)] - C is the series.
// Unlike √(2CM) it stays below M as C/M grows (first-order Young/Daly overshoots once the
// interval is not << M).
// Thread safety: pure functions.
#pragma once

#include "sim/scenario/scenario.h"
#include "sim/strategies/strategy.h"

namespace ntpsim::sim {

// Time lost per checkpoint, the C above: the pause `exposed_s` plus, for an asynchronous write,
// the running time its background part (write_s - exposed_s) costs at `slowdown` of the rate.
// REQUIRES: 0 <= exposed_s <= write_s, slowdown in [0, 1].
double checkpoint_overhead_s(double write_s, double exposed_s, double slowdown);

// E[S] above, in seconds. REQUIRES: interval_s > 0, cost_s >= 0, mtti_s > 0, recover_s >= 0.
double renewal_segment_s(double interval_s, double cost_s, double mtti_s, double recover_s,
                         PauseFailures pause_failures);
// interval / E[S]: the long-run goodput of the renewal model.
double renewal_goodput(double interval_s, double cost_s, double mtti_s, double recover_s,
                       PauseFailures pause_failures);
// τ* = M (1 + W0(-e^{-(1 + C/M)})); 0 when cost_s == 0. REQUIRES: cost_s >= 0, mtti_s > 0.
double optimal_interval_s(double cost_s, double mtti_s);
// First-order Young/Daly √(2C(M+R)).
double young_daly_interval_s(double cost_s, double mtti_s, double recover_s);

// Rollbacks per second of `strategy` given the job's interruption rate, the probability that an
// interruption finds the cluster short of the groups the job needs, and the probability that a
// damaged domain's idle GPUs cover its failed ones (the planner's closed forms,
// sim/simulation/shortage.h): every interruption for a strategy that always restarts, the share
// not covered in-domain for one that restarts unless in-domain spares cover the loss, the share
// that finds no spare for one that restarts only when spares run short, none for one that never
// restarts (Strategy::rollback_exposure).
double rollback_rate_per_s(const Strategy& strategy, double interruption_rate_per_s,
                           double short_probability, double in_domain_cover);

}  // namespace ntpsim::sim
