// The raw YAML tree of a scenario after `include:` merging and `--set` overrides (internal to the
// scenario loader; not part of the public API).
//
// Include semantics: `include:` (a file or a list of files, relative to the including file) names
// base scenarios. The bases are merged in order, then the including file over them: maps merge
// key by key, recursively; scalars and lists replace. Cycles are errors. Every value remembers the
// file it came from through `origins` (a YamlContext keyed by field path), so that errors found
// later name the right file, line and column.
//
// Overrides: "a.b.c=value" or "a.list[2].b=value"; the value is parsed as YAML (so "[a, b]" is a
// list); intermediate maps are created; a list index must exist. A strategy given by name alone
// becomes {name: <it>} when a parameter is set on it ("strategies[3].rule=parity"). The override's
// origin is the text "--set a.b.c=value", so its errors read "--set a.b.c=value:1:1: a.b.c: ...".
// Thread safety: plain values; one tree per load.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/base/status.h"
#include "models/base/yaml_reader.h"

namespace ntpsim::sim::scenario_internal {

struct ScenarioTree {
  YAML::Node root;   // the merged top-level map, without `include` keys
  std::string file;  // the top-level file: the origin of everything not in `origins`
  std::map<std::string, std::string> origins;  // field path -> file (or override) it came from
  // Field path -> whether its nodes carry their line/column marks (longest prefix wins; absent:
  // they do). A copy (kept_tree) has none, except below the overrides parsed into it since.
  std::map<std::string, bool> marked;
  // Nonzero in a copy from kept_tree: which kept tree it was copied from. Copies with the same
  // number were read from the same bytes of the same files, so whatever a pure reader makes of
  // a subtree that no override has changed since is the same for every such copy.
  uint64_t kept_generation = 0;

  // The origins and marks as a YamlContext for MapReader (longest path prefix wins).
  YamlContext context() const;
};

// Loads `file` with its includes, merged. Errors: unreadable files, YAML syntax, a non-map top
// level, bad `include` values, missing included files, include cycles, nesting deeper than 16.
// A tree loaded without error is also kept (a copy), with the bytes of every file it was read
// from, for kept_tree(); `kept_as`, when given, receives the kept copy's kept_generation (the
// returned tree itself is no copy: its kept_generation is 0).
Result<ScenarioTree> load_tree(const std::string& file, uint64_t* kept_as = nullptr);

// A copy of the tree load_tree(file) last gave, when every file it was read from still has the
// same bytes; nullopt otherwise (never loaded, or a file changed or cannot be read). Reading the
// files costs a fraction of parsing them, which is what the planner's thousands of loads of one
// base scenario save. The copy has the loaded tree's values, key order, tags and origins but not
// its line/column marks (yaml-cpp's Clone gives every node line 1, column 1), and `marked` says
// so: a location a reader asks of it is recorded (YamlContext::gave_unmarked_location).
// Bounded: a few trees are kept; when full, the memo starts over.
// Thread safety: load_tree and kept_tree may be called from many threads at once.
std::optional<ScenarioTree> kept_tree(const std::string& file);

// The kept_generation kept_tree(file) would give now, without the copy; nullopt where it would
// give none. Same conditions and thread safety.
std::optional<uint64_t> kept_generation(const std::string& file);

// As kept_tree, but the copy holds only the top-level fields named in `keys` (those the kept
// tree has), with their origins: for a reader that needs a few sections of a tree it read whole
// before, at the cost of copying those sections alone. Same conditions and thread safety.
std::optional<ScenarioTree> kept_sections(const std::string& file,
                                          const std::vector<std::string>& keys);

// Applies one "path=value" override to the tree. Errors: no '=', an empty or malformed path, a
// list index out of range, a path through a scalar, a value that is not valid YAML or is null.
// `written_at`: where the assignment's text starts when it was written in a file (a plan's
// `overrides:` entry); its errors, and every later error in the value it sets, then name that
// file, line and column. Empty (the command line): the origin is the text "--set a.b=value".
Status apply_override(ScenarioTree& tree, const std::string& assignment,
                      const SourceLocation& written_at = {});

// As apply_override, with the same outcome and values, but the value and key nodes may be copies
// of those an identical earlier assignment on this thread parsed: copies lack their line/column
// marks. For a tree whose reading is taken only where it needed no location from an unmarked
// node (YamlContext::gave_unmarked_location); the planner's thousands of candidates apply the
// same few assignments.
Status apply_override_reusing(ScenarioTree& tree, const std::string& assignment,
                              const SourceLocation& written_at = {});

}  // namespace ntpsim::sim::scenario_internal
