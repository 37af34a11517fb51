// Atomic file output: the one way every ntpsim writer puts a finished file on disk.
//
// `write_file_atomic(path, text)` writes `text` to a temporary file in the target's folder, flushes
// it to the disk (fsync), and renames it over `path`. A reader therefore sees either the old file
// or the complete new one, never a half-written one; on any failure the temporary is removed and
// `path` is left untouched.
//
// Only regular files are ever written: an output that is a directory, a device (`/dev/null`), a
// FIFO, a socket, or a symbolic link to one of those (or to nothing) is refused before anything is
// written. A symbolic link to a regular file is followed, so the file it points to is replaced and
// the link stays.
//
// Temporary names are `.<name>.ntpsim-<pid>-<n>.tmp` beside the target (a hidden file that
// names the tool and the process that left it, e.g. after SIGKILL), shortened so that they fit
// NAME_MAX even for a 255-byte output name.
//
// `OutputSet` writes a command's several outputs all or none: it refuses an output that is one of
// the command's inputs or another output (same resolved path or same inode), stages every file as
// a temporary, and only then moves them into place. Files that existed before are kept when
// anything fails: they are replaced only in `commit()`, which restores them when a later rename
// fails.
//
// Errors: bad input (exit 2) for an unusable output path (empty, not a regular file, an input,
// given twice); runtime (exit 1) naming the path and the operating system's reason for I/O.
// Thread safety: `write_file_atomic` may be called from several threads at once (each call uses
// its own temporary); an `OutputSet` belongs to one thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/base/status.h"

namespace ntpsim {

// Checks that `path` may be written as an output and returns the file to replace: `path` itself,
// or the regular file a symbolic link at `path` points to. `what` names the option in messages
// (e.g. "--out"; empty: the path alone).
Result<std::string> output_target(const std::string& path, std::string_view what = {});

// The temporary name used beside `target` (exposed for tests): fits NAME_MAX.
std::string temporary_name_for(const std::string& target, std::string_view kind);

Status write_file_atomic(const std::string& path, std::string_view text);

class OutputSet {
 public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  // Removes every staged temporary not moved into place (a failed or abandoned command).
  ~OutputSet();

  // A file the command reads (`what` names it in messages); no output may be the same file.
  // Absent paths are remembered by resolved name.
  void add_input(const std::string& path, std::string_view what = "input file");
  // Reserves `path` as an output before the work starts, so a bad or clashing path fails before a
  // long run. Empty paths are refused (the caller skips outputs that were not asked for).
  Status declare(const std::string& path, std::string_view what = {});
  // Writes `text` to a temporary beside `path` (declaring it when not yet declared). `path`
  // itself is not touched until commit().
  Status stage(const std::string& path, std::string_view text);
  // Where the staged text of `path` lies until commit() (for reading a file back before it is
  // committed); empty when `path` was not staged.
  std::string staged_file(const std::string& path) const;
  // Moves every staged file into place. All or none: when a rename fails, the files moved so far
  // are put back as they were (restored when they existed, removed when they did not).
  Status commit();

 private:
  struct Identity {
    std::string resolved;  // absolute, symbolic links and ".." resolved
    std::optional<std::pair<dev_t, ino_t>> inode;
  };
  struct Entry {
    std::string path;    // as given
    std::string target;  // the regular file replaced
    std::string what;
    Identity id;
    std::string temp;  // staged temporary; empty until staged
  };
  static Identity identify(const std::string& path);
  static bool same(const Identity& a, const Identity& b);
  static std::string shown(const Entry& e);  // "--out FILE" or "FILE"

  std::vector<Entry> inputs_;
  std::vector<Entry> outputs_;
};

}  // namespace ntpsim
