#include "calibrate/nccl_tests_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "models/base/utf8.h"

namespace ntpsim::calibrate {
namespace {

struct Token {
  std::string text;
  int column = 0;  // 1-based
};

std::vector<Token> tokens(const std::string& line) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= line.size()) break;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    out.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return out;
}

bool to_number(const std::string& t, double& out) {
  if (t.empty()) return false;
  char* end = nullptr;
  out = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size() && std::isfinite(out);
}

bool to_int(const std::string& t, long long& out) {
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtoll(t.c_str(), &end, 10);
  return end == t.c_str() + t.size() && errno == 0;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The collective named by an nccl-tests binary or log file name ("" when none or ambiguous).
std::string collective_from_name(const std::string& text, bool& ambiguous) {
  static const std::pair<const char*, const char*> kNames[] = {{"all_reduce", "all_reduce"},
                                                               {"allreduce", "all_reduce"},
                                                               {"all_gather", "all_gather"},
                                                               {"allgather", "all_gather"},
                                                               {"reduce_scatter", "reduce_scatter"},
                                                               {"reducescatter", "reduce_scatter"},
                                                               {"alltoall", "all_to_all"},
                                                               {"all_to_all", "all_to_all"},
                                                               {"sendrecv", "send_recv"},
                                                               {"send_recv", "send_recv"}};
  const std::string s = lower(text);
  std::set<std::string> found;
  for (const auto& [pattern, name] : kNames) {
    if (s.find(pattern) != std::string::npos) found.insert(name);
  }
  ambiguous = found.size() > 1;
  return found.size() == 1 ? *found.begin() : std::string();
}

bool is_comment(const std::string& line) {
  const size_t b = line.find_first_not_of(" \t");
  return b != std::string::npos && line[b] == '#';
}

bool blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

// The column names of a table header line ("#  size count type redop root time algbw busbw
// #wrong time algbw busbw #wrong"), without the leading '#'. Empty when it is not a header.
std::vector<Token> header_columns(const std::string& line) {
  std::vector<Token> t = tokens(line);
  if (!t.empty() && t.front().text == "#") t.erase(t.begin());
  if (!t.empty() && t.front().text.size() > 1 && t.front().text[0] == '#') {
    t.front().text.erase(0, 1);
    t.front().column += 1;
  }
  bool size = false, busbw = false;
  for (const Token& x : t) {
    size = size || x.text == "size";
    busbw = busbw || x.text == "busbw";
  }
  return size && busbw ? t : std::vector<Token>{};
}

}  // namespace

bool looks_like_nccl_tests(const std::string& text) {
  std::istringstream in{std::string(without_utf8_bom(text))};
  std::string line;
  while (std::getline(in, line)) {
    if (blank(line)) continue;
    if (line.rfind("# format:", 0) == 0) return false;  // an ntpcal raw file
    if (!is_comment(line)) continue;
    if (line.find("Using devices") != std::string::npos ||
        line.find("nThread") != std::string::npos || !header_columns(line).empty()) {
      return true;
    }
  }
  return false;
}

Result<RawData> parse_nccl_tests(const std::string& text, const std::string& name,
                                 const NcclTestsOptions& opt) {
  RawData data;
  data.file = name;
  data.kind = RawKind::kCollective;
  const auto at = [&](int line, int col, const std::string& what) {
    return Error::at(SourceLocation{name, line, col}, "", what);
  };

  std::string collective = opt.collective;
  std::string binary;  // from "Collective test starting"
  std::string synthetic, nccl_version;
  int iters = 0;
  // "# Using devices": rank -> (group, host, device name).
  struct RankLine {
    int group = 0;
    std::string host, gpu;
  };
  std::map<long long, RankLine> ranks;
  bool in_devices = false;
  std::vector<Token> header;
  int header_line = 0;
  std::map<std::string, size_t> col;  // first occurrence of size/count/type/redop/root
  size_t time_i = 0, algbw_i = 0, busbw_i = 0, wrong_i = 0;
  CollectiveKind kind = CollectiveKind::kAllReduce;
  int n = 0;
  std::string fabric;

  // Resolves collective, ranks, nodes and fabric once the table header is reached.
  const auto settle = [&](int line) -> Status {
    if (collective.empty() && !binary.empty()) {
      bool ambiguous = false;
      collective = collective_from_name(binary, ambiguous);
    }
    if (collective.empty()) {
      bool ambiguous = false;
      collective = collective_from_name(std::filesystem::path(name).filename().string(), ambiguous);
      if (ambiguous) collective.clear();
    }
    if (collective.empty()) {
      return at(line, 1,
                "cannot tell which collective this nccl-tests log measured (no 'Collective test "
                "starting' line, and the file name names none of all_reduce, all_gather, "
                "reduce_scatter, alltoall, sendrecv): pass --nccl-collective");
    }
    if (!parse_collective(collective, kind)) {
      return at(line, 1, fmt::format("unknown collective '{}'", collective));
    }
    std::set<std::string> hosts;
    std::map<int, int> per_group;
    std::set<std::string> gpus;
    for (const auto& [r, info] : ranks) {
      hosts.insert(info.host);
      ++per_group[info.group];
      if (!info.gpu.empty()) gpus.insert(info.gpu);
    }
    n = opt.ranks > 0 ? opt.ranks : (per_group.empty() ? 0 : per_group.begin()->second);
    if (n == 0) {
      return at(line, 1, "no '# Using devices' rank list before the table: pass --nccl-ranks N");
    }
    if (n < 2) {
      return at(line, 1, fmt::format("the log measured {} rank: a collective needs at least 2", n));
    }
    const int nodes =
        opt.nodes > 0 ? opt.nodes : static_cast<int>(std::max<size_t>(1, hosts.size()));
    fabric = !opt.fabric.empty() ? opt.fabric : nodes > 1 ? "scale_out" : "scale_up";
    std::string host_list, gpu_list;
    for (const auto& h : hosts) host_list += (host_list.empty() ? "" : " ") + h;
    for (const auto& g : gpus) gpu_list += (gpu_list.empty() ? "" : ", ") + g;
    data.context.set("format", "nccl-tests log");
    data.context.set("kind", "collective");
    if (!synthetic.empty()) data.context.set("synthetic", synthetic);
    data.context.set("tool", "nccl-tests " + (binary.empty() ? collective : binary));
    if (!gpu_list.empty()) data.context.set("gpu", gpu_list);
    data.context.set("gpu_count", std::to_string(n));
    data.context.set("nodes", std::to_string(nodes));
    if (!host_list.empty()) data.context.set("hostname", host_list);
    if (!nccl_version.empty()) data.context.set("nccl", nccl_version);
    data.context.set("fabric", fabric);
    data.context.set("placement", opt.in_place ? "in-place" : "out-of-place");
    return Status::Ok();
  };

  std::istringstream in{std::string(without_utf8_bom(text))};  // a BOM is not text
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (blank(line)) continue;
    if (is_comment(line)) {
      const std::vector<Token> t = tokens(line);
      if (auto h = header_columns(line); !h.empty()) {
        if (!header.empty()) {
          return at(line_no, 1,
                    fmt::format("a second nccl-tests table (the first starts at line "
                                "{}): one run per file",
                                header_line));
        }
        header = h;
        header_line = line_no;
        std::vector<size_t> times, algbws, busbws, wrongs;
        for (size_t i = 0; i < header.size(); ++i) {
          const std::string& c = header[i].text;
          if (c == "time") times.push_back(i);
          if (c == "algbw") algbws.push_back(i);
          if (c == "busbw") busbws.push_back(i);
          if (c == "#wrong" || c == "wrong" || c == "error") wrongs.push_back(i);
          if (c == "size" || c == "count" || c == "type" || c == "redop" || c == "root")
            col.emplace(c, i);
        }
        const size_t pick = opt.in_place ? 1 : 0;
        if (times.size() <= pick || algbws.size() <= pick || busbws.size() <= pick) {
          return at(line_no, 1,
                    opt.in_place ? "the table has no in-place time/algbw/busbw columns"
                                 : "the table header has no time, algbw and busbw columns");
        }
        time_i = times[pick];
        algbw_i = algbws[pick];
        busbw_i = busbws[pick];
        wrong_i = wrongs.size() > pick ? wrongs[pick] : header.size();
        NTPSIM_RETURN_IF_ERROR(settle(line_no));
        continue;
      }
      if (t.size() >= 2 && t[1].text == "Using" && line.find("devices") != std::string::npos) {
        in_devices = true;
        continue;
      }
      if (t.size() >= 3 && t[1].text == "Rank" && in_devices) {
        long long rank = 0, group = 0;
        if (!to_int(t[2].text, rank) || rank < 0) {
          return at(line_no, t[2].column,
                    fmt::format("rank '{}' is not a whole number", t[2].text));
        }
        RankLine r;
        size_t i = 3;
        if (i + 1 < t.size() && t[i].text == "Group") {
          if (!to_int(t[i + 1].text, group) || group < 0) {
            return at(line_no, t[i + 1].column,
                      fmt::format("group '{}' is not a whole number", t[i + 1].text));
          }
          r.group = static_cast<int>(group);
        }
        size_t on = t.size();
        for (size_t j = 3; j + 1 < t.size(); ++j) {
          if (t[j].text == "on") {
            on = j;
            break;
          }
        }
        if (on == t.size()) return at(line_no, 1, "device line has no 'on HOST'");
        r.host = t[on + 1].text;
        for (size_t j = on + 2; j < t.size(); ++j) {
          if (t[j].text.front() == '[' && t[j].text.back() == ']') {
            for (size_t g = j + 1; g < t.size(); ++g)
              r.gpu += (r.gpu.empty() ? "" : " ") + t[g].text;
            break;
          }
        }
        if (!ranks.emplace(rank, r).second) {
          return at(line_no, t[2].column, fmt::format("rank {} is listed twice", rank));
        }
        continue;
      }
      in_devices = false;
      if (t.size() >= 4 && t[1].text == "Collective" && t[2].text == "test" &&
          t[3].text == "starting:") {
        if (t.size() >= 5) binary = t[4].text;
      } else if (t.size() >= 3 && t[1].text == "nccl-tests" && t[2].text == "version") {
        for (const Token& x : t) {
          if (x.text.rfind("nccl-library=", 0) == 0) nccl_version = x.text.substr(13);
        }
      } else if (t.size() >= 2 && lower(t[1].text) == "synthetic:") {
        synthetic = line.substr(static_cast<size_t>(t[1].column - 1) + t[1].text.size());
        synthetic = synthetic.substr(std::min(synthetic.size(), synthetic.find_first_not_of(' ')));
        if (synthetic.empty()) synthetic = "true";
      } else if (t.size() >= 2 && t[1].text == "nThread") {
        for (size_t i = 2; i + 1 < t.size(); ++i) {
          long long v = 0;
          if (t[i].text == "iters:" && t[i - 1].text != "warmup" && t[i - 1].text != "agg" &&
              to_int(t[i + 1].text, v) && v > 0 && v < (1LL << 30)) {
            iters = static_cast<int>(v);
          }
        }
      }
      continue;
    }
    // Not a comment: NCCL's own log lines and host messages before the table are not data.
    if (header.empty()) continue;
    if (line.find(" NCCL INFO ") != std::string::npos ||
        line.find(" NCCL WARN ") != std::string::npos) {
      continue;
    }
    const std::vector<Token> t = tokens(line);
    if (t.size() != header.size()) {
      return at(line_no, 1,
                fmt::format("expected {} fields as in the header at line {}, found {}",
                            header.size(), header_line, t.size()));
    }
    const auto field_error = [&](size_t i, const std::string& what) {
      return at(line_no, t[i].column, fmt::format("column '{}': {}", header[i].text, what));
    };
    long long size = 0;
    const size_t size_i = col.at("size");
    if (!to_int(t[size_i].text, size) || size < 0 || size > (1LL << 50)) {
      return field_error(size_i, fmt::format("'{}' is not a byte count", t[size_i].text));
    }
    double time_us = 0, algbw = 0, busbw = 0;
    // An hour per launch is a unit mistake, as in the raw reader.
    if (!to_number(t[time_i].text, time_us) || time_us <= 0 || time_us > 3.6e9) {
      return field_error(time_i, fmt::format("'{}' is not a positive time in us", t[time_i].text));
    }
    if (!to_number(t[algbw_i].text, algbw) || algbw < 0) {
      return field_error(algbw_i, fmt::format("'{}' is not a bandwidth in GB/s", t[algbw_i].text));
    }
    if (!to_number(t[busbw_i].text, busbw) || busbw < 0) {
      return field_error(busbw_i, fmt::format("'{}' is not a bandwidth in GB/s", t[busbw_i].text));
    }
    if (wrong_i < t.size() && t[wrong_i].text != "N/A") {
      long long wrong = 0;
      if (!to_int(t[wrong_i].text, wrong) || wrong < 0) {
        return field_error(wrong_i, fmt::format("'{}' is not a count", t[wrong_i].text));
      }
      if (wrong > 0) {
        return field_error(wrong_i, fmt::format("{} wrong results: the run failed validation, its "
                                                "times are not a measurement",
                                                wrong));
      }
    }
    if (size == 0) continue;
    // nccl-tests' conventions, within the 2-decimal rounding of the log.
    const double want_algbw = static_cast<double>(size) / (time_us * 1e3);
    if (std::abs(algbw - want_algbw) > 0.006 + 0.02 * want_algbw) {
      return field_error(algbw_i, fmt::format("algbw {} GB/s is not size / time = {:.3g} GB/s",
                                              t[algbw_i].text, want_algbw));
    }
    const double factor = bus_factor(kind, n);
    if (std::abs(busbw - algbw * factor) > 0.006 + 0.01 * algbw * factor + 0.006 * factor) {
      return field_error(
          busbw_i, fmt::format("busbw {} GB/s is not algbw x {:.4g} ({} over {} ranks): the log "
                               "measured another collective or rank count (--nccl-collective, "
                               "--nccl-ranks)",
                               t[busbw_i].text, factor, to_string(kind), n));
    }
    CollectiveRow row;
    row.line = line_no;
    row.fabric = fabric;
    row.request.kind = kind;
    row.request.bytes = size;
    row.request.group_size = n;
    row.request.reps = std::max(1, iters);
    row.request.warmup = 0;
    const double s = time_us * 1e-6;
    row.time.reps = row.request.reps;
    row.time.median_s = row.time.p10_s = row.time.p90_s = row.time.min_s = row.time.max_s = s;
    row.time.mean_s = s;
    data.collectives.push_back(row);
  }
  if (header.empty()) {
    return at(line_no, 0, "no nccl-tests table (no '#  size  count  type ... busbw' header line)");
  }
  if (data.collectives.empty())
    return at(line_no, 0, "the nccl-tests table has no rows with size > 0");
  return data;
}

Result<RawData> read_measurement_file(const std::string& path, const NcclTestsOptions& options) {
  auto text = read_measurement_text(path);
  if (!text.ok()) return text.error();
  if (looks_like_nccl_tests(*text)) return parse_nccl_tests(*text, path, options);
  return parse_raw(*text, path);
}

}  // namespace ntpsim::calibrate
