// Progress files for long commands (`ntpsim sweep --resume FILE`, `ntpsim plan --resume FILE`):
// a journal of finished work that an interrupted command continues from, with final results
// identical to an uninterrupted run.
//
// Format (JSON lines, docs/resume.md): line 1 is the header {"progress": "ntpsim-progress/1",
// "identity": {...}}; every further line is one finished unit of work {"key": "...", "data":
// {...}, "fnv": "<16 hex digits>"}, where fnv is the FNV-1a 64 hash of the compact dump of
// [key, data]. A record is appended with one write() of the whole line followed by fsync, so a
// signal can never split one; only a crash or power loss can leave a torn last line (no newline,
// or a hash mismatch), which the next open drops and reports in dropped_torn_line(). A damaged
// line before the last is bad input naming the file and line.
//
// The identity is everything the results depend on (tool version and git SHA, scenario hash,
// overrides, seed, replications, ...): resuming with a different identity is bad input naming the
// first differing field, so a progress file never mixes two runs. Thread and rank counts are not
// part of it: results do not depend on them.
//
// Doubles round-trip exactly through exact_number()/read_exact_number(): finite values as JSON
// numbers (nlohmann writes the shortest text that parses back to the same double), NaN and
// infinities as the strings "nan", "inf", "-inf".
//
// Ownership: a ProgressJournal owns its open file descriptor and an exclusive advisory lock
// (flock) on it, released on destruction; a second process opening the same file gets a runtime
// error. Thread safety: none; use from one thread.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>

#include "models/base/status.h"

namespace ntpsim::sim {

class ProgressJournal {
 public:
  // Opens `path` for resuming: when the file exists its header must carry `identity` and its
  // records are loaded; when it does not exist it is created with that header. Errors: bad input
  // (exit 2) for a file that is not a progress file, a different identity, or a damaged record
  // before the last line; runtime (exit 1) for I/O failures and a file locked by another process.
  static Result<std::unique_ptr<ProgressJournal>> open(const std::string& path,
                                                       const nlohmann::ordered_json& identity);

  // Parses journal text without a file (MPI ranks other than 0 get the text from rank 0):
  // the same checks as open(); append() on the result is an error.
  static Result<std::unique_ptr<ProgressJournal>> parse(const std::string& path,
                                                        const std::string& text,
                                                        const nlohmann::ordered_json& identity);

  ~ProgressJournal();
  ProgressJournal(const ProgressJournal&) = delete;
  ProgressJournal& operator=(const ProgressJournal&) = delete;

  // The data recorded under `key`, or null. A key appended twice keeps its first record.
  const nlohmann::ordered_json* find(const std::string& key) const;
  size_t size() const { return records_.size(); }
  bool dropped_torn_line() const { return dropped_torn_line_; }
  const std::string& path() const { return path_; }
  // The file's text as read at open (header and whole records), for parse() on other ranks.
  const std::string& text() const { return text_; }

  // Appends one record and syncs it to disk before returning (runtime error on I/O failure).
  Status append(const std::string& key, const nlohmann::ordered_json& data);

  // Removes the file (once the command's outputs are written); the journal stays readable.
  Status remove();

 private:
  ProgressJournal() = default;
  std::string path_;
  std::string text_;
  int fd_ = -1;  // -1: parsed text only, or removed
  bool dropped_torn_line_ = false;
  std::map<std::string, nlohmann::ordered_json> records_;
};

// Exact double encoding (see above).
nlohmann::ordered_json exact_number(double v);
// Bad input naming `what` when `j` is neither a number nor "nan"/"inf"/"-inf".
Result<double> read_exact_number(const nlohmann::ordered_json& j, const std::string& what);

}  // namespace ntpsim::sim
