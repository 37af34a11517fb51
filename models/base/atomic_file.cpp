// Temporary file + fsync + rename, regular files only, all-or-none sets; see atomic_file.h.
#include "models/base/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace ntpsim {
namespace {

namespace fs = std::filesystem;

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

// What a non-regular file is, for messages.
const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Writes `text` to a new temporary beside `target` and flushes it to the disk. Returns the
// temporary's name; on failure nothing is left behind.
Result<std::string> write_temporary(const std::string& target, std::string_view text,
                                    const std::string& shown) {
  const std::string tmp = temporary_name_for(target, "tmp");
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Error::runtime(
        fmt::format("{}: cannot create the output file: {}", shown, std::strerror(errno)));
  }
  const bool written = write_all(fd, text) && ::fsync(fd) == 0;
  const int write_errno = errno;
  const bool closed = ::close(fd) == 0;
  const int close_errno = errno;
  if (!written || !closed) {
    ::unlink(tmp.c_str());
    return Error::runtime(fmt::format("{}: write failed: {}", shown,
                                      std::strerror(written ? close_errno : write_errno)));
  }
  return tmp;
}

}  // namespace

Result<std::string> output_target(const std::string& path, std::string_view what) {
  // "--out FILE: ..." when the option is known, "FILE: ..." otherwise.
  const std::string shown = what.empty() ? path : fmt::format("{} {}", what, path);
  if (path.empty()) {
    return Error::bad_input(fmt::format("{}{}empty output path", what, what.empty() ? "" : ": "));
  }
  if (path.back() == '/') {
    return Error::bad_input(fmt::format("{}: is a directory, not a file", shown));
  }
  struct stat st {};
  std::string target = path;
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    // Follow the link: the file it names is the output; the link itself stays.
    char* resolved = ::realpath(path.c_str(), nullptr);
    if (resolved == nullptr) {
      return Error::bad_input(
          fmt::format("{}: is a symbolic link to nothing that can be written ({})", shown,
                      std::strerror(errno)));
    }
    target = resolved;
    std::free(resolved);
  }
  if (::stat(target.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      return Error::bad_input(fmt::format("{}: is {}; outputs are written only as regular files",
                                          shown, file_kind(st.st_mode)));
    }
    return target;
  }
  // Absent: the folder must exist (checked now, so a long run does not end in this error).
  if (errno != ENOENT) {
    return Error::runtime(
        fmt::format("{}: cannot create the output file: {}", shown, std::strerror(errno)));
  }
  const fs::path parent = fs::path(target).parent_path();
  const std::string folder = parent.empty() ? std::string(".") : parent.string();
  if (::stat(folder.c_str(), &st) != 0) {
    return Error::runtime(
        fmt::format("{}: cannot create the output file: {}", shown, std::strerror(errno)));
  }
  if (!S_ISDIR(st.st_mode)) {
    return Error::runtime(
        fmt::format("{}: cannot create the output file: {}", shown, std::strerror(ENOTDIR)));
  }
  return target;
}

std::string temporary_name_for(const std::string& target, std::string_view kind) {
  // A per-process counter keeps temporaries of concurrent calls apart; it is local state of this
  // function, not shared configuration.
  static std::atomic<unsigned> counter{0};
  const fs::path p(target);
  std::string name = p.filename().string();
  const std::string suffix = fmt::format(".ntpsim-{}-{}.{}", static_cast<long>(::getpid()),
                                         counter.fetch_add(1, std::memory_order_relaxed), kind);
  // "." + name + suffix must fit NAME_MAX: shorten the name, never in the middle of a UTF-8
  // sequence.
  const size_t room = NAME_MAX - 1 - suffix.size();
  if (name.size() > room) {
    size_t cut = room;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
    name.resize(cut);
  }
  const std::string leaf = "." + name + suffix;
  return p.has_parent_path() ? (p.parent_path() / leaf).string() : leaf;
}

Status write_file_atomic(const std::string& path, std::string_view text) {
  auto target = output_target(path);
  if (!target.ok()) return target.error();
  auto tmp = write_temporary(*target, text, path);
  if (!tmp.ok()) return tmp.error();
  if (std::rename(tmp->c_str(), target->c_str()) != 0) {
    const int rename_errno = errno;
    ::unlink(tmp->c_str());
    return Error::runtime(fmt::format("{}: cannot move the finished file into place: {}", path,
                                      std::strerror(rename_errno)));
  }
  return Status::Ok();
}

OutputSet::~OutputSet() {
  for (const Entry& e : outputs_) {
    if (!e.temp.empty()) ::unlink(e.temp.c_str());
  }
}

OutputSet::Identity OutputSet::identify(const std::string& path) {
  Identity id;
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  if (ec) abs = path;
  const fs::path canon = fs::weakly_canonical(abs, ec);
  id.resolved = (ec ? abs : canon).lexically_normal().string();
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) id.inode = std::make_pair(st.st_dev, st.st_ino);
  return id;
}

std::string OutputSet::shown(const Entry& e) {
  return e.what.empty() ? e.path : fmt::format("{} {}", e.what, e.path);
}

bool OutputSet::same(const Identity& a, const Identity& b) {
  if (a.resolved == b.resolved) return true;
  return a.inode && b.inode && *a.inode == *b.inode;
}

void OutputSet::add_input(const std::string& path, std::string_view what) {
  if (path.empty()) return;
  inputs_.push_back(Entry{path, path, std::string(what), identify(path), {}});
}

Status OutputSet::declare(const std::string& path, std::string_view what) {
  auto target = output_target(path, what);
  if (!target.ok()) return target.error();
  Entry entry{path, *target, std::string(what), identify(*target), {}};
  for (const Entry& in : inputs_) {
    if (same(entry.id, in.id)) {
      return Error::bad_input(fmt::format("{}: is the {} {}; refusing to overwrite an input",
                                          shown(entry), in.what, in.path));
    }
  }
  for (const Entry& out : outputs_) {
    if (same(entry.id, out.id)) {
      return Error::bad_input(fmt::format(
          "{}: is also the output {}; give each output its own file", shown(entry), shown(out)));
    }
  }
  outputs_.push_back(std::move(entry));
  return Status::Ok();
}

Status OutputSet::stage(const std::string& path, std::string_view text) {
  // A path declared before is staged under its declaration; any other is declared now.
  bool declared = false;
  for (const Entry& e : outputs_) declared = declared || e.path == path;
  if (!declared) NTPSIM_RETURN_IF_ERROR(declare(path));
  for (Entry& e : outputs_) {
    if (e.path != path) continue;
    if (!e.temp.empty()) ::unlink(e.temp.c_str());
    e.temp.clear();
    auto tmp = write_temporary(e.target, text, path);
    if (!tmp.ok()) return tmp.error();
    e.temp = std::move(*tmp);
    return Status::Ok();
  }
  return Error::runtime(path + ": output not declared");  // unreachable: declare() added it
}

std::string OutputSet::staged_file(const std::string& path) const {
  for (const Entry& e : outputs_) {
    if (e.path == path) return e.temp;
  }
  return {};
}

Status OutputSet::commit() {
  struct Moved {
    Entry* entry;
    std::string backup;  // a hard link to the file that was there before; empty when none
  };
  std::vector<Moved> moved;
  auto roll_back = [&moved]() {
    for (auto it = moved.rbegin(); it != moved.rend(); ++it) {
      if (!it->backup.empty()) {
        std::rename(it->backup.c_str(), it->entry->target.c_str());
      } else {
        ::unlink(it->entry->target.c_str());
      }
    }
  };
  for (Entry& e : outputs_) {
    if (e.temp.empty()) continue;  // declared but never staged: nothing to write
    // Re-check the target: it must still be absent or a regular file.
    auto target = output_target(e.path, e.what);
    if (!target.ok()) {
      roll_back();
      return target.error();
    }
    Moved m{&e, {}};
    struct stat st {};
    if (::lstat(e.target.c_str(), &st) == 0) {
      // Keep the old file reachable until every output is in place.
      m.backup = temporary_name_for(e.target, "old");
      if (::link(e.target.c_str(), m.backup.c_str()) != 0) {
        const int link_errno = errno;
        roll_back();
        return Error::runtime(
            fmt::format("{}: cannot keep the previous file while replacing it: {}", e.path,
                        std::strerror(link_errno)));
      }
    }
    if (std::rename(e.temp.c_str(), e.target.c_str()) != 0) {
      const int rename_errno = errno;
      if (!m.backup.empty()) ::unlink(m.backup.c_str());
      roll_back();
      return Error::runtime(fmt::format("{}: cannot move the finished file into place: {}", e.path,
                                        std::strerror(rename_errno)));
    }
    e.temp.clear();
    moved.push_back(std::move(m));
  }
  for (const auto& m : moved) {
    if (!m.backup.empty()) ::unlink(m.backup.c_str());
  }
  return Status::Ok();
}

}  // namespace ntpsim
