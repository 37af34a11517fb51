#include "tools/validate/interruption_table.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

namespace ntpsim::validate {

namespace {

// Fields of one line, split at every comma (the format has no quoting).
std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    out.push_back(line.substr(start, comma == std::string_view::npos ? line.npos : comma - start));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

}  // namespace

Result<std::vector<InterruptionCause>> parse_interruption_table(std::string_view text,
                                                                const std::string& file) {
  std::vector<InterruptionCause> out;
  std::set<std::string, std::less<>> seen;
  int line_no = 0;
  bool header = false;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == text.npos ? text.npos : nl - pos);
    pos = nl == text.npos ? text.size() : nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const auto where = [&](const std::string& what) {
      return Error::bad_input(fmt::format("{}:{}: {}", file, line_no, what));
    };
    if (line.find_first_not_of(" \t") == line.npos) continue;
    if (line.find('"') != line.npos) return where("quoted fields are not supported");
    const auto f = split(line);
    if (!header) {
      if (f.size() < 3 || f[0] != "component" || f[1] != "category" || f[2] != "count") {
        return where("the header must start with component,category,count");
      }
      header = true;
      continue;
    }
    if (f.size() < 3) {
      return where(fmt::format("{} field(s); a row needs component,category,count", f.size()));
    }
    if (f[0].empty()) return where("component: empty");
    InterruptionCause c;
    c.component = std::string(f[0]);
    c.category = std::string(f[1]);
    c.line = line_no;
    const auto [end, ec] = std::from_chars(f[2].data(), f[2].data() + f[2].size(), c.count);
    if (f[2].empty() || ec != std::errc() || end != f[2].data() + f[2].size() || c.count < 0) {
      return where(fmt::format("count: \"{}\" is not a non-negative integer", f[2]));
    }
    if (!seen.insert(c.component).second) {
      return where(fmt::format("component \"{}\" appears twice", c.component));
    }
    out.push_back(std::move(c));
  }
  if (!header) return Error::bad_input(file + ":1: empty file: no component,category,count header");
  if (out.empty())
    return Error::bad_input(fmt::format("{}:{}: no rows after the header", file, line_no));
  return out;
}

Result<std::vector<InterruptionCause>> read_interruption_table(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::bad_input(path + ": cannot read the interruption table");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_interruption_table(buffer.str(), path);
}

}  // namespace ntpsim::validate
