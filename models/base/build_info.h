// What every output records about the program that wrote it (STYLE.md §13).
// Thread safety: immutable after construction.
#pragma once

#include <string>

namespace ntpsim {

struct BuildInfo {
  std::string version;     // semantic version from CMakeLists.txt
  std::string git_sha;     // 12-hex SHA, "-dirty" when built from a modified tree, or "unknown"
  std::string build_type;  // Release, Debug, RelWithDebInfo
  bool sanitized = false;  // ASan/UBSan build
};

const BuildInfo& build_info();

}  // namespace ntpsim
