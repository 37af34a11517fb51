#include "calibrate/raw_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "models/base/utf8.h"
#include "models/base/yaml_reader.h"

namespace ntpsim::calibrate {
namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// One data line split at commas, with the 1-based column where each field starts.
struct Fields {
  std::vector<std::string> text;
  std::vector<int> column;
};

Fields split(const std::string& line) {
  Fields f;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    const size_t end = comma == std::string::npos ? line.size() : comma;
    f.text.push_back(trim(line.substr(start, end - start)));
    f.column.push_back(static_cast<int>(start) + 1);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return f;
}

// Typed access to the fields of one row, with errors naming file:line:col and the column.
class RowReader {
 public:
  RowReader(const std::string& file, int line, const Fields& f,
            const std::map<std::string, size_t>& index)
      : file_(file), line_(line), f_(f), index_(index) {}

  Error error(const std::string& col, const std::string& what) const {
    const size_t i = index_.at(col);
    return Error::at(SourceLocation{file_, line_, f_.column[i]}, "column '" + col + "'", what);
  }
  const std::string& text(const std::string& col) const { return f_.text[index_.at(col)]; }
  bool present(const std::string& col) const { return index_.count(col) != 0; }

  // A finite number in [lo, hi]; an empty field is an error unless `optional` (then `out` = 0).
  Status number(const std::string& col, double& out, double lo, double hi, bool optional = false) const {
    const std::string& t = text(col);
    if (t.empty()) {
      if (optional) {
        out = 0.0;
        return Status::Ok();
      }
      return error(col, "is empty; expected a number");
    }
    double v = 0.0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v)) {
      return error(col, fmt::format("'{}' is not a number", t));
    }
    if (v < lo || v > hi) return error(col, fmt::format("{} is outside [{}, {}]", t, lo, hi));
    out = v;
    return Status::Ok();
  }

  Status integer(const std::string& col, int64_t& out, int64_t lo, int64_t hi) const {
    const std::string& t = text(col);
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size()) {
      return error(col, fmt::format("'{}' is not a whole number", t));
    }
    if (v < lo || v > hi) return error(col, fmt::format("{} is outside [{}, {}]", t, lo, hi));
    out = v;
    return Status::Ok();
  }

  Status integer(const std::string& col, int& out, int lo, int hi) const {
    int64_t v = 0;
    NTPSIM_RETURN_IF_ERROR(integer(col, v, lo, hi));
    out = static_cast<int>(v);
    return Status::Ok();
  }

  Status time(TimeStats& t) const {
    constexpr double kMaxS = 3600.0;  // one measurement longer than an hour is a unit mistake
    int64_t reps = 0;
    NTPSIM_RETURN_IF_ERROR(integer("reps", reps, 1, 1000000));
    t.reps = static_cast<int>(reps);
    NTPSIM_RETURN_IF_ERROR(number("time_median_s", t.median_s, 1e-12, kMaxS));
    NTPSIM_RETURN_IF_ERROR(number("time_p10_s", t.p10_s, 0, kMaxS));
    NTPSIM_RETURN_IF_ERROR(number("time_p90_s", t.p90_s, 0, kMaxS));
    NTPSIM_RETURN_IF_ERROR(number("time_min_s", t.min_s, 0, kMaxS));
    NTPSIM_RETURN_IF_ERROR(number("time_max_s", t.max_s, 0, kMaxS));
    const double slack = 1e-9 * t.median_s;
    if (t.min_s > t.median_s + slack || t.median_s > t.max_s + slack) {
      return error("time_median_s", "median is not between time_min_s and time_max_s");
    }
    t.mean_s = t.median_s;  // the mean is not stored; the median stands in for it
    return Status::Ok();
  }

 private:
  const std::string& file_;
  int line_;
  const Fields& f_;
  const std::map<std::string, size_t>& index_;
};

Status parse_gemm_row(const RowReader& r, int line, RawData& out) {
  GemmRow row;
  row.line = line;
  if (!parse_dtype(r.text("dtype"), row.request.dtype)) {
    return r.error("dtype",
                   fmt::format("'{}' is not a GEMM type (bf16, fp8, mxfp8)", r.text("dtype")));
  }
  // Files written before the layout column measured every GEMM as TN.
  if (r.present("layout") && !parse_layout(r.text("layout"), row.request.layout)) {
    return r.error("layout",
                   fmt::format("'{}' is not a GEMM layout (TN, NN, NT)", r.text("layout")));
  }
  constexpr int64_t kMaxDim = 1 << 24;
  NTPSIM_RETURN_IF_ERROR(r.integer("m", row.request.m, 1, kMaxDim));
  NTPSIM_RETURN_IF_ERROR(r.integer("n", row.request.n, 1, kMaxDim));
  NTPSIM_RETURN_IF_ERROR(r.integer("k", row.request.k, 1, kMaxDim));
  row.request.label = r.text("label");
  NTPSIM_RETURN_IF_ERROR(r.number("power_limit_w", row.power_limit_w, 1, 1e5, true));
  NTPSIM_RETURN_IF_ERROR(r.time(row.time));
  row.request.reps = row.time.reps;
  double samples = 0;
  NTPSIM_RETURN_IF_ERROR(r.number("power_samples", samples, 0, 1e9, true));
  row.power.samples = static_cast<int>(samples);
  if (row.power.samples > 0) {
    NTPSIM_RETURN_IF_ERROR(r.number("power_mean_w", row.power.mean_w, 1e-3, 1e5));
    NTPSIM_RETURN_IF_ERROR(r.number("power_max_w", row.power.max_w, 1e-3, 1e5));
    NTPSIM_RETURN_IF_ERROR(r.number("sm_clock_mean_mhz", row.power.sm_clock_mean_mhz, 1, 1e5));
    if (r.present("power_source")) {
      const std::string& src = r.text("power_source");
      if (src != "energy" && src != "samples" && !src.empty()) {
        return r.error("power_source", fmt::format("'{}' is not energy or samples", src));
      }
      row.power.energy_based = src == "energy";
    }
    if (r.present("gpu_temp_max_c")) {
      NTPSIM_RETURN_IF_ERROR(r.number("gpu_temp_max_c", row.power.temp_max_c, 0, 200, true));
    }
    if (r.present("clock_event_reasons") && !r.text("clock_event_reasons").empty()) {
      int64_t mask = 0;
      NTPSIM_RETURN_IF_ERROR(
          r.integer("clock_event_reasons", mask, 0, std::numeric_limits<int64_t>::max()));
      row.power.clock_event_reasons = static_cast<unsigned long long>(mask);
    }
  }
  double tflops = 0;  // derived column; checked against time so hand edits are caught
  NTPSIM_RETURN_IF_ERROR(r.number("tflops", tflops, 0, 1e6));
  const double expect = row.request.flops() / row.time.median_s / 1e12;
  if (std::fabs(tflops - expect) > 1e-3 * expect + 1e-9) {
    return r.error("tflops", fmt::format("{} does not match 2*m*n*k/time_median_s = {:.6g}",
                                         r.text("tflops"), expect));
  }
  out.gemm.push_back(row);
  return Status::Ok();
}

Status parse_collective_row(const RowReader& r, int line, RawData& out) {
  CollectiveRow row;
  row.line = line;
  if (!parse_collective(r.text("collective"), row.request.kind)) {
    return r.error("collective", fmt::format("'{}' is not a collective (all_reduce, all_gather, "
                                             "reduce_scatter, all_to_all, send_recv)",
                                             r.text("collective")));
  }
  row.fabric = r.text("fabric");
  if (row.fabric.empty()) return r.error("fabric", "is empty");
  NTPSIM_RETURN_IF_ERROR(r.integer("group_size", row.request.group_size, 2, 1 << 20));
  NTPSIM_RETURN_IF_ERROR(r.integer("bytes", row.request.bytes, 1, int64_t{1} << 44));
  NTPSIM_RETURN_IF_ERROR(r.time(row.time));
  row.request.reps = row.time.reps;
  double ignored = 0;  // algbw/busbw are derived; only their syntax is checked
  NTPSIM_RETURN_IF_ERROR(r.number("algbw_GBps", ignored, 0, 1e9));
  NTPSIM_RETURN_IF_ERROR(r.number("busbw_GBps", ignored, 0, 1e9));
  out.collectives.push_back(row);
  return Status::Ok();
}

Status parse_reshard_row(const RowReader& r, int line, RawData& out) {
  ReshardRow row;
  row.line = line;
  row.fabric = r.text("fabric");
  if (row.fabric.empty()) return r.error("fabric", "is empty");
  NTPSIM_RETURN_IF_ERROR(r.integer("tp", row.request.tp, 2, 1 << 20));
  NTPSIM_RETURN_IF_ERROR(r.integer("k", row.request.k, 1, row.request.tp - 1));
  NTPSIM_RETURN_IF_ERROR(r.integer("bytes_per_rank", row.request.bytes_per_rank, 1, int64_t{1} << 44));
  double ignored = 0;
  NTPSIM_RETURN_IF_ERROR(r.number("busiest_bytes", ignored, 0, 1e15));
  NTPSIM_RETURN_IF_ERROR(r.time(row.time));
  row.request.reps = row.time.reps;
  out.reshards.push_back(row);
  return Status::Ok();
}

}  // namespace

Result<RawData> parse_raw(const std::string& text, const std::string& name) {
  RawData data;
  data.file = name;
  // A byte order mark (editors on Windows write one) is not part of the first line.
  std::istringstream in{std::string(without_utf8_bom(text))};
  std::string line;
  int line_no = 0;
  int format_line = 0, kind_line = 0;
  std::vector<std::string> columns;
  std::map<std::string, size_t> index;
  const auto at = [&](int l, int col, const std::string& what) {
    return Error::at(SourceLocation{name, l, col}, "", what);
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    if (line[0] == '#') {
      const std::string body = line.substr(1);
      const size_t colon = body.find(':');
      if (!columns.empty()) {
        // After the columns only the points a run skipped: "# skipped: WHAT: REASON".
        const size_t sep = colon == std::string::npos ? colon : body.find(": ", colon + 1);
        if (colon == std::string::npos || trim(body.substr(0, colon)) != "skipped" ||
            sep == std::string::npos) {
          return at(line_no, 1,
                    "context line after the column header (only '# skipped: WHAT: REASON' "
                    "may follow it)");
        }
        data.skipped.push_back(
            {line_no, trim(body.substr(colon + 1, sep - colon - 1)), trim(body.substr(sep + 2))});
        continue;
      }
      if (colon == std::string::npos) {
        return at(line_no, 1, "context line must read '# key: value'");
      }
      const std::string key = trim(body.substr(0, colon));
      const std::string value = trim(body.substr(colon + 1));
      if (key == "format") {
        if (value != kRawFormat) {
          return at(line_no, 3, fmt::format("unsupported format '{}' (this ntpsim reads '{}')",
                                            value, kRawFormat));
        }
        format_line = line_no;
      } else if (key == "kind") {
        if (!parse_raw_kind(value, data.kind)) {
          return at(line_no, 3, fmt::format("unknown kind '{}' (gemm, power, collective, reshard)",
                                            value));
        }
        kind_line = line_no;
      }
      data.context.set(key, value);
      continue;
    }
    if (columns.empty()) {
      if (format_line == 0) return at(line_no, 1, fmt::format("missing '# format: {}' line before the columns; is this an ntpcal raw file?", kRawFormat));
      if (kind_line == 0) return at(line_no, 1, "missing '# kind: ...' line before the columns");
      const Fields f = split(line);
      const auto& want = raw_columns(data.kind);
      std::vector<std::string> allowed = want;
      for (const auto& c : raw_optional_columns(data.kind)) allowed.push_back(c);
      for (size_t i = 0; i < f.text.size(); ++i) {
        const std::string& c = f.text[i];
        if (std::find(allowed.begin(), allowed.end(), c) == allowed.end()) {
          const std::string near = nearest_key(c, allowed);
          return at(line_no, f.column[i],
                    fmt::format("unknown column '{}' for kind {}{}", c, to_string(data.kind),
                                near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near)));
        }
        if (!index.emplace(c, i).second) return at(line_no, f.column[i], fmt::format("duplicate column '{}'", c));
      }
      for (const auto& c : want) {
        if (!index.count(c)) return at(line_no, 1, fmt::format("missing column '{}'", c));
      }
      columns = f.text;
      continue;
    }
    const Fields f = split(line);
    if (f.text.size() != columns.size()) {
      return at(line_no, 1, fmt::format("expected {} fields, found {}", columns.size(), f.text.size()));
    }
    const RowReader r(name, line_no, f, index);
    Status s;
    switch (data.kind) {
      case RawKind::kGemm:
      case RawKind::kPower: s = parse_gemm_row(r, line_no, data); break;
      case RawKind::kCollective: s = parse_collective_row(r, line_no, data); break;
      case RawKind::kReshard: s = parse_reshard_row(r, line_no, data); break;
    }
    if (!s.ok()) return s.error();
  }
  if (columns.empty()) {
    return at(line_no, 0, format_line == 0 ? "not an ntpcal raw file (no '# format:' line, no columns)"
                                           : "no column header line");
  }
  return data;
}

Result<std::string> read_measurement_text(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Error::bad_input(
        fmt::format("{}: is a directory, expected a raw measurement file", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::bad_input(fmt::format("{}: cannot open raw measurement file", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<RawData> read_raw_file(const std::string& path) {
  auto text = read_measurement_text(path);
  if (!text.ok()) return text.error();
  return parse_raw(*text, path);
}

}  // namespace ntpsim::calibrate
