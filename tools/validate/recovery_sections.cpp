// Recovery costs against the public record, as sections of docs/VALIDATION.md: Llama 3's 54-day
// run (interruptions and effective training time) under each recovery profile, and the ratio of
// a whole-job restart to a dropped replica's recovery at 100K GPUs (FT-HSDP).
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "sim/scenario/recovery_costs.h"
#include "tools/validate/claims.h"
#include "tools/validate/doc_builder.h"
#include "tools/validate/studies.h"

namespace ntpsim::validate {
namespace {

namespace pub = published;

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Status llama3_section(Doc& doc) {
  const int reps = doc.samples(40, 8);
  std::string& b = doc.body;
  b += "## Recovery costs: Llama 3's 54 days on 16,384 H100\n\n";
  b += fmt::format(
      "`{}` (Llama 3 405B, TP 8 x PP 16 x DP 128, the Llama 3 failure rate) over Meta's 54-day "
      "window with `checkpoint_restart` (the job restarts on every interruption), 256 spare "
      "servers (a replacement host is always there: Meta's pool is not published), {} "
      "replications, under each recovery profile (every cost of `ntpsim check`'s table set to "
      "the profile's value). Meta reports 419 unexpected interruptions and an effective "
      "training time above 90% (arXiv 2407.21783, §3.3.4). Meta's effective training time is "
      "a share of wall time: the time spent training on data the job keeps, whatever its pace "
      "(its ETT: time consuming new data over end-to-end wall time). ntpsim's "
      "`effective_training_time` is that share; goodput, a share of the ideal work, also counts "
      "the throughput a background checkpoint write takes as lost, so it is the lower of the "
      "two.\n\n",
      kLlama3, reps);
  b += "| costs | C per checkpoint | restart + restore | interval | interruptions | rollback | "
       "recovery | checkpoint | goodput | effective training time |\n"
       "|---|---|---|---|---|---|---|---|---|---|\n";
  struct Row {
    const char* name;
    std::vector<std::string> overrides;
  };
  const std::vector<Row> runs = {
      {"sourced", sim::recovery_profile_overrides("sourced")},
      {"sourced, write not slowing training",
       with(sim::recovery_profile_overrides("sourced"), {"checkpoint.async_slowdown=0"})},
      {"conservative", sim::recovery_profile_overrides("conservative")}};
  std::vector<RecoveryWindow> w;
  for (const Row& row : runs) {
    auto r = llama3_window(doc.scenario(kLlama3), row.overrides, reps, doc.options.threads);
    if (!r.ok()) return r.error();
    w.push_back(*r);
    b +=
        fmt::format("| {} | {:.1f} s | {:.1f} min | {:.0f} s | {:.1f} | {} | {} | {} | {} | {} |\n",
                    row.name, r->checkpoint_cost_s, r->restart_s / 60, r->interval_s,
                    r->interruptions, pct(r->rollback, 1), pct(r->recovery, 1),
                    pct(r->checkpoint, 1), pct(r->goodput, 1), pct(r->effective_training, 1));
  }
  const RecoveryWindow& s = w[0];
  std::string rows;
  rows += doc.claim(
      {"unexpected interruptions in 54 days", "Llama 3, Table 5",
       fmt::format("{}", pub::kLlama3Interruptions), fmt::format("{:.1f}", s.interruptions),
       fmt::format("{:+.2f}%", (s.interruptions / pub::kLlama3Interruptions - 1) * 100),
       fmt::format("±{:.0f}%", pub::kFailureCountTol * 100),
       std::abs(s.interruptions / pub::kLlama3Interruptions - 1) <= pub::kFailureCountTol});
  rows += doc.claim(
      {"effective training time, sourced recovery costs", "Llama 3, §3.3.4",
       fmt::format("> {}", pct(pub::kLlama3EffectiveTrainingMin, 0)), pct(s.effective_training, 1),
       fmt::format("{:+.1f} pt", (s.effective_training - pub::kLlama3EffectiveTrainingMin) * 100),
       "above the bound", s.effective_training > pub::kLlama3EffectiveTrainingMin});
  b += "\n";
  b += claim_header();
  b += rows;
  b += "\n";
  b += fmt::format(
      "C is the work lost per checkpoint: the blocking part plus the throughput the background "
      "write takes (`checkpoint.async_slowdown`, sourced from PyTorch DCP's dip to about half "
      "its throughput for the 67 s of the write). Rollback follows the checkpoint interval, "
      "which follows C. With the sourced costs the effective training time is {} and goodput "
      "{}: the background write slows training without stopping it, so it lowers goodput and "
      "not Meta's measure. The conservative profile (ntpsim's earlier defaults: 2 min "
      "detection, 10 min restart, 5 min restore, a 60 s blocking write) gives {} effective "
      "training time ({} goodput); a background write that does not slow training {} ({}). "
      "Meta does not publish its checkpoint's exposed cost; the only published slowdown is "
      "DCP's, measured on another system (1,856 H200, Llama 3 70B).\n\n",
      pct(w[0].effective_training, 1), pct(w[0].goodput, 1), pct(w[2].effective_training, 1),
      pct(w[2].goodput, 1), pct(w[1].effective_training, 1), pct(w[1].goodput, 1));
  doc.seeds.push_back(fmt::format("Recovery costs, Llama 3 window ({}) | seed {}, {} replications",
                                  kLlama3, s.seed, reps));
  return Status::Ok();
}

Status restart_vs_drop_section(Doc& doc) {
  auto st = restart_vs_drop(doc.scenario(kLlama3), sim::recovery_profile_overrides("sourced"));
  if (!st.ok()) return st.error();
  const double ratio = st->restart_s / st->drop_s;
  const double published = pub::kFtHsdpRestartMin / pub::kFtHsdpDropMin;
  std::string& b = doc.body;
  b += "## Recovery costs: whole-job restart vs a dropped replica at 100K GPUs\n\n";
  b += fmt::format(
      "`{}` scaled to {:.0f} GPUs (DP 768), sourced recovery costs. A whole-job restart stalls "
      "the job for detection + restart at this size + restore = {:.1f} min; `dp_drop` "
      "recovering in place stalls it for detection + reconfiguration + state transfer, and once "
      "more for the reconfiguration that takes the repaired replica back = {:.1f} min. FT-HSDP "
      "reports about {:.0f} and {:.0f} min at O(100K) GPUs. The restart side is not "
      "independent: the sourced restart scaling is derived from FT-HSDP's 10 min (less "
      "detection and restore), so only the replica side and the ratio test anything, and the "
      "replica side rests on the 1 min reconfiguration, which is an assumption (no in-place "
      "replica drop time is published for this scale).\n\n",
      kLlama3, st->job_gpus, st->restart_s / 60, st->drop_s / 60, pub::kFtHsdpRestartMin,
      pub::kFtHsdpDropMin);
  b += claim_header();
  b += doc.claim({"whole-job restart / replica-drop stall", "FT-HSDP arXiv 2602.00277",
                  fmt::format("{:.2f}", published), fmt::format("{:.2f}", ratio),
                  fmt::format("{:+.0f}%", (ratio / published - 1) * 100),
                  fmt::format("±{:.0f}%", pub::kFtHsdpRatioTol * 100),
                  std::abs(ratio / published - 1) <= pub::kFtHsdpRatioTol});
  b += "\n";
  return Status::Ok();
}

}  // namespace

Status recovery_sections(Doc& doc) {
  NTPSIM_RETURN_IF_ERROR(llama3_section(doc));
  NTPSIM_RETURN_IF_ERROR(restart_vs_drop_section(doc));
  return Status::Ok();
}

}  // namespace ntpsim::validate
