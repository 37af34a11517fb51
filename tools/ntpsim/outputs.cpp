#include "tools/ntpsim/outputs.h"

#include <cstdio>

#include "models/base/atomic_file.h"

namespace ntpsim::cli {

Status OutputSet::write(const std::string& path, const std::string& text) {
  return add(write_file_atomic(path, text), {path});
}

Status OutputSet::add(const Status& st, const std::vector<std::string>& paths) {
  if (!st.ok()) {
    remove_written();
    return st;
  }
  for (const auto& p : paths) {
    if (!p.empty()) written_.push_back(p);
  }
  return st;
}

void OutputSet::remove_written() {
  for (const auto& p : written_) std::remove(p.c_str());
  written_.clear();
}

}  // namespace ntpsim::cli
