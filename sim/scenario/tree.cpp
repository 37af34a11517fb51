// Include merging and `--set` overrides on the raw scenario tree (tree.h).
//
// yaml-cpp nodes are references: `a = b` on a bound node rewrites what it refers to, so this file
// rebinds cursors with reset() and inserts key/value pairs with force_insert(), which keeps the
// original key and value nodes (and with them their line/column marks).
#include "sim/scenario/tree.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>

#include "models/base/file_stamp.h"

namespace ntpsim::sim::scenario_internal {
namespace {

namespace fs = std::filesystem;
using Origins = std::map<std::string, std::string>;

constexpr int kMaxIncludeDepth = 16;

struct Loaded {
  YAML::Node root;
  std::string file;
  Origins origins;  // deeper parts that came from this file's own includes
};

YamlContext context_of(const std::string& file, const Origins& origins) {
  YamlContext ctx(file);
  for (const auto& [path, f] : origins) ctx.set_origin(path, f);
  return ctx;
}

bool is_below(const std::string& path, const std::string& prefix) {
  return path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
         (path[prefix.size()] == '.' || path[prefix.size()] == '[');
}

// Merges `base` (from an included file) under `top`: keys of `top` win, maps merge recursively,
// keys only in `base` are inserted with their origin.
void merge_under(YAML::Node top, const YAML::Node& base, const std::string& path, Origins& origins,
                 const Loaded& from) {
  const YamlContext from_ctx = context_of(from.file, from.origins);
  for (const auto& kv : base) {
    const std::string key = kv.first.Scalar();
    const std::string p = join_path(path, key);
    const YAML::Node& ctop = top;
    const YAML::Node existing = ctop[key];
    if (existing.IsDefined()) {
      if (existing.IsMap() && kv.second.IsMap()) merge_under(existing, kv.second, p, origins, from);
      continue;
    }
    top.force_insert(kv.first, kv.second);
    origins[p] = from_ctx.file_for(p);
    for (const auto& [prefix, file] : from.origins) {
      if (is_below(prefix, p)) origins[prefix] = file;
    }
  }
}

std::string chain_text(const std::vector<std::string>& stack, const std::string& last) {
  std::string s;
  for (const auto& f : stack) s += f + " -> ";
  return s + last;
}

// `read` gets every file parsed, with its bytes.
Result<Loaded> load_recursive(const std::string& file, std::vector<std::string>& stack,
                              std::vector<std::pair<std::string, StampedText>>& read) {
  auto text = read_stamped_text(file);
  if (!text.ok()) return text.error();
  auto root = load_yaml_string(text->text, file);
  if (!root.ok()) return root.error();
  read.emplace_back(file, std::move(*text));
  const YamlContext ctx(file);
  if (!root->IsMap()) {
    return Error::at(ctx.locate(*root, ""), "(top level)",
                     fmt::format("expected a map of scenario fields, got {}", yaml_kind(*root)));
  }
  Loaded out{*root, file, {}};
  const YAML::Node& croot = *root;
  const YAML::Node inc = croot["include"];
  if (!inc.IsDefined()) return out;

  std::vector<YAML::Node> entries;
  if (inc.IsScalar()) {
    entries.push_back(inc);
  } else if (inc.IsSequence()) {
    for (const auto& e : inc) entries.push_back(e);
  }
  if (entries.empty() || (!inc.IsScalar() && !inc.IsSequence())) {
    return Error::at(ctx.locate(inc, "include"), "include",
                     fmt::format("expected a file or a list of files, got {}", yaml_kind(inc)));
  }
  std::vector<Loaded> bases;
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string field = inc.IsSequence() ? fmt::format("include[{}]", i) : "include";
    const YAML::Node& e = entries[i];
    if (!e.IsScalar() || e.Scalar().empty()) {
      return Error::at(ctx.locate(e, field), field,
                       fmt::format("expected a file name, got {}", yaml_kind(e)));
    }
    const fs::path target = (fs::path(file).parent_path() / e.Scalar()).lexically_normal();
    std::error_code ec;
    const fs::file_status status = fs::status(target, ec);
    if (!fs::exists(status)) {
      return Error::at(ctx.locate(e, field), field,
                       fmt::format("included file \"{}\" not found", clip_for_message(e.Scalar())));
    }
    if (!fs::is_regular_file(status)) {
      return Error::at(ctx.locate(e, field), field,
                       fmt::format("included file \"{}\" is {}, not a YAML file",
                                   clip_for_message(e.Scalar()), file_kind(status)));
    }
    const std::string canon = fs::weakly_canonical(target, ec).string();
    for (const auto& s : stack) {
      if (s == canon) {
        return Error::at(ctx.locate(e, field), field,
                         fmt::format("include cycle: {}", chain_text(stack, canon)));
      }
    }
    if (static_cast<int>(stack.size()) >= kMaxIncludeDepth) {
      return Error::at(ctx.locate(e, field), field,
                       fmt::format("includes nest deeper than {} files", kMaxIncludeDepth));
    }
    stack.push_back(canon);
    auto base = load_recursive(target.string(), stack, read);
    stack.pop_back();
    if (!base.ok()) return base.error();
    bases.push_back(std::move(base.value()));
  }
  out.root.remove("include");
  // Later includes override earlier ones, and this file overrides them all: merge the bases
  // under this file's tree from the last to the first.
  for (auto it = bases.rbegin(); it != bases.rend(); ++it) {
    merge_under(out.root, it->root, "", out.origins, *it);
  }
  return out;
}

struct Step {
  std::string key;  // a map key, or empty for a list index
  size_t index = 0;
};

// Errors carry only what is wrong with the path; the caller says where it was written.
Result<std::vector<Step>> parse_path(const std::string& path) {
  std::vector<Step> steps;
  size_t i = 0;
  auto bad = [&](const std::string& why) {
    return Error::bad_input(fmt::format("bad field path \"{}\": {}", path, why));
  };
  while (i < path.size()) {
    size_t j = i;
    while (j < path.size() && (std::isalnum(static_cast<unsigned char>(path[j])) ||
                               path[j] == '_' || path[j] == '-')) {
      ++j;
    }
    if (j == i) return bad(fmt::format("expected a field name at character {}", i + 1));
    steps.push_back({path.substr(i, j - i), 0});
    i = j;
    while (i < path.size() && path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string::npos || close == i + 1) return bad("unterminated list index");
      size_t index = 0;
      for (size_t k = i + 1; k < close; ++k) {
        if (!std::isdigit(static_cast<unsigned char>(path[k])) || index > 1'000'000) {
          return bad("a list index must be a small whole number");
        }
        index = index * 10 + static_cast<size_t>(path[k] - '0');
      }
      steps.push_back({"", index});
      i = close + 1;
    }
    if (i < path.size()) {
      if (path[i] != '.' || i + 1 == path.size()) return bad("expected '.' between field names");
      ++i;
    }
  }
  if (steps.empty()) return bad("empty");
  return steps;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

}  // namespace

YamlContext ScenarioTree::context() const {
  YamlContext ctx = context_of(file, origins);
  for (const auto& [path, m] : marked) ctx.set_marked(path, m);
  return ctx;
}

namespace {

// The trees load_tree gave, by top-level file, each with the files it was read from and their
// bytes. A kept tree is never handed out: callers get clones, which they may change.
class TreeMemo {
 public:
  using Read = std::vector<std::pair<std::string, StampedText>>;  // each file read, stamped

  // Keeps a copy of `tree`, read from the files and bytes `read`; returns its kept_generation.
  uint64_t keep(const ScenarioTree& tree, Read read) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = kept_.find(tree.file);
    if (it != kept_.end() && same_bytes(it->second->read, read)) {
      return it->second->tree.kept_generation;  // kept already
    }
    if (kept_.size() >= kCapacity && it == kept_.end()) kept_.clear();
    ScenarioTree kept = clone(tree);
    kept.kept_generation = ++generations_;
    const uint64_t generation = kept.kept_generation;
    kept_[tree.file] = std::make_shared<const Entry>(Entry{std::move(kept), std::move(read)});
    return generation;
  }

  // A copy of the tree kept for `file` (only its top-level fields in `keys` when given), when
  // every file it was read from still has the same bytes.
  std::optional<ScenarioTree> copy(const std::string& file,
                                   const std::vector<std::string>* keys = nullptr) {
    const auto entry = holding(file);
    if (entry == nullptr) return std::nullopt;
    // Made under the lock, and only while the entry compared is still the kept one.
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!still_kept(file, entry)) return std::nullopt;
    return keys == nullptr ? clone(entry->tree) : clone_sections(entry->tree, *keys);
  }

  // The kept_generation copy(file) would give.
  std::optional<uint64_t> generation(const std::string& file) {
    const auto entry = holding(file);
    if (entry == nullptr) return std::nullopt;
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!still_kept(file, entry)) return std::nullopt;
    return entry->tree.kept_generation;
  }

 private:
  static constexpr size_t kCapacity = 16;
  struct Entry {
    ScenarioTree tree;
    Read read;
  };
  // The entry kept for `file` when every file it was read from still has the same bytes, else
  // null. The files are compared outside the lock.
  std::shared_ptr<const Entry> holding(const std::string& file) {
    std::shared_ptr<const Entry> entry;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto it = kept_.find(file);
      if (it == kept_.end()) return nullptr;
      entry = it->second;
    }
    for (const auto& [f, kept] : entry->read) {
      if (!still_holds(f, kept)) return nullptr;
    }
    return entry;
  }
  // Whether `entry` is still the one kept for `file`. REQUIRES: mutex_ held.
  bool still_kept(const std::string& file, const std::shared_ptr<const Entry>& entry) const {
    const auto it = kept_.find(file);
    return it != kept_.end() && it->second == entry;
  }
  static bool same_bytes(const Read& a, const Read& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
      return x.first == y.first && x.second.text == y.second.text;
    });
  }
  static ScenarioTree clone(const ScenarioTree& t) {
    return ScenarioTree{YAML::Clone(t.root), t.file, t.origins, {{"", false}}, t.kept_generation};
  }
  static ScenarioTree clone_sections(const ScenarioTree& t, const std::vector<std::string>& keys) {
    const auto wanted = [&](const std::string& key) {
      return std::find(keys.begin(), keys.end(), key) != keys.end();
    };
    ScenarioTree out{YAML::Node(YAML::NodeType::Map), t.file, {}, {{"", false}}, t.kept_generation};
    for (const auto& kv : t.root) {
      if (wanted(kv.first.Scalar())) {
        out.root.force_insert(YAML::Clone(kv.first), YAML::Clone(kv.second));
      }
    }
    for (const auto& [path, f] : t.origins) {
      const auto first = path.substr(0, path.find_first_of(".["));
      if (wanted(first)) out.origins.emplace(path, f);
    }
    return out;
  }
  std::mutex mutex_;
  uint64_t generations_ = 0;  // trees kept so far (under mutex_), numbering them from 1
  std::map<std::string, std::shared_ptr<const Entry>> kept_;
};

TreeMemo& tree_memo() {
  static TreeMemo memo;
  return memo;
}

}  // namespace

Result<ScenarioTree> load_tree(const std::string& file, uint64_t* kept_as) {
  std::vector<std::string> stack;
  std::error_code ec;
  stack.push_back(fs::weakly_canonical(fs::path(file), ec).string());
  std::vector<std::pair<std::string, StampedText>> read;
  auto loaded = load_recursive(file, stack, read);
  if (!loaded.ok()) return loaded.error();
  ScenarioTree tree{loaded->root, file, loaded->origins, {}};
  const uint64_t generation = tree_memo().keep(tree, std::move(read));
  if (kept_as != nullptr) *kept_as = generation;
  return tree;
}

std::optional<ScenarioTree> kept_tree(const std::string& file) {
  return tree_memo().copy(file);
}

std::optional<uint64_t> kept_generation(const std::string& file) {
  return tree_memo().generation(file);
}

std::optional<ScenarioTree> kept_sections(const std::string& file,
                                          const std::vector<std::string>& keys) {
  return tree_memo().copy(file, &keys);
}

namespace {

// What the override texts parsed to, per thread, for apply_override_reusing: the planner applies
// the same few assignments (a cluster size, a TP degree, a strategy) to thousands of candidates,
// and yaml-cpp's parse of even one word costs about as much as reading the rest of a candidate.
// Handed out as copies, so no tree shares a node with another. Only successful parses are kept.
// Bounded: when full, the memo starts over.
class ParsedTexts {
 public:
  // `field` names the value's field ("" for a key or a map): load_yaml_value's and
  // load_yaml_string's results depend on (text, origin, field) only.
  template <class Parse>
  Result<YAML::Node> get(const std::string& text, const std::string& origin,
                         const std::string& field, Parse&& parse) {
    Key key{text, origin, field};
    if (const auto it = kept_.find(key); it != kept_.end()) return YAML::Clone(it->second);
    auto node = parse();
    if (!node.ok()) return node;
    if (kept_.size() >= kCapacity) kept_.clear();
    kept_.emplace(std::move(key), YAML::Clone(*node));
    return node;
  }

 private:
  static constexpr size_t kCapacity = 4096;
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, YAML::Node> kept_;
};

ParsedTexts& parsed_texts() {
  thread_local ParsedTexts memo;
  return memo;
}

Status apply(ScenarioTree& tree, const std::string& assignment, const SourceLocation& written_at,
             bool reuse) {
  const bool in_file = !written_at.file.empty();
  const std::string origin = in_file ? written_at.file : "--set " + assignment;
  // "file:line:col: field: what" for an override written in a file; "--set a=v: field: what" for
  // one given on the command line.
  const auto fail = [&](const std::string& field, const std::string& what) {
    if (in_file) return Error::at(written_at, field.empty() ? "(override)" : field, what);
    return Error::bad_input(field.empty() ? fmt::format("{}: {}", origin, what)
                                          : fmt::format("{}: {}: {}", origin, field, what));
  };
  // YAML text placed at its position in the file it was written in (line breaks and spaces in
  // front), so the marks of the parsed nodes, and with them every later error, are that file's.
  const auto placed = [&](const std::string& text, size_t offset) {
    if (!in_file) return text;
    std::string out;  // appended in steps: GCC 12 warns falsely (-Wrestrict) on a + b + c
    out.append(static_cast<size_t>(std::max(0, written_at.line - 1)), '\n');
    out.append(static_cast<size_t>(std::max(0, written_at.column - 1)) + offset, ' ');
    out.append(text);
    return out;
  };
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos) return fail("", "expected FIELD.PATH=VALUE");
  const std::string path = trim(assignment.substr(0, eq));
  const std::string text = trim(assignment.substr(eq + 1));
  auto steps = parse_path(path);
  if (!steps.ok()) return fail("", steps.error().message);
  if (text.empty()) return fail(path, "empty value");
  // A parse of `yaml` (a value of field `path` when `value`, else a key or an empty map).
  const auto parse = [&](const std::string& yaml, bool value) -> Result<YAML::Node> {
    const auto fresh = [&] {
      return value ? load_yaml_value(yaml, origin, path) : load_yaml_string(yaml, origin);
    };
    if (!reuse) return fresh();
    return parsed_texts().get(yaml, origin, value ? path : std::string(), fresh);
  };
  const size_t value_offset = assignment.find(text, eq + 1);
  auto value = parse(placed(text, value_offset), true);
  if (!value.ok()) return value.error();

  YAML::Node cur;
  cur.reset(tree.root);
  std::string walked;
  std::vector<std::string> created;  // maps this override created, outermost first
  for (size_t s = 0; s < steps->size(); ++s) {
    const Step& step = (*steps)[s];
    const bool last = s + 1 == steps->size();
    if (step.key.empty()) {
      if (!cur.IsSequence() || step.index >= cur.size()) {
        return fail(path, fmt::format("{} has no element [{}]", walked, step.index));
      }
      walked += fmt::format("[{}]", step.index);
      if (last) {
        cur[step.index] = *value;
      } else {
        YAML::Node next = cur[step.index];
        cur.reset(next);
      }
      continue;
    }
    const std::string here = join_path(walked, step.key);
    if (cur.IsScalar() && walked.starts_with("strategies[") &&
        walked.find('.') == std::string::npos) {
      // A strategy given by name alone ("- ntp") takes parameters once it is a map.
      auto as_map = parse(placed("{}", 0), false);
      auto name_key = parse(placed("name", 0), false);
      if (!as_map.ok() || !name_key.ok()) return fail(path, "internal error");
      as_map->force_insert(*name_key, YAML::Node(cur.Scalar()));
      cur = *as_map;
      created.push_back(walked);
    }
    if (!cur.IsMap()) {
      return fail(path, fmt::format("{} is {}, not a map", walked.empty() ? "(top level)" : walked,
                                    yaml_kind(cur)));
    }
    const YAML::Node& ccur = cur;
    const YAML::Node existing = ccur[step.key];
    if (last) {
      if (existing.IsDefined()) cur.remove(step.key);
      auto key = parse(placed(step.key, 0), false);
      if (!key.ok()) return key.error();
      cur.force_insert(*key, *value);
    } else if (!existing.IsDefined() || existing.IsNull()) {
      // A new map, parsed so that it carries a line/column mark; its origin is this override.
      auto fresh = parse(placed("{}", 0), false);
      auto key = parse(placed(step.key, 0), false);
      if (!fresh.ok() || !key.ok()) return fail(path, "bad path");
      if (existing.IsDefined()) cur.remove(step.key);
      cur.force_insert(*key, *fresh);
      created.push_back(here);
      YAML::Node next = cur[step.key];
      cur.reset(next);
    } else {
      YAML::Node next = cur[step.key];
      cur.reset(next);
    }
    walked = here;
  }
  // The value replaces everything below its path: there, origin and marks are the override's
  // (reused nodes are copies, without marks).
  const auto below = [&](const auto& entry) { return is_below(entry.first, path); };
  std::erase_if(tree.origins, below);
  std::erase_if(tree.marked, below);
  tree.origins[path] = origin;
  tree.marked[path] = !reuse;
  for (const auto& c : created) {
    tree.origins[c] = origin;
    tree.marked[c] = !reuse;
  }
  return Status::Ok();
}

}  // namespace

Status apply_override(ScenarioTree& tree, const std::string& assignment,
                      const SourceLocation& written_at) {
  return apply(tree, assignment, written_at, false);
}

Status apply_override_reusing(ScenarioTree& tree, const std::string& assignment,
                              const SourceLocation& written_at) {
  return apply(tree, assignment, written_at, true);
}

}  // namespace ntpsim::sim::scenario_internal
