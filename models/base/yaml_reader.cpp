#include "models/base/yaml_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/base/units.h"
#include "models/base/utf8.h"

namespace ntpsim {

const std::string& YamlContext::file_for(const std::string& path) const {
  const std::string* best = &default_file_;
  size_t best_len = 0;
  for (const auto& [prefix, file] : origins_) {
    const bool match = prefix.empty() || path == prefix ||
                       (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
                        (path[prefix.size()] == '.' || path[prefix.size()] == '['));
    if (match && prefix.size() >= best_len) {
      best = &file;
      best_len = prefix.size();
    }
  }
  return *best;
}

SourceLocation YamlContext::locate(const YAML::Node& node, const std::string& path) const {
  SourceLocation loc;
  loc.file = file_for(path);
  if (node.IsDefined()) {
    const YAML::Mark m = node.Mark();
    if (m.line >= 0) {
      loc.line = m.line + 1;
      loc.column = m.column + 1;
    }
  }
  return loc;
}

Result<YAML::Node> load_yaml_string(const std::string& text, const std::string& name) {
  // Names and strings reach JSON output, which must be UTF-8 (fuzz_scenario finding).
  if (const auto bad = first_invalid_utf8(text)) {
    const TextPosition p = position_of(text, *bad);
    return Error::bad_input(fmt::format("{}:{}:{}: not valid UTF-8 (byte 0x{:02X}); save the file as UTF-8",
                                        name, p.line, p.column, static_cast<unsigned char>(text[*bad])));
  }
  try {
    YAML::Node n = YAML::Load(text);
    if (!n.IsDefined() || n.IsNull()) return Error::bad_input(fmt::format("{}: the file is empty", name));
    return n;
  } catch (const YAML::Exception& e) {
    SourceLocation loc{name, e.mark.line >= 0 ? e.mark.line + 1 : 0,
                       e.mark.column >= 0 ? e.mark.column + 1 : 0};
    return Error::bad_input(fmt::format("{}: YAML syntax error: {}", loc.to_string(), e.msg));
  }
}

Result<YAML::Node> load_yaml_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Error::bad_input(fmt::format("{}: no such file", path));
  }
  if (std::filesystem::is_directory(path, ec)) {
    return Error::bad_input(fmt::format("{}: is a directory, expected a YAML file", path));
  }
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return Error::bad_input(fmt::format("{}: cannot read: {}", path, ec.message()));
  constexpr uintmax_t kMaxYamlBytes = 64u << 20;
  if (size > kMaxYamlBytes) {
    return Error::bad_input(fmt::format("{}: {} bytes is too large for a YAML file (limit 64 MiB)", path, size));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::bad_input(fmt::format("{}: cannot open for reading", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return load_yaml_string(ss.str(), path);
}

namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string nearest_key(std::string_view key, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(key, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  // Close enough: at most a third of the longer word, and at least one character.
  const size_t limit = std::max<size_t>(2, std::max(key.size(), best.size()) / 3);
  return best_d <= limit ? best : std::string();
}

std::string join_path(const std::string& parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return fmt::format("{}.{}", parent, key);
}

std::string yaml_kind(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  return fmt::format("\"{}\"", node.Scalar());
}

MapReader::MapReader(const YAML::Node& node, std::string path, const YamlContext& ctx)
    : node_(node), path_(std::move(path)), ctx_(&ctx) {}

Result<MapReader> MapReader::make(const YAML::Node& node, std::string path, const YamlContext& ctx) {
  if (!node.IsMap()) {
    return Error::at(ctx.locate(node, path), path.empty() ? std::string("(top level)") : path,
                     fmt::format("expected a map of fields, got {}", yaml_kind(node)));
  }
  MapReader r(node, std::move(path), ctx);
  // Duplicate keys are an error: yaml-cpp keeps both; the second would be silently ignored.
  std::set<std::string> seen;
  for (const auto& kv : node) {
    const auto key = kv.first.Scalar();
    if (!seen.insert(key).second) {
      return Error::at(ctx.locate(kv.first, join_path(r.path_, key)), join_path(r.path_, key),
                       "duplicate key");
    }
  }
  return r;
}

bool MapReader::has(std::string_view key) const {
  const YAML::Node n = node_[std::string(key)];
  return n.IsDefined();
}

void MapReader::mark_used(std::string_view key) {
  used_.emplace(key);
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.emplace_back(key);
}

YAML::Node MapReader::child(std::string_view key) {
  mark_used(key);
  return node_[std::string(key)];
}

SourceLocation MapReader::location(std::string_view key) const {
  const YAML::Node n = node_[std::string(key)];
  return ctx_->locate(n.IsDefined() ? n : node_, join_path(path_, key));
}

Error MapReader::error(std::string_view key, const std::string& what) const {
  return Error::at(location(key), join_path(path_, key), what);
}

Error MapReader::error_here(const std::string& what) const {
  return Error::at(ctx_->locate(node_, path_), path_.empty() ? "(top level)" : path_, what);
}

Result<std::string> MapReader::scalar(std::string_view key, const YAML::Node& n) const {
  if (!n.IsScalar()) return error(key, fmt::format("expected a single value, got {}", yaml_kind(n)));
  return n.Scalar();
}

namespace {
Status missing(const MapReader& r, std::string_view key) {
  return r.error_here(fmt::format("missing required field \"{}\"", key));
}
}  // namespace

Status MapReader::integer(std::string_view key, int64_t& out, bool required, int64_t min,
                          int64_t max) {
  const YAML::Node n = child(key);
  if (!n.IsDefined() || n.IsNull()) return required ? missing(*this, key) : Status::Ok();
  auto s = scalar(key, n);
  if (!s.ok()) return s.error();
  auto v = units::parse_count(*s);
  if (!v.ok()) return error(key, fmt::format("expected a whole number, got \"{}\"", *s));
  if (*v != std::floor(*v)) return error(key, fmt::format("expected a whole number, got \"{}\"", *s));
  if (*v < static_cast<double>(min) || *v > static_cast<double>(max)) {
    return error(key, fmt::format("{} is out of range [{}, {}]", *s, min, max));
  }
  out = static_cast<int64_t>(*v);
  return Status::Ok();
}

Status MapReader::integer(std::string_view key, int& out, bool required, int min, int max) {
  int64_t v = out;
  NTPSIM_RETURN_IF_ERROR(integer(key, v, required, min, max));
  out = static_cast<int>(v);
  return Status::Ok();
}

Status MapReader::number(std::string_view key, double& out, bool required, double min, double max) {
  const YAML::Node n = child(key);
  if (!n.IsDefined() || n.IsNull()) return required ? missing(*this, key) : Status::Ok();
  auto s = scalar(key, n);
  if (!s.ok()) return s.error();
  auto v = units::parse_number(*s);
  if (!v.ok()) return error(key, v.error().message);
  if (*v < min || *v > max) return error(key, fmt::format("{} is out of range [{}, {}]", *s, min, max));
  out = *v;
  return Status::Ok();
}

Status MapReader::quantity(std::string_view key, double& out, const QuantityParser& parser,
                           bool required, double min, double max) {
  const YAML::Node n = child(key);
  if (!n.IsDefined() || n.IsNull()) return required ? missing(*this, key) : Status::Ok();
  auto s = scalar(key, n);
  if (!s.ok()) return s.error();
  auto v = parser(*s);
  if (!v.ok()) return error(key, v.error().message);
  if (!(*v >= min && *v <= max)) {
    return error(key, fmt::format("\"{}\" is out of range (allowed {} to {} in SI units)", *s, min, max));
  }
  out = *v;
  return Status::Ok();
}

Status MapReader::string(std::string_view key, std::string& out, bool required) {
  const YAML::Node n = child(key);
  if (!n.IsDefined() || n.IsNull()) return required ? missing(*this, key) : Status::Ok();
  auto s = scalar(key, n);
  if (!s.ok()) return s.error();
  if (s->empty()) return error(key, "must not be empty");
  out = *s;
  return Status::Ok();
}

Status MapReader::choice(std::string_view key, std::string& out,
                         const std::vector<std::string>& choices, bool required) {
  std::string v = out;
  NTPSIM_RETURN_IF_ERROR(string(key, v, required));
  if (!has(key)) return Status::Ok();
  if (std::find(choices.begin(), choices.end(), v) == choices.end()) {
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
    const std::string near = nearest_key(v, choices);
    return error(key, fmt::format("\"{}\" is not one of: {}{}", v, list,
                                  near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near)));
  }
  out = v;
  return Status::Ok();
}

Status MapReader::boolean(std::string_view key, bool& out, bool required) {
  const YAML::Node n = child(key);
  if (!n.IsDefined() || n.IsNull()) return required ? missing(*this, key) : Status::Ok();
  auto s = scalar(key, n);
  if (!s.ok()) return s.error();
  if (*s == "true" || *s == "yes" || *s == "on") {
    out = true;
  } else if (*s == "false" || *s == "no" || *s == "off") {
    out = false;
  } else {
    return error(key, fmt::format("expected true or false, got \"{}\"", *s));
  }
  return Status::Ok();
}

Status MapReader::finish(const std::vector<std::string>& also_valid) const {
  std::vector<std::string> valid = known_;
  valid.insert(valid.end(), also_valid.begin(), also_valid.end());
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    if (used_.count(key) != 0) continue;
    const std::string near = nearest_key(key, valid);
    const std::string path = join_path(path_, key);
    return Error::at(ctx_->locate(kv.first, path), path,
                     near.empty() ? std::string("unknown key")
                                  : fmt::format("unknown key (did you mean \"{}\"?)", near));
  }
  return Status::Ok();
}

}  // namespace ntpsim
