// The recovery-cost table (recovery_costs.h). Sources are summarised in
// ../shared/docs/REFERENCES.md, "Recovery costs".
#include "sim/scenario/recovery_costs.h"

#include <fmt/format.h>

#include <array>

#include "models/base/units.h"

namespace ntpsim::sim {
namespace {

constexpr double kMin = 60.0;

// ByteCheckpoint (arXiv 2407.20143) Table 8: 405B Megatron on 8,960 GPUs, blocking part 0.59 s
// of a 51 s save.
constexpr double kByteCheckpointSaveS = 51.0;
constexpr double kByteCheckpointBlockingS = 0.59;

constexpr std::array<RecoveryCostRange, 7> kTable{{
    {"checkpoint.write", kByteCheckpointSaveS, kByteCheckpointSaveS, 5 * kMin, "s", 60.0,
     "full save 51 s (ByteCheckpoint arXiv 2407.20143 Table 8, 405B, 8,960 GPUs); 200 s on an "
     "older path (175B, 4,096 GPUs); w_cp about 5 min (Kokolis et al. arXiv 2410.21680, RSC "
     "8K-16K A100)"},
    {"checkpoint.async_exposed_fraction", kByteCheckpointBlockingS / kByteCheckpointSaveS, 0.01,
     1.0, "fraction", 1.0,
     "blocking part 0.59 s of 51 s (ByteCheckpoint Table 8, 405B, 8,960 GPUs); PyTorch DCP "
     "staging 0.78 s of a 67 s background write (PyTorch blog 2025, Llama 3 70B, 1,856 H200); "
     "100% = a blocking write (Kokolis et al.)"},
    {"checkpoint.restore", 129.0, 129.0, 5 * kMin, "s", 5 * kMin,
     "restore 129 s (ByteCheckpoint Table 8, 405B, 8,960 GPUs); full restoration about 150 s "
     "(FlashRecovery arXiv 2509.03047, 4,800 devices); 5 min is an assumption (a 5 min "
     "checkpoint read back)"},
    {"recovery.detection", 1 * kMin, 5.0, 10 * kMin, "s", 2 * kMin,
     "no measurement at scale of the value; range from \"within seconds\" (FlashRecovery, 4,800 "
     "devices) to the untuned PyTorch NCCL timeout of 10 min (a configured default); 1 min is a "
     "tuned watchdog between them"},
    {"recovery.restart", 5 * kMin, 30.0, 20 * kMin, "s", 10 * kMin,
     "re-initialisation u0 about 5-20 min, ETTR model uses 5 min (Kokolis et al. arXiv "
     "2410.21680, RSC 8K-16K A100); initialisation under 30 s at more than 10K GPUs "
     "(MegaScale arXiv 2402.15627)"},
    {"recovery.reconfigure", 1 * kMin, 1.0, 3 * kMin, "s", 1 * kMin,
     "not published for NTP (arXiv 2504.06095 restarts the job); the range spans in-place "
     "communicator rebuild under 1 s (TorchFT, PyTorch blog, 300 L40S) to dropping a DP replica "
     "in 3 min (FT-HSDP arXiv 2602.00277, O(100K) GPUs); 1 min is an assumption"},
    {"recovery.spare_swap", 1 * kMin, 20.0, 10 * kMin, "s", 5 * kMin,
     "in-job restart onto a spare about 1 min (nvidia-resiliency-ext, vendor); standby swap "
     "about 20 s (TrainMover arXiv 2412.12636, 1,024 GPUs); failover often more than 10 min "
     "(ByteRobust arXiv 2509.16293, 10K-16K GPUs)"},
}};

double* field_ptr(CheckpointConfig& ck, RecoveryConfig& rc, std::string_view field) {
  if (field == "checkpoint.write") return &ck.write_s;
  if (field == "checkpoint.async_exposed_fraction") return &ck.async_exposed_fraction;
  if (field == "checkpoint.restore") return &ck.restore_s;
  if (field == "recovery.detection") return &rc.detection_s;
  if (field == "recovery.restart") return &rc.restart_s;
  if (field == "recovery.reconfigure") return &rc.reconfigure_s;
  if (field == "recovery.spare_swap") return &rc.spare_swap_s;
  return nullptr;
}

std::string format_value(double v, std::string_view unit) {
  return unit == "fraction" ? units::format_fraction(v) : units::format_duration(v);
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
    *field_ptr(checkpoint, recovery, row.field) = sourced ? row.value : row.conservative;
  }
  return true;
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
  if (all(true)) return "sourced";
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

std::string recovery_cost_lines(const Scenario& s) {
  std::string out;
  for (const auto& row : kTable) {
    const double v = recovery_cost_value(s, row.field).value_or(row.value);
    out +=
        fmt::format("{} {} [{}-{}], source: {}\n", row.field, format_value(v, row.unit),
                    format_value(row.low, row.unit), format_value(row.high, row.unit), row.source);
  }
  return out;
}

}  // namespace ntpsim::sim
