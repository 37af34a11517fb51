#include "models/base/file_stamp.h"

#include <sys/stat.h>

#include <ctime>

#include "models/base/yaml_reader.h"

namespace ntpsim {

namespace {

int64_t ns_of(const timespec& t) {
  return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

}  // namespace

bool stamp_settled(const FileStamp& stamp, int64_t taken_ns) {
  return stamp.changed_ns < taken_ns - kSettleNs && stamp.modified_ns < taken_ns - kSettleNs;
}

std::optional<FileStamp> stamp_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileStamp{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
                   static_cast<int64_t>(st.st_size), ns_of(st.st_mtim), ns_of(st.st_ctim)};
}

Result<StampedText> read_stamped_text(const std::string& path) {
  // The clock, then the stamp, then the bytes: a write after the stat gives the file a
  // status-change time no earlier than the clock's reading less one granule, which is later than
  // a settled stamp's, so a settled stamp never vouches for bytes it did not see.
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const std::optional<FileStamp> stamp = stamp_of(path);
  auto text = read_yaml_file_text(path);
  if (!text.ok()) return text.error();
  StampedText out{std::move(*text), stamp.value_or(FileStamp{}), false};
  out.settled = stamp.has_value() && stamp_settled(*stamp, ns_of(now));
  return out;
}

bool still_holds(const std::string& path, const StampedText& kept) {
  if (kept.settled) {
    const std::optional<FileStamp> now = stamp_of(path);
    if (now.has_value() && *now == kept.stamp) return true;
  }
  return file_has_bytes(path, kept.text);
}

}  // namespace ntpsim
