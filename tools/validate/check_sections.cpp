// Closed-form cross-checks (expected failures and Little's law, Young/Daly, Daly's renewal model
// in both failures_during_pause modes) and the InfiniteHBD
// trace replay, as sections of docs/VALIDATION.md.
#include <fmt/format.h>

#include <cmath>

#include "sim/engine/checkpoint_interval.h"
#include "sim/metrics/aggregate.h"
#include "sim/scenario/process_means.h"
#include "tools/validate/claims.h"
#include "tools/validate/doc_builder.h"
#include "tools/validate/studies.h"

namespace ntpsim::validate {
namespace {

namespace pub = published;


std::string rel_diff(double ours, double expected) {
  return fmt::format("{:+.2f}%", (ours / expected - 1.0) * 100.0);
}

Status little(Doc& doc) {
  const int reps = doc.samples(100, 20);
  std::string& b = doc.body;
  b += "## Closed form: expected failures and mean failed GPUs (Little's law)\n\n";
  b += fmt::format(
      "`{}`: failures arrive at λ·N (λ per GPU-hour, N GPUs), so a horizon H holds λ·N·H of "
      "them; by Little's law the mean number of failed GPUs is λ·N·E[repair]. A window that "
      "starts with no failures sees λ·N·Σ share·r·(1 - r/2H) for fixed repairs r ≤ H. "
      "{} replications.\n\n",
      kPaper, reps);
  b += "| horizon | λ·N·H | failures (sim) | mean failed, closed form | mean failed (sim) |\n"
       "|---|---|---|---|---|\n";
  std::string rows;
  for (const auto& [h, days] :
       std::vector<std::pair<std::string, double>>{{"15d", 15.0}, {"120d", 120.0}}) {
    auto p = prepare(doc.scenario(kPaper), {"horizon=" + h});
    if (!p.ok()) return p.error();
    const auto& proc = (*p)->scenario().failures.processes.at(0);
    const double n = static_cast<double>((*p)->layout().cluster_gpus);
    const double hs = days * 86400.0;
    const double expected_failures = proc.rate_per_unit_s * n * hs;
    double repair_term = 0;
    for (const auto& k : proc.kinds) {
      repair_term += k.share * k.repair.mean_s * (1.0 - k.repair.mean_s / (2.0 * hs));
    }
    const double expected_failed = proc.rate_per_unit_s * n * repair_term;
    const auto st = failed_gpu_stats(**p, 0.001, 0, reps);
    b += fmt::format("| {} | {:.1f} | {:.1f} | {:.2f} | {:.2f} |\n", h, expected_failures,
                     st.failures, expected_failed, st.mean_failed);
    if (days == 120.0) {
      rows += doc.claim(
          {"failure events in 120 days", "λ·N·H", fmt::format("{:.1f}", expected_failures),
           fmt::format("{:.1f}", st.failures), rel_diff(st.failures, expected_failures),
           fmt::format("±{:.0f}%", pub::kFailureCountTol * 100),
           std::abs(st.failures / expected_failures - 1) <= pub::kFailureCountTol});
      rows += doc.claim(
          {"mean failed GPUs (120 days)", "Little's law", fmt::format("{:.2f}", expected_failed),
           fmt::format("{:.2f}", st.mean_failed), rel_diff(st.mean_failed, expected_failed),
           fmt::format("±{:.0f}%", pub::kLittleTol * 100),
           std::abs(st.mean_failed / expected_failed - 1) <= pub::kLittleTol});
      const double long_run = mean_repair_s(proc);
      b += fmt::format(
          "\nLong-run Little's law λ·N·E[repair] = {:.1f} failed GPUs (REFERENCES.md: "
          "about 37 with 3-day repair at 32,768 GPUs).\n\n",
          proc.rate_per_unit_s * n * long_run);
    }
  }
  b += claim_header() + rows + "\n";
  return Status::Ok();
}

Status young_daly(Doc& doc) {
  const int reps = doc.samples(40, 8);
  const std::vector<std::string> base = {"strategies=[checkpoint_restart]",
                                         "cluster.spare_domains=64", "horizon=30d"};
  auto p = prepare(doc.scenario(kPaper), base);
  if (!p.ok()) return p.error();
  const auto& s = (*p)->scenario();
  // The engine's own C (pause + background slowdown) and R (at the job's size).
  const sim::EngineConfig& ec = (*p)->engine_config();
  const double c = ec.checkpoint_cost_s;
  const double m = 1.0 / (*p)->interruption_rate_per_s();
  const double r = ec.detection.seconds() + ec.restart.seconds();
  const double young = std::sqrt(2 * c * m);
  const double daly = std::sqrt(2 * c * (m + r));
  std::string& b = doc.body;
  b += "## Closed form: Young/Daly checkpoint interval vs the best interval of a sweep\n\n";
  b += fmt::format(
      "`{}` with `checkpoint_restart`, 64 spare domains (so restarts do not stall), 30 days, {} "
      "replications on common random numbers. C = {:.0f} s exposed write, M = {:.0f} s mean "
      "time between job interruptions, R = {:.0f} s detection + restart + restore: Young "
      "√(2CM) = {:.0f} s, Daly √(2C(M+R)) = {:.0f} s; the engine's `interval: auto` chose "
      "{:.0f} s for `checkpoint_restart`, the exact optimum of Daly's renewal model "
      "M(1 + W0(-e^{{-(1+C/M)}})) (sim/engine/checkpoint_interval.h).\n\n",
      kPaper, reps, c, m, r, young, daly, (*p)->checkpoint_interval_s(0));
  Series curve{"checkpoint_restart", {}, {}};
  double best_g = -1, best_i = 0;
  b += "| interval | goodput (mean) |\n|---|---|\n";
  for (double minutes : {4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0, 18.0, 20.0, 24.0, 30.0, 40.0}) {
    auto o = base;
    o.push_back(fmt::format("checkpoint.interval={}s", minutes * 60));
    auto q = prepare(doc.scenario(kPaper), o);
    if (!q.ok()) return q.error();
    auto run = run_engine(**q, 0, reps, doc.options.threads);
    if (!run.ok()) return run.error();
    const double g = run->mean(run->goodput);
    b += fmt::format("| {:.0f} min | {} |\n", minutes, pct(g, 3));
    curve.x.push_back(minutes);
    curve.y.push_back(g);
    if (g > best_g) best_g = g, best_i = minutes * 60;
  }
  auto d = prepare(doc.scenario(kPaper), [&] {
    auto o = base;
    o.push_back(fmt::format("checkpoint.interval={:.0f}s", daly));
    return o;
  }());
  if (!d.ok()) return d.error();
  auto run = run_engine(**d, 0, reps, doc.options.threads);
  if (!run.ok()) return run.error();
  const double gd = run->mean(run->goodput);
  b += fmt::format("| Daly {:.0f} s | {} |\n", daly, pct(gd, 3));
  // The engine's own choice (`interval: auto`), run as the scenario gives it.
  const double tau_auto = (*p)->checkpoint_interval_s(0);
  auto auto_run = run_engine(**p, 0, reps, doc.options.threads);
  if (!auto_run.ok()) return auto_run.error();
  const double ga = auto_run->mean(auto_run->goodput);
  b += fmt::format("| auto {:.0f} s | {} |\n\n", tau_auto, pct(ga, 3));
  b += doc.chart("young_daly.svg",
                 {"young_daly",
                  "Goodput vs checkpoint interval (checkpoint_restart)",
                  "checkpoint interval (min)",
                  "goodput (%)",
                  false,
                  true,
                  curve.y.front() - 0.01,
                  {}},
                 {curve});
  b += claim_header();
  b += doc.claim({"goodput at the Daly interval vs the sweep's best", "Young 1974, Daly 2006",
                  fmt::format("best {:.0f} s: {}", best_i, pct(best_g, 2)),
                  fmt::format("Daly {:.0f} s: {}", daly, pct(gd, 2)),
                  fmt::format("{:+.2f} pt", (gd - best_g) * 100),
                  fmt::format("≥ best - {:.1f} pt", pub::kYoungDalyGoodputTol * 100),
                  gd >= best_g - pub::kYoungDalyGoodputTol});
  b += doc.claim({"goodput at the auto interval (renewal optimum) vs the sweep's best",
                  "Daly 2006 renewal model",
                  fmt::format("best {:.0f} s: {}", best_i, pct(best_g, 2)),
                  fmt::format("auto {:.0f} s: {}", tau_auto, pct(ga, 2)),
                  fmt::format("{:+.2f} pt", (ga - best_g) * 100),
                  fmt::format("≥ best - {:.1f} pt", pub::kYoungDalyGoodputTol * 100),
                  ga >= best_g - pub::kYoungDalyGoodputTol});
  b += "\n";
  doc.seeds.push_back(
      fmt::format("Young/Daly ({}) | seed {}, {} replications", kPaper, s.seed, reps));
  return Status::Ok();
}

// checkpoint_restart against Daly's renewal model (sim/engine/checkpoint_interval.h) in both
// recovery.failures_during_pause modes, at the Llama 3 rate and at three times it.
Status daly_renewal(Doc& doc) {
  const int reps = doc.samples(40, 8);
  std::string& b = doc.body;
  b += "## Closed form: Daly's renewal model, failures during recovery restart it or not\n\n";
  b += fmt::format(
      "`{}` with `checkpoint_restart`, 256 spare domains (so restarts never stall), 30 days, {} "
      "replications, `checkpoint.interval: auto_per_strategy` (the renewal optimum τ* = M(1 + "
      "W0(-e^{{-(1+C/M)}}))). Daly (2006) gives the expected wall time of one segment of τ work "
      "and C checkpoint under Poisson interruptions of mean M with recovery R as "
      "E[S] = M·e^(R/M)·(e^((τ+C)/M) - 1) when a failure during recovery restarts it "
      "(`recovery.failures_during_pause: restart`), and (M + R)·(e^((τ+C)/M) - 1) when recovery "
      "always takes R (`ignore`, Meta's E[ETTR] convention); goodput = τ / E[S].\n\n",
      kPaper, reps);
  b += "| failure rate | M | τ | mode | Daly goodput | ntpsim goodput | difference |\n"
       "|---|---|---|---|---|---|---|\n";
  std::string rows;
  uint64_t seed = 0;
  for (const auto& [rate_name, rate] : std::vector<std::pair<std::string, std::string>>{
           {"Llama 3 (1x)", "1.973e-5/h"}, {"3x", "5.919e-5/h"}}) {
    for (const sim::PauseFailures mode :
         {sim::PauseFailures::kRestart, sim::PauseFailures::kIgnore}) {
      auto p =
          prepare(doc.scenario(kPaper),
                  {"strategies=[checkpoint_restart]", "cluster.spare_domains=256", "horizon=30d",
                   "checkpoint.interval=auto_per_strategy", "failures.processes[0].rate=" + rate,
                   std::string("recovery.failures_during_pause=") + sim::to_string(mode)});
      if (!p.ok()) return p.error();
      const auto& s = (*p)->scenario();
      seed = s.seed;
      const sim::EngineConfig& ec = (*p)->engine_config();
      const double c = ec.checkpoint_cost_s;
      const double m = 1.0 / (*p)->interruption_rate_per_s();
      const double r = ec.detection.seconds() + ec.restart.seconds();
      const double tau = (*p)->checkpoint_interval_s(0);
      const double closed = sim::renewal_goodput(tau, c, m, r, mode);
      auto run = run_engine(**p, 0, reps, doc.options.threads);
      if (!run.ok()) return run.error();
      const double g = run->mean(run->goodput);
      b += fmt::format("| {} | {:.0f} s | {:.0f} s | `{}` | {} | {} | {:+.2f} pt |\n", rate_name, m,
                       tau, sim::to_string(mode), pct(closed, 2), pct(g, 2), (g - closed) * 100);
      rows += doc.claim({fmt::format("goodput, {} rate, failures during recovery: {}", rate_name,
                                     sim::to_string(mode)),
                         "Daly 2006 renewal model", pct(closed, 2), pct(g, 2),
                         fmt::format("{:+.2f} pt", (g - closed) * 100),
                         fmt::format("±{:.1f} pt", pub::kDalyRenewalTol * 100),
                         std::abs(g - closed) <= pub::kDalyRenewalTol});
    }
  }
  b += "\n" + claim_header() + rows + "\n";
  doc.seeds.push_back(fmt::format("Daly renewal model ({}) | seed {}, {} replications per row",
                                  kPaper, seed, reps));
  return Status::Ok();
}

// The resume mechanisms (sim/strategies/README.md): each against a closed form in a simple
// regime, and the quick start's NTP-vs-restart gap split into the resume mechanism and the
// reduced-TP configuration, paired over common failures.
Status resume_mechanisms(Doc& doc) {
  const int reps = doc.samples(40, 8);
  std::string& b = doc.body;
  std::string rows;
  b += "## Resume mechanisms: closed forms, and what NTP's lead in the quick start rests on\n\n";
  b += fmt::format(
      "`{}` at the Llama 3 rate with 256 spare domains (restarts never stall), GPU failures only "
      "(so an in-memory snapshot is never lost), 30 days, {} replications. "
      "`restart_from_memory` is Daly's renewal model with the snapshot's pause C and the "
      "in-memory restore in R (τ its snapshot interval). `in_place` is a pure pause: each "
      "interruption costs detection + reconfigure + state transfer + the in-flight iteration; "
      "a spare domain keeps the job whole, so a repair needs no rejoin: goodput = 1 - λ(D + R_c "
      "+ T + t_it) with λ the job's interruption rate.\n\n",
      kPaper, reps);
  b += "| mechanism | closed form | ntpsim | difference |\n|---|---|---|---|\n";
  uint64_t seed = 0;
  {
    auto p = prepare(doc.scenario(kPaper),
                     {"strategies=[{name: checkpoint_restart, resume: restart_from_memory}]",
                      "cluster.spare_domains=256", "horizon=30d"});
    if (!p.ok()) return p.error();
    const auto& s = (*p)->scenario();
    seed = s.seed;
    const auto& ec = (*p)->engine_config();
    const double c = ec.memory_exposed.seconds();
    const double m = 1.0 / (*p)->interruption_rate_per_s();
    const double r = s.recovery.detection_s + ec.memory_restart.seconds();
    const double tau = (*p)->checkpoint_interval_s(0);
    const double closed = sim::renewal_goodput(tau, c, m, r, s.recovery.failures_during_pause);
    auto run = run_engine(**p, 0, reps, doc.options.threads);
    if (!run.ok()) return run.error();
    const double g = run->mean(run->goodput);
    b += fmt::format(
        "| `restart_from_memory` (τ {:.0f} s, C {:.1f} s, R {:.0f} s) | {} | {} | "
        "{:+.2f} pt |\n",
        tau, c, r, pct(closed, 2), pct(g, 2), (g - closed) * 100);
    rows += doc.claim({"goodput, restart_from_memory", "Daly 2006 renewal model", pct(closed, 2),
                       pct(g, 2), fmt::format("{:+.2f} pt", (g - closed) * 100),
                       fmt::format("±{:.1f} pt", pub::kResumeClosedFormTol * 100),
                       std::abs(g - closed) <= pub::kResumeClosedFormTol});
  }
  {
    auto p = prepare(doc.scenario(kPaper), {"strategies=[{name: dp_drop, resume: in_place}]",
                                            "cluster.spare_domains=256", "horizon=30d"});
    if (!p.ok()) return p.error();
    const auto& s = (*p)->scenario();
    const auto& ec = (*p)->engine_config();
    const double lambda = (*p)->interruption_rate_per_s();
    const double pause = s.recovery.detection_s + s.recovery.reconfigure_s +
                         ec.state_transfer.seconds() + (*p)->healthy_iteration_s();
    const double closed = 1.0 - lambda * pause;
    auto run = run_engine(**p, 0, reps, doc.options.threads);
    if (!run.ok()) return run.error();
    const double g = run->mean(run->goodput);
    b += fmt::format(
        "| `in_place` (dp_drop, spare domains replace damaged ones; pause {:.0f} s) "
        "| {} | {} | {:+.2f} pt |\n",
        pause, pct(closed, 2), pct(g, 2), (g - closed) * 100);
    rows += doc.claim({"goodput, in_place as a pure pause", "closed form", pct(closed, 2),
                       pct(g, 2), fmt::format("{:+.2f} pt", (g - closed) * 100),
                       fmt::format("±{:.1f} pt", pub::kResumeClosedFormTol * 100),
                       std::abs(g - closed) <= pub::kResumeClosedFormTol});
  }
  b += "\n" + claim_header() + rows + "\n";

  // The quick start's gap, paired over the same failures.
  const int qreps = doc.samples(20, 6);
  auto q = prepare(doc.scenario("scenarios/quickstart.yaml"),
                   {"strategies=[checkpoint_restart, {name: ntp, resume: restart_from_checkpoint}, "
                    "{name: ntp, label: ntp_in_place, resume: in_place}]"});
  if (!q.ok()) return q.error();
  std::vector<std::vector<double>> g;
  for (int k = 0; k < 3; ++k) {
    auto run = run_engine(**q, k, qreps, doc.options.threads);
    if (!run.ok()) return run.error();
    g.push_back(run->goodput);
  }
  const sim::PairedDiff config = sim::paired_difference(g[1], g[0]);
  const sim::PairedDiff mechanism = sim::paired_difference(g[2], g[1]);
  const sim::PairedDiff total = sim::paired_difference(g[2], g[0]);
  b += fmt::format(
      "The quick start (`scenarios/quickstart.yaml`, {} replications, common failures): the gap "
      "between `checkpoint_restart` and NTP recovering in place splits into the reduced-TP "
      "configuration (NTP restarting from the checkpoint, as the NTP paper does, minus "
      "checkpoint_restart) and the resume mechanism (NTP in place minus NTP restarting). Paired "
      "differences of goodput, mean and 95% CI:\n\n",
      qreps);
  b += "| part | goodput difference | 95% CI |\n|---|---|---|\n";
  for (const auto& [name, d] : std::vector<std::pair<std::string, sim::PairedDiff>>{
           {"reduced-TP configuration (ntp restart - checkpoint_restart)", config},
           {"resume mechanism (ntp in place - ntp restart)", mechanism},
           {"total (ntp in place - checkpoint_restart)", total}}) {
    b += fmt::format("| {} | {:+.2f} pt | [{:+.2f}, {:+.2f}] |\n", name, d.mean * 100,
                     d.ci95_lo * 100, d.ci95_hi * 100);
  }
  b += fmt::format(
      "\nIn this setting the resume mechanism is {:.0f}% of the gap: each rack's 8 idle GPUs "
      "absorb nearly every failure, so a restarted NTP job rarely runs at a reduced degree. "
      "In-place NTP is unpublished and needs a second copy of every optimizer shard "
      "(`state_copy`), which the memory model counts.\n\n",
      total.mean != 0 ? mechanism.mean / total.mean * 100 : 0.0);
  doc.seeds.push_back(fmt::format(
      "Resume mechanisms ({}; scenarios/quickstart.yaml) | seeds {}, {}; {} and {} replications",
      kPaper, seed, (*q)->scenario().seed, reps, qreps));
  return Status::Ok();
}

Status infinitehbd(Doc& doc) {
  auto p = prepare(doc.scenario(kHbd), {});
  if (!p.ok()) return p.error();
  auto t = trace_stats(**p, pub::kHbdDays);
  if (!t.ok()) return t.error();
  auto run = run_engine(**p, 0, 1, 1);
  if (!run.ok()) return run.error();
  std::string& b = doc.body;
  b += "## InfiniteHBD trace replayed on 400 servers\n\n";
  b += fmt::format(
      "`{}`: the StepFun fault trace (SIGCOMM 2025) replayed through ntpsim's trace reader on a "
      "cluster of its own size ({} servers of 8 GPUs). Statistics of the events the failure "
      "source yields (the simulator's view, not the raw file): {} faults on {} distinct servers, "
      "repair p90 {:.1f} d. `dp_drop` on this cluster (Llama 3 70B, TP 8 x PP 4 x DP 100): "
      "goodput {}, mean failed GPUs {:.1f}.\n\n",
      kHbd, t->units, t->faults, t->distinct_units, t->repair_p90_days, pct(run->goodput.at(0), 2),
      run->failed_mean.at(0));
  {
    // Empirical CDF of repair times up to 30 days (the tail runs to 131 days).
    Series cdf{"repair time CDF (584 faults)", {}, {}, true, false};
    const auto& r = t->repair_days;
    for (size_t i = 0; i < r.size() && r[i] <= 30.0; ++i) {
      cdf.x.push_back(r[i]);
      cdf.y.push_back(static_cast<double>(i + 1) / static_cast<double>(r.size()));
    }
    b += doc.chart("infinitehbd_repair_cdf.svg",
                   {"infinitehbd_repair",
                    "InfiniteHBD replay: repair-time distribution",
                    "repair time (days, first 30)",
                    "faults repaired (%)",
                    false,
                    true,
                    0.0,
                    {0.5}},
                   {cdf});
  }
  b += claim_header();
  b += doc.claim({"faults in 348 days on 400 servers", "InfiniteHBD",
                  fmt::format("{}", pub::kHbdFaults), fmt::format("{}", t->faults),
                  fmt::format("{:+d}", t->faults - pub::kHbdFaults), "exact",
                  t->faults == pub::kHbdFaults});
  b += doc.claim({"faults per 1000 node-days", "InfiniteHBD", fmt::format("{}", pub::kHbdRate),
                  fmt::format("{:.3f}", t->rate_per_1000_unit_days),
                  fmt::format("{:+.3f}", t->rate_per_1000_unit_days - pub::kHbdRate),
                  fmt::format("±{}", pub::kHbdRateTol),
                  std::abs(t->rate_per_1000_unit_days - pub::kHbdRate) <= pub::kHbdRateTol});
  b += doc.claim(
      {"hardware faults per 1000 node-days", "InfiniteHBD", fmt::format("{}", pub::kHbdHwRate),
       fmt::format("{:.3f}", t->hardware_rate_per_1000_unit_days),
       fmt::format("{:+.3f}", t->hardware_rate_per_1000_unit_days - pub::kHbdHwRate),
       fmt::format("±{}", pub::kHbdHwRateTol),
       std::abs(t->hardware_rate_per_1000_unit_days - pub::kHbdHwRate) <= pub::kHbdHwRateTol});
  b += doc.claim(
      {"repair time median (days)", "InfiniteHBD", fmt::format("{}", pub::kHbdRepairMedian),
       fmt::format("{:.3f}", t->repair_median_days),
       fmt::format("{:+.3f}", t->repair_median_days - pub::kHbdRepairMedian),
       fmt::format("±{}", pub::kHbdRepairMedianTol),
       std::abs(t->repair_median_days - pub::kHbdRepairMedian) <= pub::kHbdRepairMedianTol});
  b += doc.claim({"repair time mean (days)", "InfiniteHBD", fmt::format("{}", pub::kHbdRepairMean),
                  fmt::format("{:.3f}", t->repair_mean_days),
                  fmt::format("{:+.3f}", t->repair_mean_days - pub::kHbdRepairMean),
                  fmt::format("±{}", pub::kHbdRepairMeanTol),
                  std::abs(t->repair_mean_days - pub::kHbdRepairMean) <= pub::kHbdRepairMeanTol});
  b += "\n";
  doc.seeds.push_back(
      fmt::format("InfiniteHBD ({}) | seed {}, 1 replication (modulo mapping is "
                  "deterministic)",
                  kHbd, (*p)->scenario().seed));
  return Status::Ok();
}

}  // namespace

Status check_sections(Doc& doc) {
  NTPSIM_RETURN_IF_ERROR(little(doc));
  NTPSIM_RETURN_IF_ERROR(young_daly(doc));
  NTPSIM_RETURN_IF_ERROR(daly_renewal(doc));
  NTPSIM_RETURN_IF_ERROR(resume_mechanisms(doc));
  NTPSIM_RETURN_IF_ERROR(infinitehbd(doc));
  return Status::Ok();
}

}  // namespace ntpsim::validate
