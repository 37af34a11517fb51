// Reading raw measurement files (format "ntpcal-raw/1", see raw_csv.h) into typed rows.
//
// Every malformed input is an Error (exit code 2) that names file:line:col and the column:
// missing format or kind lines, an unknown format version, missing or unknown columns, a wrong
// field count, numbers that do not parse or are out of range (non-positive times, k >= tp, ...).
// Part of the CPU library ntpsim_calibrate (uses fmt). Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "calibrate/backend.h"
#include "calibrate/raw_csv.h"
#include "models/base/status.h"

namespace ntpsim::calibrate {

struct GemmRow {
  int line = 0;                 // 1-based line in the file
  GemmRequest request;          // dtype, m, n, k, label, reps
  TimeStats time;
  PowerStats power;             // samples == 0 when the file has no power for this row
  double power_limit_w = 0.0;   // 0 when not recorded
};

struct CollectiveRow {
  int line = 0;
  std::string fabric;           // "scale_up" or "scale_out" (any label; the fitter checks)
  CollectiveRequest request;
  TimeStats time;
};

struct ReshardRow {
  int line = 0;
  std::string fabric;
  ReshardRequest request;
  TimeStats time;
};

// A point the run could not measure (`# skipped: WHAT: REASON` after the column line).
struct SkippedPoint {
  int line = 0;
  std::string what;
  std::string reason;
};

// One raw file. Only the vector that matches `kind` is filled (gemm rows for kinds gemm and power).
struct RawData {
  std::string file;
  RawKind kind = RawKind::kGemm;
  RawContext context;
  std::vector<GemmRow> gemm;
  std::vector<CollectiveRow> collectives;
  std::vector<ReshardRow> reshards;
  std::vector<SkippedPoint> skipped;

  size_t rows() const { return gemm.size() + collectives.size() + reshards.size(); }
};

// Parses raw text; `name` is the file name used in messages.
Result<RawData> parse_raw(const std::string& text, const std::string& name);
// Reads and parses a file. A missing or unreadable file is a bad-input error.
Result<RawData> read_raw_file(const std::string& path);
// The whole text of a measurement file (ntpcal raw CSV or an nccl-tests log); bad input for a
// directory or an unreadable path.
Result<std::string> read_measurement_text(const std::string& path);

}  // namespace ntpsim::calibrate
