// The recovery-cost table (recovery_costs.h). Sources are summarised in
// ../shared/docs/REFERENCES.md, "Recovery costs".
#include "sim/scenario/recovery_costs.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "models/base/check.h"
#include "models/base/units.h"
#include "sim/scenario/fields.h"

namespace ntpsim::sim {
namespace {

constexpr double kMin = 60.0;

// ByteCheckpoint (arXiv 2407.20143) Table 8: 405B Megatron on 8,960 GPUs, blocking part 0.59 s
// of a 51 s save.
constexpr double kByteCheckpointSaveS = 51.0;
constexpr double kByteCheckpointBlockingS = 0.59;

// PyTorch blog "6x faster async checkpointing" (2025), Llama 3 70B on 1,856 H200: throughput
// dips from about 700 to 315-372 tokens/s during the 67 s background write.
constexpr double kDcpTokensPerS = 700.0;
constexpr double kDcpDipLowTokensPerS = 315.0;
constexpr double kDcpDipHighTokensPerS = 372.0;

// The restart's growth with the job size, from two published anchors: re-initialisation u0 = 5 min
// at 8K-16K GPUs (Kokolis et al., the ETTR model's value), and Meta's whole recovery stall of
// about 10 min at O(100K) GPUs (FT-HSDP arXiv 2602.00277), less the sourced detection (1 min)
// and restore (129 s): 6.85 min of restart at 100,000 GPUs.
constexpr double kRestartAtReferenceS = 5 * kMin;
constexpr double kRestartAt100kS = 10 * kMin - 1 * kMin - 129.0;
const double kRestartExponent =
    std::log(kRestartAt100kS / kRestartAtReferenceS) / std::log(1e5 / kSourcedRestartReferenceGpus);

const std::array<RecoveryCostRange, 9> kTable{{
    {"checkpoint.write", kByteCheckpointSaveS, kByteCheckpointSaveS, 5 * kMin, "s", 60.0,
     "full save 51 s (ByteCheckpoint arXiv 2407.20143 Table 8, 405B, 8,960 GPUs); 200 s on an "
     "older path (175B, 4,096 GPUs); w_cp about 5 min (Kokolis et al. arXiv 2410.21680, RSC "
     "8K-16K A100)"},
    {"checkpoint.async_exposed_fraction", kByteCheckpointBlockingS / kByteCheckpointSaveS, 0.01,
     1.0, "fraction", 1.0,
     "blocking part 0.59 s of 51 s (ByteCheckpoint Table 8, 405B, 8,960 GPUs); PyTorch DCP "
     "staging 0.78 s of a 67 s background write (PyTorch blog 2025, Llama 3 70B, 1,856 H200); "
     "100% = a blocking write (Kokolis et al.)"},
    {"checkpoint.async_slowdown",
     1.0 - 0.5 * (kDcpDipLowTokensPerS + kDcpDipHighTokensPerS) / kDcpTokensPerS, 0.0,
     1.0 - kDcpDipLowTokensPerS / kDcpTokensPerS, "fraction", 0.0,
     "throughput dips from about 700 to 315-372 tokens/s during the 67 s background write "
     "(PyTorch blog 2025, DCP, Llama 3 70B, 1,856 H200); 0 = a write that takes nothing from "
     "training (a bound, not a measurement)"},
    {"checkpoint.restore", 129.0, 129.0, 5 * kMin, "s", 5 * kMin,
     "restore 129 s (ByteCheckpoint Table 8, 405B, 8,960 GPUs); full restoration about 150 s, "
     "nearly constant with scale (FlashRecovery arXiv 2509.03047, 4,800 devices): not scaled "
     "with the job size; 5 min is an assumption (a 5 min checkpoint read back)"},
    {"recovery.detection", 1 * kMin, 5.0, 10 * kMin, "s", 2 * kMin,
     "no measurement at scale of the value; range from \"within seconds\" (FlashRecovery, 4,800 "
     "devices) to the untuned PyTorch NCCL timeout of 10 min (a configured default); 1 min is a "
     "tuned watchdog between them"},
    {"recovery.restart", kRestartAtReferenceS, 30.0, 20 * kMin, "s", 10 * kMin,
     "re-initialisation u0 about 5-20 min, ETTR model uses 5 min (Kokolis et al. arXiv "
     "2410.21680, RSC 8K-16K A100); initialisation under 30 s at more than 10K GPUs "
     "(MegaScale arXiv 2402.15627); sourced: given at 16,384 GPUs, scaled by "
     "recovery.restart_scaling"},
    {"recovery.restart_scaling.exponent", kRestartExponent, 0.0, 0.4, "exponent", 0.0,
     "restart ~ (job GPUs / 16,384)^a: 5 min at 16,384 GPUs (Kokolis et al.) and 6.85 min at "
     "100,000 (FT-HSDP arXiv 2602.00277: about 10 min whole stall at O(100K) GPUs, less 1 min "
     "detection and 129 s restore); 0 = scale-free (MegaScale's initialisation, under 30 s "
     "beyond 10K GPUs); 0.4 = doubling from 16K to 100K GPUs (an assumption)"},
    {"recovery.reconfigure", 1 * kMin, 1.0, 3 * kMin, "s", 1 * kMin,
     "not published for NTP (arXiv 2504.06095 restarts the job); the range spans in-place "
     "communicator rebuild under 1 s (TorchFT, PyTorch blog, 300 L40S) to dropping a DP replica "
     "in 3 min (FT-HSDP arXiv 2602.00277, O(100K) GPUs); 1 min is an assumption"},
    {"recovery.spare_swap", 1 * kMin, 20.0, 10 * kMin, "s", 5 * kMin,
     "in-job restart onto a spare about 1 min (nvidia-resiliency-ext, vendor); standby swap "
     "about 20 s (TrainMover arXiv 2412.12636, 1,024 GPUs); failover often more than 10 min "
     "(ByteRobust arXiv 2509.16293, 10K-16K GPUs)"},
}};

// The double behind a table row's field path ("checkpoint.write"): the field table's row for it
// (fields.h), so the table names no member by hand; the scaling's exponent is inside a
// cost_scaling row.
double* field_ptr(CheckpointConfig& ck, RecoveryConfig& rc, std::string_view field) {
  using namespace scenario_internal;
  if (field == "recovery.restart_scaling.exponent") return &rc.restart_scaling.exponent;
  if (field.starts_with("checkpoint.")) {
    const auto* f =
        find_field(checkpoint_fields(), field.substr(std::string_view("checkpoint.").size()));
    return f != nullptr && f->number != nullptr ? &(ck.*(f->number)) : nullptr;
  }
  if (field.starts_with("recovery.")) {
    const auto* f =
        find_field(recovery_fields(), field.substr(std::string_view("recovery.").size()));
    return f != nullptr && f->number != nullptr ? &(rc.*(f->number)) : nullptr;
  }
  return nullptr;
}

std::string format_value(double v, std::string_view unit) {
  if (unit == "exponent") return fmt::format("{:.3g}", v);
  return unit == "fraction" ? units::format_fraction(v) : units::format_duration(v);
}

// Three significant digits: a table line or a comment, not a value to read back.
std::string approx_duration(double v) {
  return v >= 60 ? fmt::format("{:.3g}min", v / 60) : fmt::format("{:.3g}s", v);
}

}  // namespace

std::span<const RecoveryCostRange> recovery_cost_ranges() {
  return kTable;
}

bool apply_recovery_profile(std::string_view profile, CheckpointConfig& checkpoint,
                            RecoveryConfig& recovery) {
  const bool sourced = profile == "sourced";
  if (!sourced && profile != "conservative") return false;
  for (const auto& row : kTable) {
    double* field = field_ptr(checkpoint, recovery, row.field);
    NTPSIM_CHECK_MSG(field != nullptr, "a recovery cost row names no field");
    *field = sourced ? row.value : row.conservative;
  }
  recovery.restart_scaling.reference_gpus = sourced ? kSourcedRestartReferenceGpus : 0.0;
  return true;
}

std::vector<std::string> recovery_profile_overrides(std::string_view profile) {
  const bool sourced = profile == "sourced";
  if (!sourced && profile != "conservative") return {};
  std::vector<std::string> out;
  for (const auto& row : kTable) {
    if (row.field == "recovery.restart_scaling.exponent") continue;  // with its reference below
    const double v = sourced ? row.value : row.conservative;
    out.push_back(fmt::format("{}={}", row.field,
                              row.unit == "s"          ? units::format_duration_exact(v)
                              : row.unit == "fraction" ? units::format_fraction_exact(v)
                                                       : units::format_number_exact(v)));
  }
  CheckpointConfig ck;
  RecoveryConfig rc;
  apply_recovery_profile(profile, ck, rc);
  const CostScaling& sc = rc.restart_scaling;
  out.push_back(sc.scales()
                    ? fmt::format("recovery.restart_scaling={{reference_gpus: {}, exponent: {}}}",
                                  units::format_number_exact(sc.reference_gpus),
                                  units::format_number_exact(sc.exponent))
                    : std::string("recovery.restart_scaling=none"));
  return out;
}

double scaled_cost_s(double value_s, const CostScaling& scaling, double job_gpus) {
  if (!scaling.scales() || scaling.exponent == 0 || !(job_gpus > 0)) return value_s;
  return value_s * std::pow(job_gpus / scaling.reference_gpus, scaling.exponent);
}

std::string recovery_profile_of(const Scenario& s) {
  const auto all = [&](bool sourced) {
    for (const auto& row : kTable) {
      if (recovery_cost_value(s, row.field) != (sourced ? row.value : row.conservative)) {
        return false;
      }
    }
    return true;
  };
  if (all(true) && s.recovery.restart_scaling.reference_gpus == kSourcedRestartReferenceGpus) {
    return "sourced";
  }
  if (all(false)) return "conservative";
  return "custom";
}

std::optional<double> recovery_cost_value(const Scenario& s, std::string_view field) {
  CheckpointConfig ck = s.checkpoint;
  RecoveryConfig rc = s.recovery;
  const double* p = field_ptr(ck, rc, field);
  if (p == nullptr) return std::nullopt;
  return *p;
}

std::string recovery_cost_summary(const Scenario& s, double job_gpus) {
  const auto mark = [](std::string_view field) {
    for (const auto& row : kTable) {
      if (row.field == field) {
        return row.source.starts_with("not published") || row.source.starts_with("no measurement")
                   ? "*"
                   : "";
      }
    }
    return "";
  };
  const auto& ck = s.checkpoint;
  const auto& rc = s.recovery;
  const auto d = approx_duration;
  const auto f = [](double v) { return fmt::format("{:.3g}%", v * 100); };
  return fmt::format(
      "{} profile: detection {}{}, restart {} + restore {} at {:.0f} GPUs, checkpoint write {} "
      "(blocking {}, then {} slower in the background), reconfigure {}{}, spare swap {} (* no "
      "published measurement of the value; ranges and sources: ntpsim check)",
      recovery_profile_of(s), d(rc.detection_s), mark("recovery.detection"),
      d(scaled_cost_s(rc.restart_s, rc.restart_scaling, job_gpus)),
      d(scaled_cost_s(ck.restore_s, ck.restore_scaling, job_gpus)), job_gpus, d(ck.write_s),
      f(ck.async_exposed_fraction), f(ck.async_slowdown), d(rc.reconfigure_s),
      mark("recovery.reconfigure"), d(rc.spare_swap_s));
}

std::string recovery_cost_lines(const Scenario& s) {
  const double job_gpus = static_cast<double>(s.layout.gpus());
  const auto at_job = [&](double v, const CostScaling& c) {
    if (!c.scales()) return std::string();
    return fmt::format(" at {:.0f} GPUs x (GPUs / {:.0f})^{:.3g}: {} at this job's {:.0f} GPUs",
                       c.reference_gpus, c.reference_gpus, c.exponent,
                       approx_duration(scaled_cost_s(v, c, job_gpus)), job_gpus);
  };
  std::string out;
  for (const auto& row : kTable) {
    const double v = recovery_cost_value(s, row.field).value_or(row.value);
    std::string scaled;
    if (row.field == "recovery.restart") scaled = at_job(v, s.recovery.restart_scaling);
    if (row.field == "checkpoint.restore") scaled = at_job(v, s.checkpoint.restore_scaling);
    out +=
        fmt::format("{} {}{} [{}-{}], source: {}\n", row.field, format_value(v, row.unit), scaled,
                    format_value(row.low, row.unit), format_value(row.high, row.unit), row.source);
  }
  return out;
}

}  // namespace ntpsim::sim
