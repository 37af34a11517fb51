#include "models/base/status.h"

#include <fmt/format.h>

namespace ntpsim {

std::string SourceLocation::to_string() const {
  if (file.empty() && line == 0) return "<input>";
  std::string name = file.empty() ? "<input>" : file;
  if (line <= 0) return name;
  if (column <= 0) return fmt::format("{}:{}", name, line);
  return fmt::format("{}:{}:{}", name, line, column);
}

Error Error::at(const SourceLocation& where, const std::string& field_path,
                const std::string& what) {
  if (field_path.empty()) return bad_input(fmt::format("{}: {}", where.to_string(), what));
  return bad_input(fmt::format("{}: {}: {}", where.to_string(), field_path, what));
}

}  // namespace ntpsim
