// Strict, location-aware reading of YAML maps (scenarios, plans, profiles, workloads).
//
// Every scenario-like file is read through `MapReader`: each field is read by name with its type
// and unit, out-of-range values and wrong types become an Error naming file:line:column and the
// field path (e.g. "failures.processes[0].rate"), and `finish()` rejects every key that was not
// read, suggesting the nearest valid key. Nothing is silently ignored.
//
// Origins: after `include:` merging, parts of one tree come from different files. `YamlContext`
// maps field-path prefixes to the file they came from, so messages name the right file.
// Thread safety: not shared; one reader per thread.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "models/base/status.h"

namespace ntpsim {

class YamlContext {
 public:
  explicit YamlContext(std::string file = {}) : default_file_(std::move(file)) {}
  // Fields at `path` and below came from `file` (longest prefix wins).
  void set_origin(const std::string& path, const std::string& file) { origins_[path] = file; }
  const std::string& file_for(const std::string& path) const;
  // Whether the nodes of fields at `path` and below carry their line/column marks (longest
  // prefix wins; `set_marked("", false)` for a whole tree). A copied tree's nodes do not
  // (yaml-cpp's Clone gives every node line 1, column 1), a parsed one's do.
  void set_marked(const std::string& path, bool marked) { marked_[path] = marked; }
  // The node's file (file_for(path)) with its line and column. For a field whose nodes carry no
  // marks the line and column are not the file's, which this context and its copies remember
  // (gave_unmarked_location).
  SourceLocation locate(const YAML::Node& node, const std::string& path) const;
  const std::string& default_file() const { return default_file_; }
  // Whether locate() was asked, through this context or a copy of it, for a field whose nodes
  // carry no marks. While it stays false, reading a copied tree gave every message and location
  // that reading the parsed files would give: the two differ in marks only.
  bool gave_unmarked_location() const { return unmarked_->any; }
  // The field path of the first such request ("" while there was none): where the marks were
  // missing, so that a caller can mark just what that field came from and read again.
  const std::string& first_unmarked_path() const { return unmarked_->first_path; }

 private:
  struct Unmarked {
    bool any = false;
    std::string first_path;
  };
  std::string default_file_;
  std::map<std::string, std::string> origins_;
  std::map<std::string, bool> marked_;
  std::shared_ptr<Unmarked> unmarked_ = std::make_shared<Unmarked>();
};

// Loads one YAML file. Errors: missing/unreadable file, a directory or device, YAML syntax (with
// line and column), an empty document.
Result<YAML::Node> load_yaml_file(const std::string& path);
// The bytes load_yaml_file would parse, with its errors for a file it cannot read (missing,
// unreadable, not a regular file, over 64 MiB): load_yaml_string(text, path) of the result is
// load_yaml_file(path).
Result<std::string> read_yaml_file_text(const std::string& path);
// Whether `path` is a regular file holding exactly `bytes` (compared a block at a time, without a
// copy of the file); false when it differs or cannot be read.
bool file_has_bytes(const std::string& path, std::string_view bytes);
// Parses YAML text; `name` is used in messages. Beyond YAML syntax it refuses what yaml-cpp would
// accept by accident: a quoted string without its closing quote, a second document after "---",
// a NUL byte, nesting deeper than 1000 levels; a leading UTF-8 byte order mark is skipped. Every
// syntax error names a line.
Result<YAML::Node> load_yaml_string(const std::string& text, const std::string& name);
// One value (`--set k=VALUE`, a plan's override): as load_yaml_string, and a value that reads as
// null ("null", "~", "!!null", only a comment), which would mean "absent", is refused at its
// line and column, naming `field`.
Result<YAML::Node> load_yaml_value(const std::string& text, const std::string& name,
                                   const std::string& field);

// The key among `candidates` closest to `key` (edit distance, case-insensitive), or "" if none is
// reasonably close.
std::string nearest_key(std::string_view key, const std::vector<std::string>& candidates);

// "a.b" + "c" -> "a.b.c"; "" + "c" -> "c".
std::string join_path(const std::string& parent, std::string_view key);

// A quantity parser from units.h, e.g. units::parse_duration_s.
using QuantityParser = std::function<Result<double>(std::string_view)>;

class MapReader {
 public:
  // Fails when `node` is not a map (names the path and what was found instead).
  static Result<MapReader> make(const YAML::Node& node, std::string path, const YamlContext& ctx);

  const std::string& path() const { return path_; }
  const YAML::Node& node() const { return node_; }
  const YamlContext& context() const { return *ctx_; }
  bool has(std::string_view key) const;
  // Marks `key` as consumed without reading it (for keys handled elsewhere).
  void mark_used(std::string_view key);
  // The child node (Null node if absent); marks the key as used.
  YAML::Node child(std::string_view key);

  // Readers. `required` fields that are absent are errors; optional absent fields leave `out`
  // unchanged (the struct's default member initialiser is the default). Limits are inclusive.
  Status integer(std::string_view key, int64_t& out, bool required, int64_t min, int64_t max);
  Status integer(std::string_view key, int& out, bool required, int min, int max);
  Status number(std::string_view key, double& out, bool required, double min, double max);
  // A quantity with a unit: a string parsed by `parser`; plain YAML numbers are passed to the
  // parser as text, so unit-less parsers (counts, fractions) accept them and unit parsers reject them.
  Status quantity(std::string_view key, double& out, const QuantityParser& parser, bool required,
                  double min, double max);
  Status string(std::string_view key, std::string& out, bool required);
  Status choice(std::string_view key, std::string& out, const std::vector<std::string>& choices,
                bool required);
  Status boolean(std::string_view key, bool& out, bool required);

  // Errors anchored at this map or at one of its keys.
  Error error(std::string_view key, const std::string& what) const;
  Error error_here(const std::string& what) const;
  SourceLocation location(std::string_view key) const;

  // Rejects keys that were never read, naming the nearest valid key. Call after all reads;
  // `valid` adds keys that are valid but were absent (for better suggestions).
  Status finish(const std::vector<std::string>& also_valid = {}) const;

 private:
  MapReader(const YAML::Node& node, std::string path, const YamlContext& ctx);
  Result<std::string> scalar(std::string_view key, const YAML::Node& n) const;

  YAML::Node node_;
  std::string path_;
  const YamlContext* ctx_;
  std::set<std::string, std::less<>> used_;
  std::vector<std::string> known_;  // every key asked for, present or not
};

// "map", "sequence", "scalar", "null" — for messages.
std::string yaml_kind(const YAML::Node& node);

// `text` as echoed in a message: at most `max_bytes` bytes (cut between UTF-8 characters), then
// "... (N bytes in all)", so a wrong file given as a value does not fill the terminal.
std::string clip_for_message(std::string_view text, size_t max_bytes = 80);

// What a path that exists but is not a regular file is, for messages: "a directory", "a device",
// "a FIFO (named pipe)", "a socket", or "not a regular file".
const char* file_kind(const std::filesystem::file_status& status);

// A whole number read exactly: plain digits (optional sign) are converted without a double, so
// every int64 value is exact and 2^63 is refused; count forms with units or exponents ("16M",
// "1e6") are accepted while they are exact (at most 2^53 in magnitude).
Result<int64_t> parse_exact_integer(std::string_view text);

}  // namespace ntpsim
