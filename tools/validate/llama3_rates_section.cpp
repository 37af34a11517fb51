// The second check of the fitted rates in docs/VALIDATION.md: the InfiniteHBD log's rates by kind
// and hardware component (`ntpsim trace --fit`), scaled to the Llama 3 cluster, against Llama 3's
// published interruption table; and the shipped Llama 3 failure profile run by the failure source
// against the same table's hardware/software split (tools/validate/llama3_rates.h).
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "models/base/time.h"
#include "sim/failures/fit.h"
#include "tools/validate/doc_builder.h"
#include "tools/validate/llama3_rates.h"
#include "tools/validate/studies.h"

namespace ntpsim::validate {

namespace {

std::string count_ci(double n, double lo, double hi) {
  return fmt::format("{:.0f} ({:.0f}-{:.0f})", n, lo, hi);
}

std::string ratio_text(const RateComparison& r) {
  return fmt::format("{:.2f} ({:.2f}-{:.2f})", r.ratio, r.ratio_lo, r.ratio_hi);
}

}  // namespace

Status llama3_rates_section(Doc& doc) {
  auto st = llama3_rate_study(doc.scenario(kHbd), doc.scenario(kLlama3Table));
  if (!st.ok()) return st.error();
  const double span_d = st->log_span_s / kSecondsPerDay;
  std::string& b = doc.body;
  b += "## Rates by kind: the InfiniteHBD log against Llama 3's Table 5\n\n";
  b += fmt::format(
      "The rates `ntpsim trace --fit` takes from the InfiniteHBD log ({} servers of {} GPUs, "
      "{:.1f} days; `{}`) scaled to the Llama 3 405B cluster ({} hosts x {} H100, {:.0f} days: "
      "arXiv 2407.21783 §3.3.4 and Table 5) predict its interruptions by kind; the table's "
      "counts are read from `{}`. Rates are per server-day, GPU faults per GPU-day (both "
      "clusters have 8 GPUs per server, so here the two agree). Intervals are exact Poisson 95% "
      "intervals; the rates agree when the exact 95% interval of their ratio (the conditional "
      "binomial test of two Poisson counts, Clopper-Pearson) contains 1, which combines the "
      "log's uncertainty with the table count's own.\n\n",
      st->log_nodes, st->log_gpus_per_node, span_d, kHbd, kLlama3Hosts, kLlama3GpusPerHost,
      kLlama3Days, kLlama3Table);
  b += "The mapping of the table's 18 causes (counts sum to " + std::to_string(st->table_total) +
       ") to the log's kinds and hardware components, stated before measuring:\n\n"
       "| group | Llama 3 causes | InfiniteHBD classes |\n|---|---|---|\n";
  for (const RateComparison& r : st->rows) {
    if (r.group == "all kinds") continue;
    b += fmt::format("| {} | {} | {} |\n", r.group, r.table_causes, r.log_causes);
  }
  b += "\nNCCL watchdog timeouts (the table's category Unknown) count as software, as in "
       "`scenarios/failures/llama3.yaml`; unplanned host maintenance is the log's Other "
       "Failure (a host taken out for checks, like the log's stress tests, changes and "
       "troubleshooting). The profile counts maintenance as software; its check below uses "
       "the profile's split.\n\n";
  b += claim_header();
  for (const RateComparison& r : st->rows) {
    Claim c;
    c.statement = fmt::format("Llama 3 interruptions from the InfiniteHBD rate: {}", r.group);
    c.source = "Llama 3 Table 5";
    c.published = count_ci(static_cast<double>(r.table_events), r.table_lo, r.table_hi);
    c.ntpsim = fmt::format("{} (log: {} in {:.0f} {}-days)",
                           count_ci(r.predicted, r.predicted_lo, r.predicted_hi), r.log_events,
                           r.log_exposure_s / kSecondsPerDay, r.per);
    c.difference = "rate ratio " + ratio_text(r);
    c.tolerance = "ratio's 95% CI contains 1";
    c.agrees = r.agrees;
    b += doc.claim(c);
  }
  int agree = 0;
  for (const RateComparison& r : st->rows) agree += r.agrees ? 1 : 0;
  b += fmt::format(
      "\n{} of {} comparisons agree. The two are different things counted differently: the "
      "table counts interruptions of one synchronous job after root-causing each (a fault on an "
      "idle or drained server, or a redundant part's, never interrupts it), the log counts every "
      "server fault of a production cluster with its stress tests and unknown errors; the GPU "
      "generation, the cluster's age and the operators' triage differ too. The total rate "
      "transfers within its interval; the mix by kind does not, and a planner should not take "
      "one cluster's mix for another's. The rows that differ are expected failures in "
      "tests/validation (`KnownDifference.Llama3Rates*`).\n\n",
      agree, st->rows.size());

  // The shipped profile through the failure source.
  const RateComparison* hw = nullptr;
  for (const RateComparison& r : st->rows) {
    if (r.group == "Hardware Failure") hw = &r;
  }
  if (hw == nullptr) return Error::runtime("the rate study has no hardware row");
  const int reps = doc.samples(kLlama3ProfileReps, 10);
  auto pc =
      profile_event_counts(doc.scenario(kLlama3), doc.scenario(kLlama3Profile), kLlama3Days, reps);
  if (!pc.ok()) return pc.error();
  b += fmt::format(
      "The shipped profile `{}` included over `{}` and run by the failure source for {:.0f} days "
      "({} replications, seed {}): its failure events by kind (mean per replication) against "
      "the table's split as the profile reads it (hardware = GPU + network + host causes; "
      "software = the rest). It agrees when the mean lies inside the published count's exact "
      "Poisson 95% interval.\n\n",
      kLlama3Profile, kLlama3, kLlama3Days, reps, pc->seed);
  b += claim_header();
  const int64_t published[2] = {hw->table_events, st->table_total - hw->table_events};
  const char* names[2] = {"hardware", "software"};
  for (int i = 0; i < 2; ++i) {
    const auto it = std::find(pc->kinds.begin(), pc->kinds.end(), names[i]);
    if (it == pc->kinds.end()) {
      return Error::runtime(fmt::format("{}: no kind \"{}\"", kLlama3Profile, names[i]));
    }
    const double model = pc->mean[static_cast<size_t>(it - pc->kinds.begin())];
    const sim::RateEstimate ci = sim::poisson_rate(published[i], 1.0);
    Claim c;
    c.statement = fmt::format("Llama 3 profile, 54 days on 16,384 H100: {} failures", names[i]);
    c.source = "Llama 3 Table 5";
    c.published = count_ci(static_cast<double>(published[i]), ci.lo_per_s, ci.hi_per_s);
    c.ntpsim = fmt::format("{:.1f}", model);
    c.difference = fmt::format("{:+.1f}%", (model / static_cast<double>(published[i]) - 1) * 100);
    c.tolerance = "inside the count's 95% CI";
    c.agrees = ci.lo_per_s <= model && model <= ci.hi_per_s;
    b += doc.claim(c);
  }
  b += "\n";
  doc.seeds.push_back(fmt::format("Llama 3 profile ({} over {}) | seed {}, {} replications",
                                  kLlama3Profile, kLlama3, pc->seed, reps));
  return Status::Ok();
}

}  // namespace ntpsim::validate
