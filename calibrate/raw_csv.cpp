#include "calibrate/raw_csv.h"

#include <cmath>
#include <cstdio>

#include "models/base/check.h"

namespace ntpsim::calibrate {

const char* to_string(RawKind k) {
  switch (k) {
    case RawKind::kGemm: return "gemm";
    case RawKind::kPower: return "power";
    case RawKind::kCollective: return "collective";
    case RawKind::kReshard: return "reshard";
  }
  return "?";
}

bool parse_raw_kind(const std::string& text, RawKind& out) {
  for (const RawKind k : {RawKind::kGemm, RawKind::kPower, RawKind::kCollective, RawKind::kReshard}) {
    if (text == to_string(k)) {
      out = k;
      return true;
    }
  }
  return false;
}

const std::vector<std::string>& raw_optional_columns(RawKind k) {
  static const std::vector<std::string> kGemm = {"power_source", "gpu_temp_max_c",
                                                 "clock_event_reasons", "layout"};
  static const std::vector<std::string> kNone;
  return k == RawKind::kGemm || k == RawKind::kPower ? kGemm : kNone;
}

const std::vector<std::string>& raw_columns(RawKind k) {
  static const std::vector<std::string> kGemm = {
      "dtype", "m", "n", "k", "label", "power_limit_w", "reps", "time_median_s", "time_p10_s",
      "time_p90_s", "time_min_s", "time_max_s", "tflops", "power_samples", "power_mean_w",
      "power_max_w", "sm_clock_mean_mhz"};
  static const std::vector<std::string> kCollective = {
      "collective", "fabric", "group_size", "bytes", "reps", "time_median_s", "time_p10_s",
      "time_p90_s", "time_min_s", "time_max_s", "algbw_GBps", "busbw_GBps"};
  static const std::vector<std::string> kReshard = {
      "fabric", "tp", "k", "bytes_per_rank", "busiest_bytes", "reps", "time_median_s",
      "time_p10_s", "time_p90_s", "time_min_s", "time_max_s"};
  switch (k) {
    case RawKind::kGemm:
    case RawKind::kPower: return kGemm;
    case RawKind::kCollective: return kCollective;
    case RawKind::kReshard: return kReshard;
  }
  return kGemm;
}

void RawContext::set(const std::string& key, const std::string& value) {
  std::string v = value;
  for (char& c : v) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  for (auto& [k, old] : entries_) {
    if (k == key) {
      old = v;
      return;
    }
  }
  entries_.emplace_back(key, v);
}

std::string RawContext::get(const std::string& key) const {
  for (const auto& [k, v] : entries_) {
    if (k == key) return v;
  }
  return {};
}

bool RawContext::has(const std::string& key) const {
  for (const auto& [k, v] : entries_) {
    if (k == key) return true;
  }
  return false;
}

std::string format_number(double v) {
  if (!std::isfinite(v)) return {};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

Result<RawWriter> RawWriter::open(const std::string& path, RawKind kind,
                                  const RawContext& context) {
  std::FILE* f = nullptr;
  const bool to_stdout = path == "-";
  if (to_stdout) {
    f = stdout;
  } else {
    f = std::fopen(path.c_str(), "w");
    if (f == nullptr) return Error::runtime("cannot create raw file '" + path + "'");
  }
  RawWriter w(f, !to_stdout, kind, path);
  std::string head = std::string("# format: ") + kRawFormat + "\n# kind: " + to_string(kind) + "\n";
  for (const auto& [k, v] : context.entries()) {
    if (k == "format" || k == "kind") continue;
    head += "# " + k + ": " + v + "\n";
  }
  const auto& cols = raw_columns(kind);
  for (size_t i = 0; i < cols.size(); ++i) head += (i ? "," : "") + cols[i];
  for (const auto& c : raw_optional_columns(kind)) head += "," + c;
  NTPSIM_RETURN_IF_ERROR(w.write_line(head));
  w.rows_ = 0;
  return w;
}

Status RawWriter::write_line(const std::string& line, bool is_row) {
  if (std::fputs(line.c_str(), file_.get()) < 0 || std::fputc('\n', file_.get()) == EOF ||
      std::fflush(file_.get()) != 0) {
    return Error::runtime("cannot write to raw file '" + path_ + "'");
  }
  if (is_row) ++rows_;
  return Status::Ok();
}

Status RawWriter::write_skipped(const std::string& what, const std::string& reason) {
  std::string line = "# skipped: " + what + ": " + reason;
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return write_line(line, false);
}

namespace {

std::string join(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + fields[i];
  return out;
}

std::string clean_label(std::string s) {
  for (char& c : s) {
    if (c == ',' || c == '\n' || c == '\r' || c == '"') c = ';';
  }
  return s;
}

std::string integer(int64_t v) { return std::to_string(v); }

void append_time(std::vector<std::string>& f, const TimeStats& t) {
  f.push_back(integer(t.reps));
  for (const double v : {t.median_s, t.p10_s, t.p90_s, t.min_s, t.max_s}) {
    f.push_back(format_number(v));
  }
}

}  // namespace

Status RawWriter::write_gemm(const GemmRequest& r, const GemmMeasurement& m,
                             double power_limit_w) {
  NTPSIM_CHECK(kind_ == RawKind::kGemm || kind_ == RawKind::kPower);
  std::vector<std::string> f = {to_string(r.dtype), integer(r.m), integer(r.n), integer(r.k),
                                clean_label(r.label),
                                power_limit_w > 0 ? format_number(power_limit_w) : ""};
  append_time(f, m.time);
  f.push_back(format_number(m.time.median_s > 0 ? r.flops() / m.time.median_s / 1e12 : 0.0));
  f.push_back(integer(m.power.samples));
  const bool has_power = m.power.samples > 0;
  f.push_back(has_power ? format_number(m.power.mean_w) : "");
  f.push_back(has_power ? format_number(m.power.max_w) : "");
  f.push_back(has_power ? format_number(m.power.sm_clock_mean_mhz) : "");
  f.push_back(has_power ? (m.power.energy_based ? "energy" : "samples") : "");
  f.push_back(has_power && m.power.temp_max_c > 0 ? format_number(m.power.temp_max_c) : "");
  f.push_back(has_power ? std::to_string(m.power.clock_event_reasons) : "");
  f.push_back(to_string(r.layout));
  return write_line(join(f));
}

Status RawWriter::write_collective(const CollectiveRequest& r, const CollectiveMeasurement& m,
                                   const std::string& fabric) {
  NTPSIM_CHECK(kind_ == RawKind::kCollective);
  std::vector<std::string> f = {to_string(r.kind), clean_label(fabric), integer(r.group_size),
                                integer(r.bytes)};
  append_time(f, m.time);
  const double algbw = m.time.median_s > 0 ? static_cast<double>(r.bytes) / m.time.median_s : 0.0;
  f.push_back(format_number(algbw / 1e9));
  f.push_back(format_number(algbw * bus_factor(r.kind, r.group_size) / 1e9));
  return write_line(join(f));
}

Status RawWriter::write_reshard(const ReshardRequest& r, const ReshardMeasurement& m,
                                const std::string& fabric) {
  NTPSIM_CHECK(kind_ == RawKind::kReshard);
  std::vector<std::string> f = {clean_label(fabric), integer(r.tp), integer(r.k),
                                integer(r.bytes_per_rank), format_number(r.busiest_bytes())};
  append_time(f, m.time);
  return write_line(join(f));
}

}  // namespace ntpsim::calibrate
