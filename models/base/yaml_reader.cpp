#include "models/base/yaml_reader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>

#include "models/base/units.h"
#include "models/base/utf8.h"

namespace ntpsim {

std::string clip_for_message(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t cut = max_bytes;
  // Never cut inside a UTF-8 sequence: messages stay valid UTF-8.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("{}... ({} bytes in all)", text.substr(0, cut), text.size());
}

namespace {

// A yaml-cpp mark (0-based, -1 when unset) as a location in `file` (1-based, 0 when unset).
SourceLocation location_of(const std::string& file, const YAML::Mark& m) {
  return m.line >= 0 ? SourceLocation{file, m.line + 1, m.column + 1} : SourceLocation{file, 0, 0};
}

// The entry of `by_prefix` whose key is the longest field-path prefix of `path` ("" matches
// every path); null when none is.
template <class T>
const T* longest_prefix(const std::map<std::string, T>& by_prefix, const std::string& path) {
  const T* best = nullptr;
  size_t best_len = 0;
  for (const auto& [prefix, value] : by_prefix) {
    const bool match = prefix.empty() || path == prefix ||
                       (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
                        (path[prefix.size()] == '.' || path[prefix.size()] == '['));
    if (match && (best == nullptr || prefix.size() >= best_len)) {
      best = &value;
      best_len = prefix.size();
    }
  }
  return best;
}

}  // namespace

const std::string& YamlContext::file_for(const std::string& path) const {
  const std::string* file = longest_prefix(origins_, path);
  return file != nullptr ? *file : default_file_;
}

SourceLocation YamlContext::locate(const YAML::Node& node, const std::string& path) const {
  if (!node.IsDefined()) return SourceLocation{file_for(path), 0, 0};
  const bool* marked = longest_prefix(marked_, path);
  if (marked != nullptr && !*marked && !unmarked_->any) {
    unmarked_->any = true;
    unmarked_->first_path = path;
  }
  return location_of(file_for(path), node.Mark());
}

namespace {

constexpr int kMaxNesting = 1000;  // deeper YAML is refused before yaml-cpp recurses into it

// The deepest nesting of flow collections ([ and {) and block sequence dashes on one line, outside
// quoted scalars and comments; the offset where `kMaxNesting` is first exceeded, if it is.
std::optional<size_t> too_deep(std::string_view text) {
  int depth = 0;
  char quote = 0;
  bool comment = false;
  bool line_start = true;  // only spaces and "- " since the line began
  int dashes = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      comment = false;
      line_start = true;
      dashes = 0;
      if (quote == 0) continue;
    }
    if (comment) continue;
    if (quote != 0) {
      if (quote == '"' && c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (line_start && c == '-' && i + 1 < text.size() &&
        (text[i + 1] == ' ' || text[i + 1] == '\n')) {
      if (++dashes > kMaxNesting) return i;
      continue;
    }
    if (c != ' ') line_start = false;
    if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t')) {
      comment = true;
    } else if (c == '"' || c == '\'') {
      if (i == 0 || std::string_view(" \t[{,:-\n").find(text[i - 1]) != std::string_view::npos) {
        quote = c;
      }
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNesting) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

// Where a quoted scalar that starts at `open` (its quote character) ends: the offset after the
// closing quote, or nullopt when the text ends first.
std::optional<size_t> closing_quote(std::string_view text, size_t open) {
  const char q = text[open];
  for (size_t i = open + 1; i < text.size(); ++i) {
    if (q == '"' && text[i] == '\\') {
      ++i;
    } else if (text[i] == q) {
      if (q == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;  // '' is a quote inside a single-quoted scalar
        continue;
      }
      return i + 1;
    }
  }
  return std::nullopt;
}

// yaml-cpp 0.7 accepts a quoted scalar whose closing quote is missing, swallowing the rest of the
// file into it. Every quoted scalar of the tree is checked against the text it came from.
Status check_quotes(const YAML::Node& n, std::string_view text, const std::string& name,
                    const std::string& path) {
  if (n.IsMap()) {
    for (const auto& kv : n) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string("?");
      NTPSIM_RETURN_IF_ERROR(check_quotes(kv.first, text, name, path));
      NTPSIM_RETURN_IF_ERROR(check_quotes(kv.second, text, name, join_path(path, key)));
    }
  } else if (n.IsSequence()) {
    size_t i = 0;
    for (const auto& e : n) {
      NTPSIM_RETURN_IF_ERROR(check_quotes(e, text, name, fmt::format("{}[{}]", path, i++)));
    }
  } else if (n.IsScalar()) {
    const YAML::Mark m = n.Mark();
    if (m.pos < 0 || static_cast<size_t>(m.pos) >= text.size()) return Status::Ok();
    const char c = text[static_cast<size_t>(m.pos)];
    if ((c == '"' || c == '\'') && !closing_quote(text, static_cast<size_t>(m.pos))) {
      return Error::at(location_of(name, m),
                       path.empty() ? std::string("(top level)") : path,
                       fmt::format("the quoted string has no closing {} (it would run to the end "
                                   "of the file)",
                                   c));
    }
  }
  return Status::Ok();
}

}  // namespace

namespace {

// Records where a document's first node starts, if it has one, and checks its aliases. yaml-cpp
// links an alias to its anchored node without copying it, so two shapes load without complaint
// that no reader can walk: an alias inside the node it refers to (a cycle: every walk recurses
// until the stack overflows), and aliases of aliases that multiply the document ("billion
// laughs": a few hundred bytes that walk as 10^9 nodes). The first is refused; the second when
// aliases add more than kMaxAliasNodes nodes to what the readers walk. Anchor ids are unique per
// definition (yaml-cpp numbers them as it reads), so a redefined name is a new anchor.
class DocumentScan final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    seen(mark);
    if (problem) return;
    if (anchor < open_.size() && open_[anchor]) {
      problem = Problem{mark, "an alias inside the node it refers to (a cycle): an alias must "
                              "refer to a node that is complete before it"};
      return;
    }
    const double n = anchor < size_.size() ? size_[anchor] : 1.0;
    nodes_ += n;
    alias_nodes_ += n;
    if (alias_nodes_ > kMaxAliasNodes) {
      problem = Problem{mark, fmt::format("aliases expand the document by more than {} nodes; "
                                          "write the repeated parts out or use fewer aliases",
                                          kMaxAliasNodes)};
    }
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    leaf(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    start(mark, anchor);
  }
  void OnSequenceEnd() override { end(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    start(mark, anchor);
  }
  void OnMapEnd() override { end(); }

  struct Problem {
    YAML::Mark mark;
    std::string what;
  };
  std::optional<YAML::Mark> first_content;  // where the document's first node starts
  std::optional<Problem> problem;           // the first alias that no reader could walk

 private:
  static constexpr double kMaxAliasNodes = 1e6;
  struct Frame {
    YAML::anchor_t anchor;
    double nodes_before;
  };
  void seen(const YAML::Mark& mark) {
    if (!first_content) first_content = mark;
  }
  void grow(YAML::anchor_t anchor) {
    if (anchor >= size_.size()) {
      size_.resize(anchor + 1, 1.0);
      open_.resize(anchor + 1, false);
    }
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    seen(mark);
    nodes_ += 1;
    if (anchor != YAML::NullAnchor) {
      grow(anchor);
      size_[anchor] = 1;
    }
  }
  void start(const YAML::Mark& mark, YAML::anchor_t anchor) {
    seen(mark);
    frames_.push_back({anchor, nodes_});
    nodes_ += 1;
    if (anchor != YAML::NullAnchor) {
      grow(anchor);
      open_[anchor] = true;
    }
  }
  void end() {
    if (frames_.empty()) return;
    const Frame f = frames_.back();
    frames_.pop_back();
    if (f.anchor != YAML::NullAnchor) {
      open_[f.anchor] = false;
      size_[f.anchor] = nodes_ - f.nodes_before;
    }
  }
  std::vector<Frame> frames_;  // the collections being read
  std::vector<double> size_;   // per anchor id: the nodes a walk of its node visits
  std::vector<bool> open_;     // per anchor id: its collection is still being read
  double nodes_ = 0;           // nodes a walk of the document visits so far
  double alias_nodes_ = 0;     // of which reached through aliases
};

struct DocumentsScan {
  std::optional<DocumentScan::Problem> alias_problem;  // in the first document
  std::optional<YAML::Mark> second_start;  // where a second document's content starts
};

// The first document's alias check, and where a second document's content starts, if the text
// has one with content. Bounded: two documents are parsed at most, whatever the input.
DocumentsScan scan_documents(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentScan first;
  if (!parser.HandleNextDocument(first)) return {};
  DocumentsScan out{first.problem, std::nullopt};
  DocumentScan second;
  if (parser.HandleNextDocument(second)) out.second_start = second.first_content;
  return out;
}

}  // namespace

namespace {

// load_yaml_string and load_yaml_value: `value_field` is null for a file (a document that is only
// comments or null is "empty") and the field path for one value (null is refused, at its place).
Result<YAML::Node> parse_yaml_text(const std::string& raw, const std::string& name,
                                   const std::string* value_field) {
  // A UTF-8 byte order mark is not part of the document (editors on Windows write one).
  const std::string_view text = without_utf8_bom(raw);
  // Names and strings reach JSON output, which must be UTF-8 (fuzz_scenario finding).
  if (const auto bad = first_invalid_utf8(text)) {
    const TextPosition p = position_of(text, *bad);
    return Error::bad_input(fmt::format("{}:{}:{}: not valid UTF-8 (byte 0x{:02X}); save the file as UTF-8",
                                        name, p.line, p.column, static_cast<unsigned char>(text[*bad])));
  }
  // yaml-cpp stops reading at a NUL byte; the rest of the file would be ignored.
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const TextPosition p = position_of(text, nul);
    return Error::bad_input(
        fmt::format("{}:{}:{}: a NUL byte; a YAML file is text (is this a binary file?)", name,
                    p.line, p.column));
  }
  if (const auto deep = too_deep(text)) {
    const TextPosition p = position_of(text, *deep);
    return Error::bad_input(fmt::format("{}:{}:{}: YAML nested deeper than {} levels", name, p.line,
                                        p.column, kMaxNesting));
  }
  try {
    const std::string owned(text);
    const YAML::Node doc = YAML::Load(owned);
    if (!doc.IsDefined() || doc.IsNull()) {
      if (value_field == nullptr)
        return Error::bad_input(fmt::format("{}: the file is empty", name));
      // "null", "~", "!!null", a comment or nothing at all: each reads as null.
      const size_t first = std::min(text.find_first_not_of(" \t\r\n"), text.size());
      const TextPosition p = position_of(text, first);
      return Error::at(SourceLocation{name, p.line, p.column}, *value_field,
                       "null is not a value (remove the field from the file to use its default)");
    }
    // A second document is looked for with at most two calls of the event parser: yaml-cpp 0.7's
    // LoadAll never ends on some inputs (", x" yields empty documents forever).
    const DocumentsScan scan = scan_documents(owned);
    if (const auto& second = scan.second_start) {
      return Error::bad_input(
          fmt::format("{}: a second YAML document (after \"---\"); a file holds one document",
                      location_of(name, *second).to_string()));
    }
    if (const auto& bad = scan.alias_problem) {
      return Error::bad_input(
          fmt::format("{}: {}", location_of(name, bad->mark).to_string(), bad->what));
    }
    NTPSIM_RETURN_IF_ERROR(check_quotes(doc, owned, name, ""));
    return doc;
  } catch (const YAML::Exception& e) {
    // A syntax error always names a line: yaml-cpp leaves some marks unset.
    int line = e.mark.line >= 0 ? e.mark.line + 1 : 0;
    const int column = e.mark.column >= 0 ? e.mark.column + 1 : 0;
    if (line == 0) line = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
    SourceLocation loc{name, line, column};
    return Error::bad_input(fmt::format("{}: YAML syntax error: {}", loc.to_string(), e.msg));
  }
}

}  // namespace

Result<YAML::Node> load_yaml_string(const std::string& text, const std::string& name) {
  return parse_yaml_text(text, name, nullptr);
}

Result<YAML::Node> load_yaml_value(const std::string& text, const std::string& name,
                                   const std::string& field) {
  return parse_yaml_text(text, name, &field);
}

const char* file_kind(const std::filesystem::file_status& status) {
  namespace fs = std::filesystem;
  if (fs::is_directory(status)) return "a directory";
  if (fs::is_character_file(status) || fs::is_block_file(status)) return "a device";
  if (fs::is_fifo(status)) return "a FIFO (named pipe)";
  if (fs::is_socket(status)) return "a socket";
  return "not a regular file";
}

Result<YAML::Node> load_yaml_file(const std::string& path) {
  auto text = read_yaml_file_text(path);
  if (!text.ok()) return text.error();
  return load_yaml_string(*text, path);
}

Result<std::string> read_yaml_file_text(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Error::bad_input(fmt::format("{}: no such file", path));
    return Error::bad_input(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) {
    return Error::bad_input(fmt::format("{}: is a directory, expected a YAML file", path));
  }
  if (!S_ISREG(st.st_mode)) {
    return Error::bad_input(fmt::format("{}: is {}, expected a YAML file", path,
                                        S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                        : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                                                               : "not a regular file"));
  }
  const auto size = static_cast<uintmax_t>(st.st_size);
  constexpr uintmax_t kMaxYamlBytes = 64u << 20;
  if (size > kMaxYamlBytes) {
    return Error::bad_input(fmt::format("{}: {} bytes is too large for a YAML file (limit 64 MiB)", path, size));
  }
  // Read in one call of the stat size (the planner checks its files' bytes once per candidate),
  // then to the end of the file, which may have grown since.
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(path.c_str(), "rb"),
                                                           &std::fclose);
  if (!in) return Error::bad_input(fmt::format("{}: cannot open for reading", path));
  std::string text(static_cast<size_t>(size), '\0');
  text.resize(std::fread(text.data(), 1, text.size(), in.get()));
  char more[4096];
  for (size_t n; (n = std::fread(more, 1, sizeof more, in.get())) > 0;) text.append(more, n);
  if (std::ferror(in.get()) != 0) {
    return Error::bad_input(fmt::format("{}: cannot read: read error", path));
  }
  return text;
}

bool file_has_bytes(const std::string& path, std::string_view bytes) {
  // POSIX calls on a stack buffer: no allocation (the planner compares its files per candidate).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  bool same = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
              static_cast<uintmax_t>(st.st_size) == bytes.size();
  char block[8192];
  size_t at = 0;
  while (same) {
    const ssize_t n = ::read(fd, block, sizeof block);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      same = n == 0 && at == bytes.size();
      break;
    }
    const auto got = static_cast<size_t>(n);
    same = got <= bytes.size() - at && std::memcmp(block, bytes.data() + at, got) == 0;
    at += got;
  }
  ::close(fd);
  return same;
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
  return fmt::format("\"{}\"", clip_for_message(node.Scalar()));
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

Result<int64_t> parse_exact_integer(std::string_view text) {
  const std::string shown = clip_for_message(text);
  std::string_view t = text;
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  std::string_view digits = t;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  const bool negative = !digits.empty() && digits.front() == '-';
  if (negative) digits.remove_prefix(1);
  if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos) {
    // Plain digits: read exactly, never through a double.
    uint64_t magnitude = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
    const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    if (ec != std::errc() || ptr != digits.data() + digits.size() || magnitude > limit) {
      return Error::bad_input(fmt::format("{} is out of the range of whole numbers [{}, {}]", shown,
                                          std::numeric_limits<int64_t>::min(),
                                          std::numeric_limits<int64_t>::max()));
    }
    if (!negative) return static_cast<int64_t>(magnitude);
    return magnitude == (uint64_t{1} << 63) ? std::numeric_limits<int64_t>::min()
                                            : -static_cast<int64_t>(magnitude);
  }
  // Other forms ("16M", "1e6", "4K"): exact only while a double holds every whole number.
  auto v = units::parse_count(t);
  if (!v.ok() || *v != std::floor(*v)) {
    return Error::bad_input(fmt::format("expected a whole number, got \"{}\"", shown));
  }
  constexpr double kExact = 9007199254740992.0;  // 2^53
  if (std::fabs(*v) > kExact) {
    return Error::bad_input(fmt::format(
        "\"{}\" is too large to be exact in this form; write the number with all its digits",
        shown));
  }
  return static_cast<int64_t>(*v);
}

Status MapReader::integer(std::string_view key, int64_t& out, bool required, int64_t min,
                          int64_t max) {
  const YAML::Node n = child(key);
  if (!n.IsDefined() || n.IsNull()) return required ? missing(*this, key) : Status::Ok();
  auto s = scalar(key, n);
  if (!s.ok()) return s.error();
  auto v = parse_exact_integer(*s);
  if (!v.ok()) return error(key, v.error().message);
  if (*v < min || *v > max) {
    return error(key, fmt::format("{} is out of range [{}, {}]", clip_for_message(*s), min, max));
  }
  out = *v;
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
