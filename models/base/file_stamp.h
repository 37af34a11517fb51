// Whether a file read earlier still holds the bytes it was read with, mostly without reading it
// again. The capacity planner checks its scenario, workload and hardware files once per candidate
// (thousands of times a plan); reading them each time cost about a tenth of a plan in system calls.
//
// A stamp is what stat(2) says of a file: device, inode, size, modification and status-change
// times (ns). Any write to a file, and any rename or replacement of it, sets its status-change
// time to the current time, but only to the file system's granularity (Linux takes the time at
// clock-tick resolution, and some file systems keep seconds), so two versions of a file written
// within one tick can share a stamp. A stamp is therefore trusted only when it is settled: its
// status-change and modification times lie more than kSettleNs before the stat that took it (then
// no write after the stat can leave the times unchanged). An unsettled stamp, a stamp that
// differs, or a file that cannot be stat'ed falls back to comparing the bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "models/base/status.h"

namespace ntpsim {

struct FileStamp {
  uint64_t device = 0;
  uint64_t inode = 0;
  int64_t size = 0;
  int64_t modified_ns = 0;  // since the epoch
  int64_t changed_ns = 0;   // status change, since the epoch
  bool operator==(const FileStamp&) const = default;
};

// A file system's time granularity is at most this (FAT: 2 s; Linux's tick: milliseconds).
inline constexpr int64_t kSettleNs = 3'000'000'000;

// Whether a stamp taken at `taken_ns` (since the epoch) can stand for the file's bytes: both of
// its times lie more than kSettleNs before `taken_ns`.
bool stamp_settled(const FileStamp& stamp, int64_t taken_ns);

// stat(2) of `path` (symbolic links followed); nullopt when it fails.
std::optional<FileStamp> stamp_of(const std::string& path);

// A file's bytes as read_yaml_file_text reads them, with the stamp taken just before the read.
struct StampedText {
  std::string text;
  FileStamp stamp;
  bool settled = false;  // stamp_settled(stamp, the time it was taken)
};

// read_yaml_file_text(path) (its errors too), stamped.
Result<StampedText> read_stamped_text(const std::string& path);

// Whether `path` holds kept.text: true at once when the kept stamp is settled and the file's stamp
// equals it, else by comparing the bytes (file_has_bytes).
bool still_holds(const std::string& path, const StampedText& kept);

}  // namespace ntpsim
