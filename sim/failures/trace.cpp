// load_trace, the ntpsim CSV trace parser (format in docs/trace-format.md) and parser helpers.
#include "sim/failures/trace.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <tuple>

#include "models/base/utf8.h"
#include "models/base/yaml_reader.h"
#include "sim/failures/failure_source.h"
#include "sim/failures/trace_formats.h"
#include "sim/failures/trace_util.h"

namespace ntpsim::sim {

LineColumn line_column(std::string_view text, size_t offset) {
  LineColumn lc;
  const size_t end = std::min(offset, text.size());
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++lc.line;
      lc.column = 1;
    } else {
      ++lc.column;
    }
  }
  return lc;
}

bool is_blank(std::string_view text) {
  for (const char c : text) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  }
  return true;
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.10g", v);
  return buf;
}

int32_t TraceBuilder::node(const std::string& name) {
  auto [it, inserted] = nodes_.try_emplace(name, static_cast<int32_t>(out_->node_names.size()));
  if (inserted) out_->node_names.push_back(name);
  return it->second;
}

int32_t TraceBuilder::kind(const std::string& name) {
  auto it = kinds_.find(name);
  if (it != kinds_.end()) return it->second;
  if (static_cast<int32_t>(out_->kind_names.size()) >= kMaxTraceKinds) return -1;
  const auto k = static_cast<uint16_t>(out_->kind_names.size());
  kinds_.emplace(name, k);
  out_->kind_names.push_back(name);
  return k;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool parse_double(std::string_view s, double& out) {
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

bool parse_component_name(std::string_view s, Component& out) {
  if (s == "gpu") {
    out = Component::kGpu;
  } else if (s == "node" || s == "tray") {
    out = Component::kNode;
  } else if (s == "domain" || s == "rack") {
    out = Component::kDomain;
  } else if (s == "pod") {
    out = Component::kPod;
  } else {
    return false;
  }
  return true;
}

// Seconds per unit of the `#! time_unit:` directive; 0 when unknown.
double seconds_per(std::string_view unit) {
  if (unit == "s") return 1.0;
  if (unit == "min") return 60.0;
  if (unit == "h") return 3600.0;
  if (unit == "d") return 86400.0;
  return 0.0;
}

// The shortest decimal text that parses back to exactly `v`.
std::string shortest(double v) {
  char buf[64];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return ec == std::errc() ? std::string(buf, ptr) : format_number(v);
}

std::vector<std::string_view> split_commas(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t pos = 0;
  for (;;) {
    const size_t comma = line.find(',', pos);
    fields.push_back(trim(line.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos)));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return fields;
}

}  // namespace

Result<TraceData> parse_csv_trace(std::string_view with_bom, const std::string& file) {
  // A byte order mark (spreadsheets on Windows write one) is not part of the column header.
  const std::string_view text = without_utf8_bom(with_bom);
  if (is_blank(text)) return Error::bad_input(file + ": empty trace file");
  TraceData out;
  out.file = file;
  TraceBuilder builder(out);
  auto at = [&](int line, const std::string& what) {
    return Error::bad_input(file + ":" + std::to_string(line) + ": " + what);
  };
  // Node and kind names reach JSON output, which must be UTF-8 (fuzz_trace_csv finding).
  if (const auto bad = first_invalid_utf8(text)) {
    char byte[8];
    std::snprintf(byte, sizeof(byte), "0x%02X", static_cast<unsigned char>(text[*bad]));
    return at(position_of(text, *bad).line, std::string("not valid UTF-8 (byte ") + byte + ")");
  }

  double unit_s = 1.0;
  double span_units = -1.0;
  int span_line = 0;
  bool have_header = false;
  bool have_component = false;
  double previous_start = 0.0;
  double last_time = 0.0;
  size_t pos = 0;
  for (int line_no = 1; pos < text.size(); ++line_no) {
    const size_t nl = text.find('\n', pos);
    const std::string_view line = trim(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.empty()) continue;
    if (line.substr(0, 2) == "#!") {
      if (have_header) return at(line_no, "directives (#!) must come before the column header");
      const std::string_view body = trim(line.substr(2));
      const size_t colon = body.find(':');
      const std::string_view key = trim(body.substr(0, colon));
      const std::string_view value = colon == std::string_view::npos ? std::string_view() : trim(body.substr(colon + 1));
      if (key == "time_unit") {
        unit_s = seconds_per(value);
        if (unit_s == 0.0)
          return at(line_no, "time_unit: unknown unit '" + clip_for_message(value) +
                                 "' (expected s, min, h or d)");
      } else if (key == "span") {
        if (!parse_double(value, span_units) || span_units <= 0.0) {
          return at(line_no,
                    "span: expected a positive number, got '" + clip_for_message(value) + "'");
        }
        span_line = line_no;
      } else {
        return at(line_no,
                  "unknown directive '" + clip_for_message(key) + "' (expected time_unit or span)");
      }
      continue;
    }
    if (line.front() == '#') continue;
    const std::vector<std::string_view> fields = split_commas(line);
    if (!have_header) {
      const bool base = fields.size() >= 4 && fields[0] == "start" && fields[1] == "end" &&
                        fields[2] == "unit" && fields[3] == "kind";
      if (!base || fields.size() > 5 || (fields.size() == 5 && fields[4] != "component")) {
        return at(line_no,
                  "expected the column header 'start,end,unit,kind' or "
                  "'start,end,unit,kind,component', got '" +
                      clip_for_message(line) + "'");
      }
      have_header = true;
      have_component = fields.size() == 5;
      continue;
    }
    const size_t want = have_component ? 5 : 4;
    if (fields.size() != want) {
      return at(line_no, "expected " + std::to_string(want) + " fields, got " + std::to_string(fields.size()));
    }
    double start = 0.0;
    if (!parse_double(fields[0], start) || start < 0.0) {
      return at(line_no,
                "start: expected a finite number >= 0, got '" + clip_for_message(fields[0]) + "'");
    }
    if (start < previous_start) {
      return at(line_no, "rows are not sorted by start (" + format_number(start) + " after " +
                             format_number(previous_start) + ")");
    }
    previous_start = start;
    double end = -1.0;
    if (!fields[1].empty()) {
      if (!parse_double(fields[1], end))
        return at(line_no,
                  "end: expected a number or nothing, got '" + clip_for_message(fields[1]) + "'");
      if (end < start) {
        return at(line_no, "negative duration: end " + format_number(end) + " is before start " + format_number(start));
      }
    }
    // Finite in seconds too: 1e305 d is a finite number of days, not of seconds.
    if (!std::isfinite(std::max(start, end) * unit_s)) {
      return at(line_no, "time " + format_number(std::max(start, end)) + " is too large");
    }
    if (fields[2].empty()) return at(line_no, "unit: empty");
    if (fields[3].empty()) return at(line_no, "kind: empty");
    TraceFault f;
    f.start_s = start * unit_s;
    f.repair_s = end < 0.0 ? -1.0 : (end - start) * unit_s;
    f.source = line_no;
    f.node = builder.node(std::string(fields[2]));
    const int32_t kind = builder.kind(std::string(fields[3]));
    if (kind < 0) return at(line_no, "more than " + std::to_string(kMaxTraceKinds) + " distinct kinds");
    f.kind = static_cast<uint16_t>(kind);
    if (have_component && !fields[4].empty()) {
      if (!parse_component_name(fields[4], f.component)) {
        return at(line_no, "component: unknown '" + clip_for_message(fields[4]) +
                               "' (expected gpu, node, domain or pod)");
      }
      f.has_component = true;
    }
    last_time = std::max(last_time, std::max(start, end));
    out.faults.push_back(f);
  }
  if (!have_header) return Error::bad_input(file + ": no column header 'start,end,unit,kind' found");
  if (out.faults.empty()) return Error::bad_input(file + ": the trace holds no faults");
  if (span_units >= 0.0 && span_units < last_time) {
    return at(span_line, "span " + format_number(span_units) + " is shorter than the last time in the trace (" +
                             format_number(last_time) + ")");
  }
  out.span_s = (span_units >= 0.0 ? span_units : last_time) * unit_s;
  if (!std::isfinite(out.span_s)) {
    return at(span_line, "span " + format_number(span_units) + " is too large");
  }
  for (TraceFault& f : out.faults) {
    if (f.repair_s < 0.0) {
      f.repair_s = out.span_s - f.start_s;
      f.open = true;
      ++out.open_faults;
    }
  }
  return out;
}

std::string trace_location(const TraceData& trace, const TraceFault& f) {
  return trace.numbered_entries ? trace.file + ": entry " + std::to_string(f.source)
                                : trace.file + ":" + std::to_string(f.source);
}

Result<std::string> to_csv_trace(const TraceData& trace) {
  auto check_name = [&](const std::string& name, const char* what) -> Status {
    if (name.empty() || name.find_first_of(",\r\n") != std::string::npos ||
        trim(name).size() != name.size()) {
      return Error::bad_input(trace.file + ": " + what + " '" + name +
                              "' cannot be written to CSV (empty, a comma, a line break or surrounding spaces)");
    }
    return Status::Ok();
  };
  for (const std::string& n : trace.node_names) NTPSIM_RETURN_IF_ERROR(check_name(n, "node"));
  for (const std::string& k : trace.kind_names) NTPSIM_RETURN_IF_ERROR(check_name(k, "kind"));
  bool with_component = false;
  for (const TraceFault& f : trace.faults) with_component = with_component || f.has_component;
  std::string out = "# ntpsim CSV trace (docs/trace-format.md), converted from " + trace.file + "\n";
  out += "#! time_unit: s\n";
  // The span directive must be positive; a span of 0 (every fault at time 0) is what the parser
  // derives without it.
  if (trace.span_s > 0.0) out += "#! span: " + shortest(trace.span_s) + "\n";
  out += with_component ? "start,end,unit,kind,component\n" : "start,end,unit,kind\n";
  for (const TraceFault& f : trace.faults) {
    // The end is capped at the span so that rounding never puts it past the directive.
    out += shortest(f.start_s) + "," + shortest(std::min(trace.span_s, f.start_s + f.repair_s)) + ",";
    out += trace.node_names[static_cast<size_t>(f.node)] + "," + trace.kind_names[f.kind];
    if (with_component) {
      static constexpr const char* kNames[] = {"gpu", "node", "domain", "pod"};
      out += ",";
      if (f.has_component) out += kNames[static_cast<int>(f.component)];
    }
    out += "\n";
  }
  return out;
}

Status check_trace(TraceData& trace) {
  for (const TraceFault& f : trace.faults) {
    if (!(f.start_s + f.repair_s <= kMaxTraceTimeS)) {
      return Error::bad_input(trace_location(trace, f) + ": a fault from " +
                              format_number(f.start_s / 86400.0) + " d to " +
                              format_number((f.start_s + f.repair_s) / 86400.0) +
                              " d reaches past the 1000-year limit on trace times");
    }
  }
  if (!(trace.span_s <= kMaxTraceTimeS)) {
    return Error::bad_input(trace.file + ": span " + format_number(trace.span_s / 86400.0) +
                            " d is past the 1000-year limit on trace times");
  }
  // Faults are sorted by start: identical faults sit in one run of equal starts.
  trace.duplicates = 0;
  const TraceFault* first = nullptr;
  const TraceFault* first_original = nullptr;
  auto key = [](const TraceFault& f) {
    return std::make_tuple(f.repair_s, f.node, f.kind, f.cause, f.has_component, f.component,
                           f.open);
  };
  std::vector<size_t> run;
  for (size_t i = 0; i < trace.faults.size();) {
    size_t j = i;
    while (j < trace.faults.size() && trace.faults[j].start_s == trace.faults[i].start_s) ++j;
    run.clear();
    for (size_t a = i; a < j; ++a) run.push_back(a);
    // Sorted by the other fields (file order among equals): a repeat follows its original.
    std::stable_sort(run.begin(), run.end(), [&](size_t a, size_t b) {
      return key(trace.faults[a]) < key(trace.faults[b]);
    });
    for (size_t r = 1; r < run.size(); ++r) {
      const TraceFault& f = trace.faults[run[r]];
      if (key(f) != key(trace.faults[run[r - 1]])) continue;
      ++trace.duplicates;
      if (first == nullptr || f.source < first->source) {
        first = &f;
        first_original = &trace.faults[run[r - 1]];
      }
    }
    i = j;
  }
  if (first != nullptr) {
    trace.warnings.push_back(trace_location(trace, *first) + ": " +
                             std::to_string(trace.duplicates) +
                             " fault(s) repeat an earlier row exactly (first: this one repeats " +
                             trace_location(trace, *first_original) + "); each counts as a fault");
  }
  return Status::Ok();
}

Result<std::shared_ptr<const TraceData>> load_trace(const TraceConfig& cfg) {
  // Problems with the file as a whole are located at the scenario's `file:` when there is one;
  // problems inside it name the trace file's own lines.
  const auto file_error = [&](const std::string& what) {
    const auto at = cfg.field_at.find("file");
    if (at == cfg.field_at.end()) return Error::bad_input(what);
    return Error::at(at->second, "failures.trace.file", what);
  };
  const TraceFormat* format = find_trace_format(cfg.format);
  if (format == nullptr) {
    return Error::bad_input("failures.trace.format: unknown format '" + cfg.format +
                            "' (expected " + trace_format_list() + ")");
  }
  std::error_code ec;
  const auto size = std::filesystem::file_size(cfg.file, ec);
  if (ec) return file_error(cfg.file + ": cannot read trace: " + ec.message());
  if (size > static_cast<uintmax_t>(kMaxTraceBytes)) {
    return file_error(cfg.file + ": trace is " + std::to_string(size) +
                      " bytes, over the limit of " + std::to_string(kMaxTraceBytes) + " bytes");
  }
  std::ifstream in(cfg.file, std::ios::binary);
  if (!in) return file_error(cfg.file + ": cannot open trace");
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (!in) return file_error(cfg.file + ": cannot read trace");
  Result<TraceData> r = format->parse(text, cfg.file);
  if (!r.ok()) return r.error();
  NTPSIM_RETURN_IF_ERROR(check_trace(*r));
  return std::shared_ptr<const TraceData>(std::make_shared<TraceData>(std::move(r).value()));
}

}  // namespace ntpsim::sim
