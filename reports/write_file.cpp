// Atomic file writing for every report output, and the path -> format rule.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "reports/report.h"

namespace ntpsim::reports {

Format format_for_path(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".md" || ext == ".markdown") return Format::kMarkdown;
  if (ext == ".csv") return Format::kCsv;
  return Format::kHtml;
}

Status write_file_atomic(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  if (path.empty()) return Error::bad_input("empty output path");
  // The temporary lives in the target's folder so the rename stays on one file system.
  const std::string tmp = fmt::format("{}.tmp-{}", path, static_cast<long>(::getpid()));
  std::error_code ec;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      return Error::runtime(
          fmt::format("{}: cannot create the output file: {}", path, std::strerror(errno)));
    }
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      return Error::runtime(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    return Error::runtime(fmt::format("{}: cannot move the finished file into place: {}", path,
                                      ec.message()));
  }
  return Status::Ok();
}

}  // namespace ntpsim::reports
