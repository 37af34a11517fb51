// What a pure reader made of a YAML file, kept by the file's path and bytes. The capacity planner
// loads its base scenario once per candidate (thousands of times), and with it the same workload
// and hardware profile files; a reader called again on a file with the same bytes gets the kept
// value instead of parsing the file again. Another file, or the same file with other bytes, is
// read anew. Only values are kept, never errors: a reader's error is reported as it was.
// Bounded: at most `capacity` entries; when full, the memo starts over.
// Thread safety: get() may be called from many threads at once.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "models/base/file_stamp.h"
#include "models/base/status.h"

namespace ntpsim {

template <class T>
class FileMemo {
 public:
  explicit FileMemo(size_t capacity = 64) : capacity_(capacity) {}

  // read(text) parses `file`'s bytes `text`; its result depends on `file`, `text` and `key` only
  // (`key` holds whatever else it reads: a field path named in its messages). Returns the kept
  // value for (file, key) when the file's bytes are those it was read from, else read(text),
  // kept when it succeeds. A file that cannot be read gives read_yaml_file_text's error, as
  // load_yaml_file(file) would.
  template <class Read>
  Result<T> get(const std::string& file, const std::string& key, Read&& read) {
    const std::pair<std::string, std::string> id{file, key};
    std::shared_ptr<const Entry> kept;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto it = kept_.find(id);
      if (it != kept_.end()) kept = it->second;
    }
    // By its stamp, else compared in place: no copy of the file per call (file_stamp.h).
    if (kept != nullptr && still_holds(file, kept->text)) return kept->value;
    auto text = read_stamped_text(file);
    if (!text.ok()) return text.error();
    Result<T> value = read(text->text);
    if (value.ok()) {
      auto entry = std::make_shared<const Entry>(Entry{std::move(*text), *value});
      const std::lock_guard<std::mutex> lock(mutex_);
      if (kept_.size() >= capacity_) kept_.clear();
      kept_[id] = std::move(entry);
    }
    return value;
  }

 private:
  struct Entry {
    StampedText text;  // the bytes `value` was read from
    T value;
  };
  size_t capacity_;
  std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<const Entry>> kept_;
};

}  // namespace ntpsim
