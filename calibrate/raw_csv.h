// The raw measurement file that `ntpcal` writes and `ntpsim fit` reads (format "ntpcal-raw/1").
//
// A raw file is UTF-8 text: first a context header of `# key: value` lines (format, kind, GPU
// model and count, driver, CUDA, cuBLAS and NCCL versions, clocks, power limit, hostname, date,
// git SHA, ...), then one CSV header line naming the columns, then one row per measurement point.
// Rows are written and flushed one at a time, so a run that fails or times out keeps every
// measurement it completed. Columns per kind are listed by `raw_columns()`; readers find them by
// name (order is free; extra columns are an error so that typos do not pass silently).
//
// The writer is plain C++ (it is compiled into `ntpcal`); the reader is in raw_reader.h.
// Thread safety: a RawWriter is used by one thread.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/backend.h"
#include "models/base/status.h"

namespace ntpsim::calibrate {

inline constexpr const char* kRawFormat = "ntpcal-raw/1";

// gemm: GEMM timings (with power/clock). power: the same columns, from the power subcommand.
// collective: NCCL collectives. reshard: the NTP gradient reshard pattern.
enum class RawKind { kGemm, kPower, kCollective, kReshard };
const char* to_string(RawKind k);
bool parse_raw_kind(const std::string& text, RawKind& out);
const std::vector<std::string>& raw_columns(RawKind k);
// Columns a file may carry after those (readers accept files without them): for gemm and power,
// `power_source` (energy: the mean from NVML's energy counter; samples: of power readings),
// `gpu_temp_max_c` and `clock_event_reasons` (NVML's mask, decimal, OR over the run), and
// `layout` (TN, NN or NT; files without it were all measured TN).
// After the column line a file may also hold `# skipped: WHAT: REASON` lines: points the run
// could not measure (a refused shape or type, out of memory for one shape) and why.
const std::vector<std::string>& raw_optional_columns(RawKind k);

// The `# key: value` header, in insertion order. Keys are lower_snake_case; values one line.
class RawContext {
 public:
  // Sets or replaces `key`. Newlines in the value are replaced by spaces.
  void set(const std::string& key, const std::string& value);
  // The value, or "" when absent.
  std::string get(const std::string& key) const;
  bool has(const std::string& key) const;
  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

// Formats a double with 9 significant digits in the C locale ("nan" never appears: non-finite
// values are written as an empty field).
std::string format_number(double v);

class RawWriter {
 public:
  // Opens `path` for writing ("-" writes to stdout) and writes the context header (the format
  // and kind lines first) and the column line. Errors: the file cannot be created (runtime).
  static Result<RawWriter> open(const std::string& path, RawKind kind, const RawContext& context);

  RawWriter(RawWriter&&) noexcept = default;
  RawWriter& operator=(RawWriter&&) noexcept = default;
  RawWriter(const RawWriter&) = delete;
  RawWriter& operator=(const RawWriter&) = delete;
  ~RawWriter() = default;

  // Each appends one row and flushes it. REQUIRES: the writer's kind matches.
  Status write_gemm(const GemmRequest& r, const GemmMeasurement& m, double power_limit_w);
  Status write_collective(const CollectiveRequest& r, const CollectiveMeasurement& m,
                          const std::string& fabric);
  Status write_reshard(const ReshardRequest& r, const ReshardMeasurement& m,
                       const std::string& fabric);
  // Appends a `# skipped: what: reason` line (not a row: rows() is unchanged) and flushes it.
  Status write_skipped(const std::string& what, const std::string& reason);

  RawKind kind() const { return kind_; }
  int rows() const { return rows_; }
  const std::string& path() const { return path_; }

 private:
  struct Closer {
    bool owned = true;
    void operator()(std::FILE* f) const {
      if (owned && f != nullptr) std::fclose(f);
    }
  };
  RawWriter(std::FILE* f, bool owned, RawKind kind, std::string path)
      : file_(f, Closer{owned}), kind_(kind), path_(std::move(path)) {}
  Status write_line(const std::string& line, bool is_row = true);

  std::unique_ptr<std::FILE, Closer> file_;
  RawKind kind_;
  std::string path_;
  int rows_ = 0;
};

}  // namespace ntpsim::calibrate
