// Temporary file + fsync + rename; see atomic_file.h.
#include "models/base/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ntpsim {
namespace {

// Writes all of `text` to `fd`, retrying short writes and EINTR (a signal arriving mid-write).
bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

Status write_file_atomic(const std::string& path, std::string_view text) {
  if (path.empty()) return Error::bad_input("empty output path");
  // A per-process counter keeps temporaries of concurrent calls apart; it is local state of this
  // function, not shared configuration.
  static std::atomic<unsigned> counter{0};
  const std::string tmp = fmt::format("{}.tmp-{}-{}", path, static_cast<long>(::getpid()),
                                      counter.fetch_add(1, std::memory_order_relaxed));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Error::runtime(
        fmt::format("{}: cannot create the output file: {}", path, std::strerror(errno)));
  }
  const bool written = write_all(fd, text) && ::fsync(fd) == 0;
  const int write_errno = errno;
  const bool closed = ::close(fd) == 0;
  if (!written || !closed) {
    ::unlink(tmp.c_str());
    return Error::runtime(fmt::format("{}: write failed: {}", path,
                                      std::strerror(written ? errno : write_errno)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int rename_errno = errno;
    ::unlink(tmp.c_str());
    return Error::runtime(fmt::format("{}: cannot move the finished file into place: {}", path,
                                      std::strerror(rename_errno)));
  }
  return Status::Ok();
}

}  // namespace ntpsim
