// A command's output files, all or none: `ntpsim run`, `sweep` and `plan` write several files
// (results JSON, CSV, report, timeline); each is put in place atomically, and when a later one
// fails the ones already written are removed, so a failed command leaves no output behind.
// Ownership: holds the paths written so far. Thread safety: none (main thread).
#pragma once

#include <string>
#include <vector>

#include "models/base/status.h"

namespace ntpsim::cli {

class OutputSet {
 public:
  // Writes `text` to `path` atomically; on failure removes every file written before.
  Status write(const std::string& path, const std::string& text);
  // Records `st` of files written by another writer (`paths`, those that exist when it succeeded);
  // on failure removes every file written before.
  Status add(const Status& st, const std::vector<std::string>& paths);

 private:
  void remove_written();
  std::vector<std::string> written_;
};

}  // namespace ntpsim::cli
