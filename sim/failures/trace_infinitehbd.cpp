// The InfiniteHBD fault trace as published (StepFun, SIGCOMM 2025): a JSON list of
//   {"node_id": str, "event_time": days, "event_type": "fault_start"|"fault_end",
//    "fault_type": {"Level": str, "Class": str, "Desc": str}}
// sorted by event_time. A fault_end closes the open fault_start on the same node with the same
// fault_type (one node may have two overlapping faults of different types: the published trace
// has one such pair). Kind = fault_type.Level. A fault_start never closed is kept with its repair
// running to the end of the trace (TraceData::open_faults counts them).
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "sim/failures/trace.h"
#include "models/base/time.h"
#include "sim/failures/trace_util.h"

namespace ntpsim::sim {
namespace {

using nlohmann::json;


struct Entry {
  std::string node;
  double time_d = 0.0;
  bool start = true;
  std::string level, cls, desc;
};

// "file: entry N (node_id X, event_time T): what" — entries are numbered from 1 in file order.
Error entry_error(const std::string& file, size_t index, const Entry* e, const std::string& what) {
  std::string where = file + ": entry " + std::to_string(index + 1);
  if (e != nullptr && !e->node.empty()) {
    where += " (node_id " + e->node + ", event_time " + format_number(e->time_d) + ")";
  }
  return Error::bad_input(where + ": " + what);
}

Result<Entry> read_entry(const json& j, const std::string& file, size_t index) {
  if (!j.is_object()) return entry_error(file, index, nullptr, "expected an object, got " + std::string(j.type_name()));
  Entry e;
  bool has_node = false, has_time = false, has_type = false;
  const json* fault_type = nullptr;
  for (const auto& [key, value] : j.items()) {
    if (key == "node_id") {
      if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
        return entry_error(file, index, nullptr, "node_id: expected a non-empty string");
      }
      e.node = value.get<std::string>();
      has_node = true;
    } else if (key == "event_time") {
      if (!value.is_number()) return entry_error(file, index, &e, "event_time: expected a number of days");
      e.time_d = value.get<double>();
      // Finite in seconds too: 1e305 days is finite, its seconds are not.
      if (!std::isfinite(e.time_d * kSecondsPerDay) || e.time_d < 0.0) {
        return entry_error(file, index, &e, "event_time: must be a finite number of days >= 0");
      }
      has_time = true;
    } else if (key == "event_type") {
      const std::string t = value.is_string() ? value.get<std::string>() : value.dump();
      if (t == "fault_start") {
        e.start = true;
      } else if (t == "fault_end") {
        e.start = false;
      } else {
        return entry_error(file, index, &e, "event_type: unknown event type '" + t +
                                                "' (expected fault_start or fault_end)");
      }
      has_type = true;
    } else if (key == "fault_type") {
      fault_type = &value;
    } else {
      return entry_error(file, index, &e, "unknown key '" + key +
                                              "' (expected node_id, event_time, event_type, fault_type)");
    }
  }
  if (!has_node) return entry_error(file, index, &e, "missing node_id");
  if (!has_time) return entry_error(file, index, &e, "missing event_time");
  if (!has_type) return entry_error(file, index, &e, "missing event_type");
  if (fault_type == nullptr) return entry_error(file, index, &e, "missing fault_type");
  if (!fault_type->is_object()) return entry_error(file, index, &e, "fault_type: expected an object");
  for (const auto& [key, value] : fault_type->items()) {
    if (!value.is_string()) return entry_error(file, index, &e, "fault_type." + key + ": expected a string");
    if (key == "Level") {
      e.level = value.get<std::string>();
    } else if (key == "Class") {
      e.cls = value.get<std::string>();
    } else if (key == "Desc") {
      e.desc = value.get<std::string>();
    } else {
      return entry_error(file, index, &e, "fault_type: unknown key '" + key + "' (expected Level, Class, Desc)");
    }
  }
  if (e.level.empty()) return entry_error(file, index, &e, "fault_type.Level: missing or empty");
  return e;
}

}  // namespace

Result<TraceData> parse_infinitehbd_trace(std::string_view text, const std::string& file) {
  if (is_blank(text)) return Error::bad_input(file + ": empty trace file");
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    const LineColumn lc = line_column(text, e.byte);
    return Error::bad_input(file + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column) +
                            ": not valid JSON (" + e.what() + ")");
  } catch (const json::exception& e) {  // e.g. out_of_range 406: a number too large for a double
    return Error::bad_input(file + ": not valid JSON (" + e.what() + ")");
  }
  if (!doc.is_array()) {
    return Error::bad_input(file + ": expected a JSON list of fault events, got " + std::string(doc.type_name()));
  }
  if (doc.empty()) return Error::bad_input(file + ": the trace holds no events");

  TraceData out;
  out.file = file;
  out.numbered_entries = true;
  TraceBuilder builder(out);
  std::unordered_map<std::string, uint16_t> causes;
  // Open faults per (node, fault type) -> index into out.faults, oldest first.
  std::map<std::tuple<int32_t, std::string, std::string, std::string>, std::vector<size_t>> open;
  double previous_d = 0.0;
  for (size_t i = 0; i < doc.size(); ++i) {
    Result<Entry> r = read_entry(doc[i], file, i);
    if (!r.ok()) return r.error();
    const Entry& e = r.value();
    if (e.time_d < previous_d) {
      return entry_error(file, i, &e, "events are not sorted by event_time (previous entry is at " +
                                          format_number(previous_d) + " d)");
    }
    previous_d = e.time_d;
    if (!e.start && !builder.has_node(e.node)) {
      return entry_error(file, i, &e, "unknown node: fault_end for a node with no fault_start before it");
    }
    const int32_t node = builder.node(e.node);
    auto key = std::make_tuple(node, e.level, e.cls, e.desc);
    if (e.start) {
      TraceFault f;
      f.start_s = e.time_d * kSecondsPerDay;
      f.repair_s = -1.0;  // open until its fault_end
      f.node = node;
      const int32_t kind = builder.kind(e.level);
      if (kind < 0) return entry_error(file, i, &e, "more than " + std::to_string(kMaxTraceKinds) + " distinct fault kinds");
      f.kind = static_cast<uint16_t>(kind);
      f.source = static_cast<int32_t>(i + 1);
      // Causes are bounded like kinds (an entry past the bound is an error).
      auto [cause, added] =
          causes.try_emplace(e.cls, static_cast<uint16_t>(out.cause_names.size()));
      if (added) {
        if (out.cause_names.size() >= static_cast<size_t>(kMaxTraceKinds)) {
          return entry_error(
              file, i, &e,
              "more than " + std::to_string(kMaxTraceKinds) + " distinct fault classes");
        }
        out.cause_names.push_back(e.cls);
      }
      f.cause = cause->second;
      open[key].push_back(out.faults.size());
      out.faults.push_back(f);
    } else {
      auto it = open.find(key);
      if (it == open.end() || it->second.empty()) {
        return entry_error(file, i, &e, "fault_end without a matching open fault_start on this node with "
                                        "the same fault_type (" + e.level + " / " + e.cls + " / " + e.desc + ")");
      }
      TraceFault& f = out.faults[it->second.front()];
      it->second.erase(it->second.begin());
      f.repair_s = e.time_d * kSecondsPerDay - f.start_s;
    }
    out.span_s = std::max(out.span_s, e.time_d * kSecondsPerDay);
  }
  for (TraceFault& f : out.faults) {
    if (f.repair_s < 0.0) {  // never closed: unavailable until the end of the trace
      f.repair_s = out.span_s - f.start_s;
      f.open = true;
      ++out.open_faults;
    }
  }
  if (out.faults.empty()) return Error::bad_input(file + ": the trace holds no fault_start events");
  return out;
}

}  // namespace ntpsim::sim
