#include "sim/io/progress.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "models/base/random.h"

namespace ntpsim::sim {
namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* kFormat = "ntpsim-progress/1";

std::string record_hash(const std::string& key, const ojson& data) {
  return fmt::format("{:016x}", fnv1a64(ojson::array({key, data}).dump()));
}

Error io_error(const std::string& path, const std::string& what) {
  return Error::runtime(fmt::format("{}: {}: {}", path, what, std::strerror(errno)));
}

Error bad_file(const std::string& path, size_t line, const std::string& what) {
  return Error::bad_input(fmt::format("{}:{}: {}", path, line, what));
}

// Parses one JSON line; nullopt when it is not JSON.
std::optional<ojson> parse_line(std::string_view line) {
  ojson j = ojson::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

// The first field where `have` (from the file) and `want` differ, as a sentence.
std::string first_difference(const ojson& have, const ojson& want) {
  for (const auto& [k, v] : want.items()) {
    if (!have.contains(k)) return fmt::format("identity.{} is missing there, {} here", k, v.dump());
    if (have.at(k) != v) {
      return fmt::format("identity.{} is {} there, {} here", k, have.at(k).dump(), v.dump());
    }
  }
  for (const auto& [k, v] : have.items()) {
    if (!want.contains(k)) return fmt::format("identity.{} is {} there, absent here", k, v.dump());
  }
  return "the identities differ";
}

bool write_all(int fd, std::string_view s) {
  while (!s.empty()) {
    const ssize_t n = ::write(fd, s.data(), s.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    s.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Checks journal `text` against `identity` and fills `records`. `keep` is the length of the valid
// prefix: the whole text unless a torn last line was dropped (then `torn` is set).
Status load_text(const std::string& path, const std::string& text, const ojson& identity,
                 std::map<std::string, ojson>& records, bool& torn, size_t& keep) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      lines.emplace_back(text.data() + start, text.size() - start);
      break;
    }
    lines.emplace_back(text.data() + start, nl - start + 1);  // with its newline
    start = nl + 1;
  }
  const auto header = parse_line(lines.front());
  if (!header || !header->is_object() || !header->contains("progress") ||
      header->at("progress") != kFormat || !header->contains("identity")) {
    return bad_file(path, 1,
                    fmt::format("not an ntpsim progress file (its first line is not an {} header); "
                                "give a new path to --resume or delete the file",
                                kFormat));
  }
  if (lines.front().back() != '\n') return bad_file(path, 1, "the header line is incomplete");
  if (header->at("identity") != identity) {
    return Error::bad_input(fmt::format(
        "{}: the progress file belongs to a different run ({}); give another path to --resume "
        "or delete the file to start over",
        path, first_difference(header->at("identity"), identity)));
  }
  keep = lines.front().size();
  torn = false;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const bool last = i + 1 == lines.size();
    const auto rec = parse_line(line);
    const bool ok = line.back() == '\n' && rec && rec->is_object() && rec->contains("key") &&
                    rec->at("key").is_string() && rec->contains("data") &&
                    rec->contains("fnv") && rec->at("fnv").is_string() &&
                    rec->at("fnv").get<std::string>() ==
                        record_hash(rec->at("key").get<std::string>(), rec->at("data"));
    if (!ok) {
      if (last) {  // a record cut short by a crash: drop it, the work is redone
        torn = true;
        break;
      }
      return bad_file(path, i + 1,
                      "damaged progress record (not the last line, so not a torn write); delete "
                      "the file to start over");
    }
    records.emplace(rec->at("key").get<std::string>(), rec->at("data"));
    keep += line.size();
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<ProgressJournal>> ProgressJournal::open(const std::string& path,
                                                               const ojson& identity) {
  if (path.empty()) return Error::bad_input("--resume: empty progress file path");
  std::unique_ptr<ProgressJournal> j(new ProgressJournal());
  j->path_ = path;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return io_error(path, "cannot open the progress file");
  j->fd_ = fd;  // closed by the destructor from here on
  struct stat st {};
  if (::fstat(fd, &st) != 0) return io_error(path, "cannot stat the progress file");
  if (!S_ISREG(st.st_mode)) {
    return Error::bad_input(fmt::format("{}: the progress file is not a regular file", path));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return Error::runtime(
          fmt::format("{}: the progress file is in use by another ntpsim process", path));
    }
    return io_error(path, "cannot lock the progress file");
  }
  std::string text;
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error(path, "cannot read the progress file");
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  if (text.empty()) {  // new (or empty) file: write the header
    ojson h;
    h["progress"] = kFormat;
    h["identity"] = identity;
    j->text_ = h.dump() + "\n";
    if (!write_all(fd, j->text_) || ::fsync(fd) != 0) {
      return io_error(path, "cannot write the progress file");
    }
    return j;
  }
  size_t keep = 0;
  NTPSIM_RETURN_IF_ERROR(
      load_text(path, text, identity, j->records_, j->dropped_torn_line_, keep));
  if (keep < text.size()) {  // drop the torn last line so appends start on a line of their own
    if (::ftruncate(fd, static_cast<off_t>(keep)) != 0 || ::fsync(fd) != 0) {
      return io_error(path, "cannot truncate the torn last line of the progress file");
    }
  }
  if (::lseek(fd, 0, SEEK_END) < 0) return io_error(path, "cannot seek in the progress file");
  j->text_ = text.substr(0, keep);
  return j;
}

Result<std::unique_ptr<ProgressJournal>> ProgressJournal::parse(const std::string& path,
                                                                const std::string& text,
                                                                const ojson& identity) {
  std::unique_ptr<ProgressJournal> j(new ProgressJournal());
  j->path_ = path;
  size_t keep = 0;
  NTPSIM_RETURN_IF_ERROR(
      load_text(path, text, identity, j->records_, j->dropped_torn_line_, keep));
  j->text_ = text.substr(0, keep);
  return j;
}

ProgressJournal::~ProgressJournal() {
  if (fd_ >= 0) ::close(fd_);
}

const ojson* ProgressJournal::find(const std::string& key) const {
  const auto it = records_.find(key);
  return it == records_.end() ? nullptr : &it->second;
}

Status ProgressJournal::append(const std::string& key, const ojson& data) {
  if (fd_ < 0) {
    return Error::runtime(fmt::format("{}: progress file not open for writing", path_));
  }
  ojson rec;
  rec["key"] = key;
  rec["data"] = data;
  rec["fnv"] = record_hash(key, data);
  const std::string line = rec.dump() + "\n";
  if (!write_all(fd_, line) || ::fsync(fd_) != 0) {
    return io_error(path_, "cannot append to the progress file");
  }
  records_.emplace(key, data);
  text_ += line;
  return Status::Ok();
}

Status ProgressJournal::remove() {
  if (fd_ >= 0) {
    if (::unlink(path_.c_str()) != 0 && errno != ENOENT) {
      return io_error(path_, "cannot remove the progress file");
    }
    ::close(fd_);
    fd_ = -1;
  }
  return Status::Ok();
}

ojson exact_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

Result<double> read_exact_number(const ojson& j, const std::string& what) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return Error::bad_input(fmt::format("{}: expected a number, got {}", what, j.dump()));
}

}  // namespace ntpsim::sim
