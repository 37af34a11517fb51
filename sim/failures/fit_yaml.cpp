// fitted_failures_yaml: a TraceFit as an includable scenario fragment (fit.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "models/base/time.h"
#include "sim/failures/fit.h"

namespace ntpsim::sim {
namespace {

constexpr double kNodeDays1000 = 1000.0 * kSecondsPerDay;  // "per 1000 node-days" from per node-second

// A YAML double-quoted scalar (every name is valid UTF-8: the trace parsers check it).
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\x{:02X}", u);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Text safe inside a YAML comment: control characters shown as '?'.
std::string comment_safe(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

std::string days(double s) {
  return fmt::format("{:.4g} d", s / kSecondsPerDay);
}

std::string per1000(const RateEstimate& r) {
  return fmt::format("{:.3g} per 1000 node-days (95% CI {:.3g}-{:.3g})", r.per_s * kNodeDays1000,
                     r.lo_per_s * kNodeDays1000, r.hi_per_s * kNodeDays1000);
}

// A per-node rate as a per-GPU-hour rate on nodes of `gpus` GPUs: the same events over `gpus` times
// the exposure, so the exact interval scales with it.
std::string per_gpu_hour(const RateEstimate& r, int64_t gpus) {
  const double k = 3600.0 / static_cast<double>(gpus);
  return fmt::format("{:.3g}/GPU-h (95% CI {:.3g}-{:.3g})", r.per_s * k, r.lo_per_s * k,
                     r.hi_per_s * k);
}

std::string p_text(double p) {
  return std::isnan(p) ? "not computed" : fmt::format("{:.3g}", p);
}

std::string law_text(const LawFit& f) {
  if (!f.converged) return fmt::format("{:<12} did not converge", f.law);
  std::string params;
  if (f.law == "exponential") {
    params = fmt::format("mean {} (95% CI {}-{})", days(f.a), days(f.a_lo), days(f.a_hi));
  } else if (f.law == "weibull") {
    params = fmt::format("shape {:.3g} (95% CI {:.3g}-{:.3g}), scale {}, mean {}", f.a, f.a_lo,
                         f.a_hi, days(f.b), days(f.mean_s));
  } else {
    params = fmt::format(
        "sigma {:.3g} (95% CI {:.3g}-{:.3g}), mu {:.4g} (95% CI {:.4g}-{:.4g}), mean {}", f.a,
        f.a_lo, f.a_hi, f.b, f.b_lo, f.b_hi, days(f.mean_s));
  }
  return fmt::format("{:<12} {}; AIC {:.1f}; KS {:.3f}, p {}", f.law, params, f.aic, f.ks_distance,
                     p_text(f.ks_p));
}

// The chosen independent-node model's AIC minus the exponential law's, its bursts' marks
// included (fit.h, HawkesFit::chosen and BurstFit::marks).
double independent_gain(const KindFit& k) {
  if (k.lifetime.empty()) return 0.0;
  const double marks = k.bursts.bursty ? k.bursts.marks.gain : 0.0;
  if (k.lemons.supported) return k.lemons.aic - k.lifetime[0].aic + marks;
  if (k.lifetime_choice < 0) return 0.0;
  return k.lifetime[static_cast<size_t>(k.lifetime_choice)].aic - k.lifetime[0].aic + marks;
}

// A two-lognormal repair law in words: "short 0.454 of them, median 1.66 h, sigma 2.58; long
// median 2.77 d, sigma 1.55; mean 5.87 d".
std::string mixture_text(const RepairMixture& m) {
  return fmt::format(
      "short {:.3g} of them, median {:.3g} h, sigma {:.3g}; long median {:.3g} d, sigma {:.3g}; "
      "mean {:.3g} d",
      m.short_share, m.short_median_s / 3600.0, m.short_sigma, m.long_median_s / kSecondsPerDay,
      m.long_sigma, m.mean_s / kSecondsPerDay);
}

// The deferred faults' waits against the fitted visits (fit.h, the wait check) in words.
std::string deferred_wait_text(const DeferredRepairFit& d) {
  if (std::isnan(d.wait_p)) {
    return fmt::format("the deferred faults waited {:.3g} d on average (not checked against the "
                       "visits)",
                       d.mean_wait_s / kSecondsPerDay);
  }
  if (d.wait_draws == 0) {
    return fmt::format("the deferred faults waited {:.3g} d on average, and no log drawn from the "
                       "fitted visits sees one (p {:.2g})",
                       d.mean_wait_s / kSecondsPerDay, d.wait_p);
  }
  return fmt::format(
      "the deferred faults waited {:.3g} d on average, the fitted visits give {:.3g} d "
      "(95% of {} drawn logs {:.3g}-{:.3g} d; p {:.2g})",
      d.mean_wait_s / kSecondsPerDay, d.model_wait_s / kSecondsPerDay, d.wait_draws,
      d.model_wait_lo_s / kSecondsPerDay, d.model_wait_hi_s / kSecondsPerDay, d.wait_p);
}

// A shared-repair fit's counts and test, after "which faults share a repair (pooled " or
// "(the kind's ", ending where the verdict follows.
std::string shared_fit_text(const SharedRepairFit& s) {
  return fmt::format(
      "faults starting within {:.3g} h of the previous one, still in repair: {}):\n#     {} end "
      "within {:.0f} s of it, {:.3g} of them (95% CI {:.3g}-{:.3g}; independent repairs would "
      "give {:.3g}, Poisson p {:.3g}); ",
      s.window_s / 3600.0, s.candidates, s.shared, s.resolution_s, s.probability,
      s.probability_lo, s.probability_hi, s.expected, s.p_value);
}

std::string duration(double s) {
  return fmt::format("\"{:.3f}s\"", s);
}

// The burst map's size key for `sizes` (ascending, not empty): `size: N` when all are N, else
// the list.
std::string size_law_yaml(const std::vector<int>& sizes) {
  if (sizes.front() == sizes.back()) return fmt::format("size: {}", sizes.front());
  return fmt::format("sizes: [{}]", fmt::join(sizes, ", "));
}

std::string burst_size_yaml(const BurstFit& b) {
  if (b.sizes.empty()) return fmt::format("size: {}", b.size);
  return size_law_yaml(b.sizes);
}

// A delay law of partners in words: "52% at once (within 60 s), the others 25.1 min after the
// fault before them on average".
std::string delays_text(const IncidentMarks& m) {
  return fmt::format("{:.0f}% at once (within {:.0f} s), the others {:.3g} min after the fault "
                     "before them on average",
                     100.0 * m.at_once_share, m.resolution_s, m.later_mean_s / 60.0);
}

// Whether some partners of a burst model came later than the log's resolution: its delays are
// then written (else every partner starts with its burst, the engine's default).
bool has_later_partners(const IncidentMarks& m) {
  return m.at_once_share < 1.0 && m.later_mean_s > m.resolution_s;
}

// A burst model's partner delays as the engine's map (the line after its burst), or "" when
// every partner came at once.
std::string partner_delays_yaml(const IncidentMarks& m) {
  if (!has_later_partners(m)) return "";
  return fmt::format("      partner_delays: {{at_once: {:.6g}, after: {}, mean: {}}}\n",
                     m.at_once_share, duration(m.resolution_s), duration(m.later_mean_s));
}

// Sizes (ascending) in words: "3" when all are 3, else "2-19 (mean 2.6)".
std::string size_law_text(const std::vector<int>& sizes, double mean) {
  if (sizes.front() == sizes.back()) return std::to_string(sizes.front());
  return fmt::format("{}-{} (mean {:.2g})", sizes.front(), sizes.back(), mean);
}

// An empirical repair law of `values` as the value of a key (starting after it), at `indent`.
std::string empirical_yaml(const std::vector<double>& values, const std::string& indent) {
  std::string y = "\n" + indent + "distribution: empirical\n" + indent + "values: [";
  for (size_t i = 0; i < values.size(); ++i) {
    y += (i == 0 ? "" : (i % 6 == 0 ? ",\n" + indent + "         " : ", ")) + duration(values[i]);
  }
  return y + "]\n";
}

// A kind's repair law as the value of `repair:` (starting after the key), nested at `indent`.
std::string repair_yaml(const KindFit& k, const std::string& indent) {
  std::string y;
  if (k.repair_law == "fixed") {
    y += fmt::format(" {{distribution: fixed, mean: {}}}\n", duration(k.repair_median_s));
  } else if (k.repair_law == "empirical") {
    y += empirical_yaml(k.repair_values_s, indent);
  } else {
    const LawFit& r = k.repair[static_cast<size_t>(k.repair_choice)];
    y += fmt::format(" {{distribution: {}, mean: {}", r.law, duration(r.mean_s));
    if (r.law == "lognormal") y += fmt::format(", sigma: {:.6g}", r.a);
    if (r.law == "weibull") y += fmt::format(", shape: {:.6g}", r.a);
    y += "}\n";
  }
  return y;
}

}  // namespace

std::string fitted_failures_yaml(const TraceFit& fit) {
  std::string y;
  y += "# Failure model fitted by `ntpsim trace --fit` (docs/trace-format.md, \"Fitting a failure "
       "model\").\n";
  y += "# Use it with `include: <this file>`. One process per fault kind (or one for every kind, "
       "when AIC\n# chooses the clustering across kinds); rates are per node, so the model\n";
  y += "# runs on a cluster of any size (the scenario's cluster.gpus_per_node says what a node "
       "is).\n";
  y += "#\n# provenance: measured (fitted from a fault log)\n";
  y += fmt::format("#   log      {}\n", comment_safe(fit.file));
  y += fmt::format("#   hash     {}\n", fit.source_hash.empty() ? "not given" : fit.source_hash);
  y += fmt::format("#   nodes    {} observed, {} with faults; span {}; {} faults\n", fit.nodes,
                   fit.nodes_seen, days(fit.span_s), fit.faults);
  y += fmt::format(
      "#   method   MLE on censored per-node times between faults; law by AIC; KS distance to "
      "Kaplan-Meier\n"
      "#            with a parametric-bootstrap p ({} replicates, seed {}); bursts: starts within "
      "{} s;\n"
      "#            lemons: two-class rate mixture, likelihood-ratio test; at least {} faults to "
      "fit a law\n",
      fit.options.bootstrap, fit.options.seed, fit.options.burst_window_s, fit.options.min_events);
  const int64_t gpus = fit.options.gpus_per_node;
  if (gpus > 0) {
    y += fmt::format(
        "#   gpus     {} per node (given, not in the log): every rate also per GPU-hour, the "
        "same faults\n"
        "#            over {}x the exposure. On nodes of M GPUs, a cause that scales with GPUs "
        "(a GPU class)\n"
        "#            fails a node at M x its per-GPU rate; the others at their per-node rate\n",
        gpus, gpus);
  }
  for (const KindFit& k : fit.kinds) {
    y += fmt::format("#\n# kind {}: {} faults, {}\n", comment_safe(quoted(k.name)), k.faults,
                     per1000(k.rate));
    for (const auto& [cause, r] : k.by_cause) {
      y += fmt::format("#   cause {:<30} {:>5} faults, {}\n", comment_safe(cause), r.events,
                       per1000(r));
    }
    if (gpus > 0) {
      y += fmt::format("#   per GPU: {}\n", per_gpu_hour(k.rate, gpus));
      for (const auto& [cause, r] : k.by_cause) {
        y += fmt::format("#     cause {:<30} {}\n", comment_safe(cause), per_gpu_hour(r, gpus));
      }
    }
    const BurstFit& b = k.bursts;
    y += fmt::format(
        "#   bursts: {} consecutive starts within the window vs {:.3g} for independent arrivals (p "
        "{:.3g}); "
        "{} multi-node clusters of {:.3g} nodes on average: {}\n",
        b.close_gaps, b.expected_close_gaps, b.p_value, b.multi, b.mean_size,
        b.bursty ? "bursty" : "not bursty (no burst model)");
    if (b.bursty && !k.lifetime.empty()) {
      y += fmt::format(
          "#     on every fault: cluster sizes {} and partners' delays ({}) give AIC {:+.1f} "
          "with the first faults' law against every fault's exponential law\n",
          burst_size_text(b), delays_text(b.marks), b.marks.gain);
    }
    if (!k.lifetime.empty()) {
      y += "#   time between faults (per node, while up):\n";
      for (size_t i = 0; i < k.lifetime.size(); ++i) {
        y += fmt::format(
            "#     {}{}\n", law_text(k.lifetime[i]),
            static_cast<int>(i) == k.lifetime_choice && !k.lemons.supported ? "  <- chosen" : "");
      }
      const LemonFit& l = k.lemons;
      y += fmt::format(
          "#     exponential with lemons: {:.3g} of nodes at {:.3g}x the rate; LR {:.3g}, p "
          "{:.3g}; AIC {:.1f}{}\n",
          l.fraction, l.multiplier, l.lr_statistic, l.p_value, l.aic,
          l.supported && !k.hawkes.chosen ? "  <- chosen" : "");
      const HawkesFit& h = k.hawkes;
      if (!h.converged) {
        y += "#     hawkes (clustered in time) did not converge\n";
      } else {
        y += fmt::format(
            "#     hawkes (clustered in time, the cluster's {} faults): branching {:.3g} (95% CI "
            "{:.3g}-{:.3g}), mean delay {:.3g} h (95% CI {:.3g}-{:.3g}), immigrants {:.3g}/d; AIC "
            "{:+.1f} vs Poisson (the chosen per-node model: {:+.1f} vs exponential); time-rescaled "
            "KS {:.3f}, p {}{}\n",
            h.events, h.branching, h.branching_lo, h.branching_hi, h.mean_delay_s / 3600.0,
            h.mean_delay_lo_s / 3600.0, h.mean_delay_hi_s / 3600.0, h.mu_per_s * kSecondsPerDay,
            h.delta_aic, independent_gain(k), h.ks_distance, p_text(h.ks_p),
            h.chosen ? "  <- chosen" : "");
      }
    }
    if (const SharedRepairFit& s = k.shared; fit.pooled.chosen_scales == 0 && s.candidates > 0) {
      y += "#   which faults share a repair (the kind's " + shared_fit_text(s) +
           (k.shared_chosen ? "shared repairs (written below), the law below fitted without them"
                            : "not supported") +
           "\n";
    }
    y += fmt::format("#   repair: median {}, mean {}, p90 {}; law {}\n", days(k.repair_median_s),
                     days(k.repair_mean_s), days(k.repair_p90_s), k.repair_law);
    for (size_t i = 0; i < k.repair.size(); ++i) {
      y += fmt::format("#     {}{}\n", law_text(k.repair[i]),
                       static_cast<int>(i) == k.repair_choice && k.repair_law != "empirical"
                           ? "  <- chosen"
                           : "");
    }
    for (const std::string& n : k.notes) y += "#   note: " + comment_safe(n) + "\n";
  }
  const PooledFit& pf = fit.pooled;
  if (pf.one.events > 0) {
    // One kind: the same candidates (two time scales, regimes, repairs by state, visits) beside
    // the kind's own laws, which are its "kinds apart".
    const bool one = fit.kinds.size() == 1;
    y += fmt::format(
        "#\n# {}: the {} faults{} (outside their node's earlier repairs) as one\n# {}; AIC gains "
        "over independent exponential faults\n#   {}: {:+.1f}{}\n",
        one ? "clustering in time" : "clustering across kinds", pf.events,
        one ? "" : " of every kind",
        one ? "Hawkes process" : "marked Hawkes process, each fault's kind drawn by its share",
        one ? "the kind's own chosen model" : "kinds apart (their chosen models)", pf.apart_gain,
        pf.chosen_scales == 0 ? "  <- chosen" : "");
    if (const PooledIncidents& inc = pf.incidents; inc.fitted) {
      y += fmt::format(
          "#   as incidents (faults each within {:.3g} h of the previous, on distinct nodes): {} "
          "incidents, {} of several nodes ({}), partners {}; their sizes and delays with the "
          "first faults' Poisson process give AIC {:+.1f} against every fault's; best arrival "
          "candidate with them {:+.1f}, of every fault {:+.1f}: {}\n",
          fit.options.burst_window_s / 3600.0, inc.incidents, inc.multi,
          size_law_text(inc.sizes, inc.mean_size), delays_text(inc.marks), inc.marks.gain,
          inc.best_leaders_gain, inc.best_faults_gain,
          inc.chosen ? "incidents (the candidates below are of their first faults, marks included)"
                     : "every fault");
      // The candidates of the set not chosen (fit.h, PooledIncidents).
      auto gain = [](const HawkesFit& h) {
        return h.converged ? fmt::format("{:+.1f}", h.delta_aic) : std::string("did not converge");
      };
      y += fmt::format(
          "#     {}: one time scale {}, two {}, two with regimes of the arrivals {}\n",
          inc.chosen ? "every fault" : "their first faults, marks included", gain(inc.one),
          gain(inc.two),
          inc.regime.kernels.events > 0 ? gain(inc.regime.kernels) : std::string("not fitted"));
    }
    for (const HawkesFit* h : {&pf.one, &pf.two}) {
      if (!h->converged) {
        y += fmt::format("#   pooled hawkes, {} time scale(s): did not converge\n", h->scales);
        continue;
      }
      y += fmt::format(
          "#   pooled hawkes, {} time scale{}: AIC {:+.1f}; branching {:.3g} (95% CI "
          "{:.3g}-{:.3g}), mean delay {:.3g} h (95% CI {:.3g}-{:.3g})",
          h->scales, h->scales == 1 ? "" : "s", h->delta_aic, h->branching, h->branching_lo,
          h->branching_hi, h->mean_delay_s / 3600.0, h->mean_delay_lo_s / 3600.0,
          h->mean_delay_hi_s / 3600.0);
      if (h->scales == 2) {
        y += fmt::format(
            "; slow branching {:.3g} (95% CI {:.3g}-{:.3g}), slow mean delay {:.3g} d (95% CI "
            "{:.3g}-{:.3g})",
            h->slow_branching, h->slow_branching_lo, h->slow_branching_hi,
            h->slow_mean_delay_s / kSecondsPerDay, h->slow_mean_delay_lo_s / kSecondsPerDay,
            h->slow_mean_delay_hi_s / kSecondsPerDay);
      }
      y += fmt::format(
          "; immigrants {:.3g}/d; time-rescaled KS {:.3f}, p {}; with the node choice below: AIC "
          "{:+.1f}{}\n",
          h->mu_per_s * kSecondsPerDay, h->ks_distance, p_text(h->ks_p),
          h->delta_aic + pf.lemon_gain, h->chosen ? "  <- chosen" : "");
    }
    const RegimeFit& g = pf.regime;
    if (!pf.regime_skipped.empty()) {
      y += "#   pooled hawkes with regimes: " + pf.regime_skipped + "\n";
    } else if (!g.converged) {
      y += "#   pooled hawkes, 2 time scales with regimes: did not converge\n";
    } else {
      const HawkesFit& h = g.kernels;
      y += fmt::format(
          "#   pooled hawkes, 2 time scales with regimes (a two-state Markov-modulated immigrant "
          "rate): AIC {:+.1f}; branching {:.3g} (95% CI {:.3g}-{:.3g}), mean delay "
          "{:.3g} h (95% CI {:.3g}-{:.3g}); slow branching {:.3g} (95% CI {:.3g}-{:.3g}), slow "
          "mean delay {:.3g} d (95% CI {:.3g}-{:.3g}); high state {:.3g} of the time (95% CI "
          "{:.3g}-{:.3g}) in spells of {:.3g} d (95% CI {:.3g}-{:.3g}), immigrants {:.3g}x (95% CI "
          "{:.3g}-{:.3g}) the low state's{}; immigrants {:.3g}/d on average; with the node choice "
          "below: AIC {:+.1f}{}\n",
          h.delta_aic, h.branching, h.branching_lo, h.branching_hi, h.mean_delay_s / 3600.0,
          h.mean_delay_lo_s / 3600.0, h.mean_delay_hi_s / 3600.0, h.slow_branching,
          h.slow_branching_lo, h.slow_branching_hi, h.slow_mean_delay_s / kSecondsPerDay,
          h.slow_mean_delay_lo_s / kSecondsPerDay, h.slow_mean_delay_hi_s / kSecondsPerDay,
          g.high_share, g.high_share_lo, g.high_share_hi, g.high_mean_s / kSecondsPerDay,
          g.high_mean_lo_s / kSecondsPerDay, g.high_mean_hi_s / kSecondsPerDay, g.rate_ratio,
          g.rate_ratio_lo, g.rate_ratio_hi,
          g.with_repairs ? fmt::format(", repairs {:.3g}x as long (95% CI {:.3g}-{:.3g})",
                                       g.repair_scale, g.repair_scale_lo, g.repair_scale_hi)
                         : std::string(),
          h.mu_per_s * kSecondsPerDay, h.delta_aic + pf.lemon_gain, h.chosen ? "  <- chosen" : "");
    }
    const RegimeFit& gr = pf.regime_repairs;
    if (!pf.regime_skipped.empty()) {
      // Said once, above.
    } else if (!gr.converged) {
      y += "#   pooled hawkes with regimes and a repair law per state: did not converge\n";
    } else {
      const RepairMixture& m = gr.iid_repairs;
      y += fmt::format(
          "#   pooled hawkes with regimes and a repair law per state (two lognormal parts each): "
          "AIC {:+.1f} over independent\n#     faults and independent repairs (one law: {}); "
          "with the node choice below: AIC {:+.1f}{}\n#     high state {:.3g} of "
          "the time (95% CI {:.3g}-{:.3g}) in spells of {:.3g} d (95% CI {:.3g}-{:.3g}), "
          "immigrants {:.3g}x (95% CI {:.3g}-{:.3g}) the low state's\n",
          gr.kernels.delta_aic, mixture_text(m), gr.kernels.delta_aic + pf.lemon_gain,
          gr.kernels.chosen ? "  <- chosen" : "",
          gr.high_share, gr.high_share_lo, gr.high_share_hi, gr.high_mean_s / kSecondsPerDay,
          gr.high_mean_lo_s / kSecondsPerDay, gr.high_mean_hi_s / kSecondsPerDay, gr.rate_ratio,
          gr.rate_ratio_lo, gr.rate_ratio_hi);
      const char* names[2] = {"low ", "high"};
      for (int st = 0; st < 2; ++st) {
        const RepairMixture& r = gr.state_repair[st];
        y += fmt::format(
            "#     {} state repairs: short {:.3g} (95% CI {:.3g}-{:.3g}), median {:.3g} h (95% CI "
            "{:.3g}-{:.3g}), sigma {:.3g}; long median {:.3g} d (95% CI {:.3g}-{:.3g}), sigma "
            "{:.3g}; mean {:.3g} d (95% CI {:.3g}-{:.3g})\n",
            names[st], r.short_share, r.short_share_lo, r.short_share_hi, r.short_median_s / 3600.0,
            r.short_median_lo_s / 3600.0, r.short_median_hi_s / 3600.0, r.short_sigma,
            r.long_median_s / kSecondsPerDay, r.long_median_lo_s / kSecondsPerDay,
            r.long_median_hi_s / kSecondsPerDay, r.long_sigma, r.mean_s / kSecondsPerDay,
            r.mean_lo_s / kSecondsPerDay, r.mean_hi_s / kSecondsPerDay);
      }
    }
    const LemonFit& l = pf.lemons;
    y += fmt::format(
        "#   which node (pooled faults per node): {:.3g} of nodes at {:.3g}x the rate; LR {:.3g}, "
        "p {:.3g}; AIC gain {:+.1f}: {}\n",
        l.fraction, l.multiplier, l.lr_statistic, l.p_value, pf.lemon_gain,
        l.supported ? "lemons (added to each pooled process's gain)" : "not supported");
    if (const DeferredRepairFit& d = pf.deferred; d.visits > 0) {
      y += fmt::format(
          "#   which repairs wait for a maintenance visit (pooled repairs; {} candidate visits): "
          "{} visits close {} faults;\n#     share {:.3g} (95% CI {:.3g}-{:.3g}), visits every "
          "{:.3g} d (95% CI {:.3g}-{:.3g}; timed from when each batch could be seen); AIC gain "
          "{:+.1f} over one law for every repair (the others' law: {});\n#     {}: {}\n",
          d.candidates, d.visits, d.deferred, d.share, d.share_lo, d.share_hi,
          d.visit_interval_s / kSecondsPerDay, d.visit_interval_lo_s / kSecondsPerDay,
          d.visit_interval_hi_s / kSecondsPerDay, d.delta_aic, mixture_text(d.rest),
          deferred_wait_text(d),
          pf.deferred_chosen ? std::string("deferred repairs (written below)")
          : !d.supported     ? fmt::format("not supported (at least {} visits and a lower AIC "
                                           "needed)",
                                           DeferredRepairFit::kMinVisits)
          : !d.waits_fit     ? std::string("not written: the log's visits are not a Poisson "
                                           "process, and visits this often would shorten the "
                                           "deferred faults' down time; their repairs are "
                                           "replayed with the others'")
                             : std::string("supported, not written: only the regime's laws per "
                                           "state replay the log's repairs without the "
                                           "deferred ones"));
    } else if (!d.not_fitted.empty()) {
      y += "#   which repairs wait for a maintenance visit: not fitted (" + d.not_fitted + ")\n";
    } else {
      y += fmt::format(
          "#   which repairs wait for a maintenance visit: {} candidate visits, none raises the "
          "likelihood\n",
          d.candidates);
    }
    if (const SharedRepairFit& s = pf.shared; s.candidates > 0) {
      y += "#   which faults share a repair (pooled " + shared_fit_text(s) +
          (pf.shared_chosen ? std::string("shared repairs (written below)")
          : !s.supported
              ? fmt::format("not supported (at least {} shared ends and p < 0.01 needed)",
                            SharedRepairFit::kMinShared)
              : std::string("supported, not written here: the kinds are fitted apart, each with "
                            "its own")) +
           "\n";
    }
    if (pf.chosen_scales > 0) {
      const HawkesFit& h = pf.chosen();
      if (h.ks_p < 0.05) {
        y += "#   note: the chosen pooled process fails the time-rescaling KS test at 5%: it "
             "captures the\n#         clustering better than the alternatives but not closely\n";
      }
    }
  }
  if (const RepairBatches& rb = fit.batches; rb.batches > 0) {
    y += fmt::format(
        "#\n# repairs closed in batches (at least {} repairs ending within {:.0f} s of one "
        "another, "
        "of faults\n# that started over more than a day): {} batch{}, {} faults, {:.1f}% of the "
        "log's down node-time;\n# the largest closed {} repairs on day {:.2f} (faults from day "
        "{:.2f} to {:.2f}).\n{}",
        RepairBatches::kMinBatch, RepairBatches::kBatchGapS, rb.batches,
        rb.batches == 1 ? "" : "es", rb.faults, 100.0 * rb.down_share, rb.largest,
        rb.largest_at_s / kSecondsPerDay, rb.largest_first_start_s / kSecondsPerDay,
        rb.largest_last_start_s / kSecondsPerDay,
        fit.pooled.deferred_chosen
            ? "# the model below defers a share of the repairs to maintenance visits (above)\n"
            : "# note: the model below draws every repair on its own, so it does not hold these "
              "faults down\n#       together: expect fewer and shorter stretches with many nodes "
              "down than the log has\n");
  }
  y += "failures:\n  processes:\n";
  if (pf.chosen_scales > 0) {
    // One process for every kind: a fault of any kind excites the class, kinds by share.
    const HawkesFit& h = pf.chosen();
    // With lemons the rate is the other nodes' (the engine weights lemons by the multiplier).
    const LemonFit& l = pf.lemons;
    // The cluster's faults over all node-time: the engine places each on a node that is up.
    const RateEstimate observed =
        poisson_rate(pf.events, static_cast<double>(fit.nodes) * fit.span_s);
    const double rate_s = l.supported
                              ? h.rate_per_s / (1.0 - l.fraction + l.fraction * l.multiplier)
                              : h.rate_per_s;
    y += "    - component: node\n";
    y += fmt::format(
        "      rate: \"{:.6g}/h\"   # per {}node, every kind, {}triggered faults included (the "
        "cluster's, placed on nodes that are up); observed {} faults in {:.4g} node-days: {:.3g}/h "
        "(95% CI {:.3g}-{:.3g})\n",
        rate_s * 3600.0, l.supported ? "non-lemon " : "",
        pf.incidents.chosen ? "incidents' first faults (the burst below brings the rest), " : "",
        observed.events,
        observed.exposure_s / kSecondsPerDay, observed.per_s * 3600.0, observed.lo_per_s * 3600.0,
        observed.hi_per_s * 3600.0);
    y += fmt::format(
        "      distribution: hawkes\n      excitation: {{branching: {:.6g}, mean_delay: {}",
        h.branching, duration(h.mean_delay_s));
    if (h.scales == 2) {
      y += fmt::format(", slow_branching: {:.6g}, slow_mean_delay: {}", h.slow_branching,
                       duration(h.slow_mean_delay_s));
    }
    y += "}\n";
    if (pf.regime_chosen) {
      const RegimeFit& g = pf.regime;
      y += fmt::format(
          "      regime: {{high_share: {:.6g}, rate_ratio: {:.6g}, high_mean_duration: {}",
          g.high_share, g.rate_ratio, duration(g.high_mean_s));
      if (g.with_repairs) {
        y += fmt::format(", low_repair_scale: {:.6g}, high_repair_scale: {:.6g}",
                         g.low_repair_scale, g.high_repair_scale);
      }
      y += "}\n";
    } else if (pf.regime_repairs_chosen) {
      const RegimeFit& g = pf.regime_repairs;
      y += fmt::format(
          "      regime:\n        high_share: {:.6g}\n        rate_ratio: {:.6g}\n"
          "        high_mean_duration: {}\n",
          g.high_share, g.rate_ratio, duration(g.high_mean_s));
      const char* keys[2] = {"low_repair", "high_repair"};
      for (int st = 0; st < 2; ++st) {
        const RepairMixture& r = g.state_repair[st];
        y += fmt::format(
            "        # {}: the log's {} repairs more probable in this state (fitted law: "
            "mean {})\n        {}:",
            keys[st], g.state_values_s[st].size(), days(r.mean_s), keys[st]);
        y += empirical_yaml(g.state_values_s[st], "          ");
      }
    }
    y += "      kinds:\n";
    if (pf.regime_repairs_chosen) {
      y += "        # each kind's own repair law, for reference: the regime's laws per state "
           "replace them\n";
    }
    for (size_t i = 0; i < fit.kinds.size(); ++i) {
      y += fmt::format("        - name: {}\n          share: {:.6g}\n", quoted(fit.kinds[i].name),
                       pf.shares[i]);
      y += "          repair:" + repair_yaml(fit.kinds[i], "            ");
    }
    if (l.supported) {
      y += fmt::format("      lemon: {{fraction: {:.6g}, multiplier: {:.6g}}}\n", l.fraction,
                       l.multiplier);
    }
    if (const PooledIncidents& inc = pf.incidents; inc.chosen) {
      y += fmt::format(
          "      # the log's {} incidents, {} of several nodes: each of those brings its other "
          "nodes, {:.0f}% at once\n      # (within the log's {:.0f} s), the others {:.3g} min "
          "after the node before them on average\n      burst: {{probability: {:.6g}, {}}}\n",
          inc.incidents, inc.multi, 100.0 * inc.marks.at_once_share, inc.marks.resolution_s,
          inc.marks.later_mean_s / 60.0, inc.probability, size_law_yaml(inc.sizes));
      y += partner_delays_yaml(inc.marks);
    }
    if (pf.deferred_chosen) {
      const DeferredRepairFit& d = pf.deferred;
      y += fmt::format(
          "      # {} of the log's repairs waited for one of {} visits (they left the laws per "
          "state above)\n      deferred_repairs: {{share: {:.6g}, visit_interval: {}}}\n",
          d.deferred, d.visits, d.share, duration(d.visit_interval_s));
    }
    if (pf.shared_chosen) {
      const SharedRepairFit& s = pf.shared;
      y += fmt::format(
          "      # {} of the log's {} faults within the window of the previous one, still in "
          "repair, ended with it\n      # (they left the {} above)\n"
          "      shared_repairs: {{window: {}, probability: {:.6g}}}\n",
          s.shared, s.candidates,
          pf.regime_repairs_chosen ? "laws per state" : "kinds' repair laws",
          duration(s.window_s), s.probability);
    }
    return y;
  }
  for (const KindFit& k : fit.kinds) {
    const LawFit* law =
        k.lifetime_choice >= 0 ? &k.lifetime[static_cast<size_t>(k.lifetime_choice)] : nullptr;
    const bool hawkes = k.hawkes.chosen;
    const bool renewal =
        !hawkes && law != nullptr && law->law != "exponential" && !k.lemons.supported;
    const double rate_s = hawkes    ? k.hawkes.rate_per_s
                          : renewal ? 1.0 / law->mean_s
                                    : k.process_rate.per_s;
    const RateEstimate observed =
        hawkes ? poisson_rate(k.hawkes.events, static_cast<double>(fit.nodes) * fit.span_s)
               : k.process_rate;
    y += "    - component: node\n";
    // Renewal laws: the rate is 1 / the law's mean (the long-run rate; every node starts new at
    // time 0, so a shape below 1 front-loads faults as the log did). Otherwise the Poisson rate.
    y += fmt::format(
        "      rate: \"{:.6g}/h\"   # {}; observed {} faults in {:.4g} node-days{}: {:.3g}/h (95% "
        "CI {:.3g}-{:.3g}){}\n",
        rate_s * 3600.0,
        hawkes               ? "per node, triggered faults included (the cluster's, placed on "
                               "nodes that are up)"
        : renewal            ? "per node, 1 / the law's mean"
        : k.lemons.supported ? "per non-lemon node while up"
                             : "per node while up",
        observed.events, observed.exposure_s / kSecondsPerDay, hawkes ? "" : " up",
        observed.events / observed.exposure_s * 3600.0, observed.lo_per_s * 3600.0,
        observed.hi_per_s * 3600.0, law == nullptr ? "; too few faults to fit a law" : "");
    if (hawkes) {
      // The mean delay as a duration the scenario reads back to the second.
      y += fmt::format(
          "      distribution: hawkes\n      excitation: {{branching: {:.6g}, mean_delay: {}}}\n",
          k.hawkes.branching, duration(k.hawkes.mean_delay_s));
    } else if (renewal) {
      y += fmt::format("      distribution: {}\n      shape: {:.6g}\n", law->law, law->a);
    } else {
      y += "      distribution: exponential\n";
    }
    y += fmt::format("      kinds:\n        - name: {}\n          share: 1\n", quoted(k.name));
    y += "          repair:" + repair_yaml(k, "            ");
    if (k.lemons.supported && !hawkes) {
      y += fmt::format("      lemon: {{fraction: {:.6g}, multiplier: {:.6g}}}\n", k.lemons.fraction,
                       k.lemons.multiplier);
    }
    if (k.bursts.bursty && !hawkes) {  // a Hawkes cascade already spreads over nodes
      y += fmt::format("      burst: {{probability: {:.6g}, {}}}\n", k.bursts.probability,
                       burst_size_yaml(k.bursts));
      y += partner_delays_yaml(k.bursts.marks);
    }
    if (k.shared_chosen) {
      y += fmt::format("      shared_repairs: {{window: {}, probability: {:.6g}}}\n",
                       duration(k.shared.window_s), k.shared.probability);
    }
  }
  return y;
}

std::string burst_size_text(const BurstFit& b) {
  if (b.sizes.empty()) return std::to_string(b.size);
  return size_law_text(b.sizes, b.mean_size);
}

// A burst model's partner delays for the terminal summary: "" when every partner came at once.
std::string partner_delays_text(const IncidentMarks& m) {
  if (!has_later_partners(m)) return "";
  return fmt::format(", {:.0f}% of partners at once, the others {:.3g} min after the one before",
                     100.0 * m.at_once_share, m.later_mean_s / 60.0);
}

std::vector<std::string> fitted_model_summary(const TraceFit& fit) {
  std::vector<std::string> out;
  const PooledFit& pf = fit.pooled;
  if (pf.chosen_scales > 0) {
    const std::string form = pf.regime_repairs_chosen ? ", regimes and a repair law per state"
                             : pf.regime_chosen       ? " and regimes"
                                                      : "";
    out.push_back(fmt::format(
        "model        one Hawkes process for every kind ({} pooled faults{}), {} time scale{}{}; "
        "AIC gain {:.1f} over independent exponential faults (kinds apart {:.1f})",
        pf.events,
        pf.incidents.chosen
            ? fmt::format(" in {} incidents, bursts of {}{}", pf.incidents.incidents,
                          size_law_text(pf.incidents.sizes, pf.incidents.mean_size),
                          partner_delays_text(pf.incidents.marks))
            : std::string(),
        pf.chosen_scales, pf.chosen_scales == 1 ? "" : "s", form,
        pf.chosen().delta_aic + pf.lemon_gain, pf.apart_gain));
    if (pf.lemons.supported) {
      out.push_back(fmt::format("lemons       {:.0f}% of the nodes fail {:.3g}x as often",
                                100.0 * pf.lemons.fraction, pf.lemons.multiplier));
    }
  } else {
    for (const KindFit& k : fit.kinds) {
      std::string arrivals = "exponential, too few faults for a law";
      if (k.hawkes.chosen) {
        arrivals = fmt::format("Hawkes, branching {:.2f}", k.hawkes.branching);
      } else if (k.lemons.supported) {
        arrivals = fmt::format("exponential, {:.0f}% lemons at {:.3g}x", 100.0 * k.lemons.fraction,
                               k.lemons.multiplier);
      } else if (k.lifetime_choice >= 0) {
        const LawFit& l = k.lifetime[static_cast<size_t>(k.lifetime_choice)];
        arrivals =
            l.law == "weibull"
                ? fmt::format("Weibull lifetimes, shape {:.2f}, mean {}", l.a, days(l.mean_s))
                : fmt::format("{} lifetimes, mean {}", l.law, days(l.mean_s));
      }
      // As written: a Hawkes cascade takes no bursts.
      if (k.bursts.bursty && !k.hawkes.chosen) {
        arrivals += fmt::format(", bursts of {}{}", burst_size_text(k.bursts),
                                partner_delays_text(k.bursts.marks));
      }
      out.push_back(fmt::format("model        {}: {}; repairs {}", k.name, arrivals, k.repair_law));
      if (k.shared.shared > 0) {
        out.push_back(fmt::format(
            "shared       {}: {} of {} faults within {:.3g} h of the previous one end with it "
            "({:.3g}; chance {:.2g}): {}",
            k.name, k.shared.shared, k.shared.candidates, k.shared.window_s / 3600.0,
            k.shared.probability, k.shared.expected,
            k.shared_chosen ? "written" : "not supported"));
      }
    }
  }
  if (const SharedRepairFit& s = pf.shared; pf.chosen_scales > 0 && s.shared > 0) {
    out.push_back(fmt::format(
        "shared       {} of {} faults within {:.3g} h of the previous one end with it ({:.3g}; "
        "chance {:.2g}): {}",
        s.shared, s.candidates, s.window_s / 3600.0, s.probability, s.expected,
        pf.shared_chosen ? "written" : !s.supported ? "not supported" : "not written"));
  }
  if (const DeferredRepairFit& d = pf.deferred; d.visits > 0) {
    out.push_back(fmt::format(
        "visits       {} maintenance visits close {} faults: {}", d.visits, d.deferred,
        pf.deferred_chosen ? std::string("written")
        : !d.supported     ? std::string("not supported")
        : !d.waits_fit     ? fmt::format("not written (the faults waited {:.3g} d, such visits "
                                         "give {:.3g} d, p {:.2g})",
                                         d.mean_wait_s / kSecondsPerDay,
                                         d.model_wait_s / kSecondsPerDay, d.wait_p)
                           : std::string("reported only (written with a repair law per state)")));
  }
  if (const RepairBatches& rb = fit.batches; rb.batches > 0 && !pf.deferred_chosen) {
    out.push_back(fmt::format(
        "batches      {} batch{} of repairs closed together ({} faults, {:.0f}% of the down "
        "time) drawn one by one",
        rb.batches, rb.batches == 1 ? "" : "es", rb.faults, 100.0 * rb.down_share));
  }
  return out;
}

}  // namespace ntpsim::sim
