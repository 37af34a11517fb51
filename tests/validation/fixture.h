// Shared by the validation tests: scenario paths and the replication scale (smaller under
// sanitizers and in Debug builds, so the suite stays within a few seconds there too).
#pragma once

#include <string>

#include "models/base/build_info.h"

namespace ntpsim::validate::testing {

inline std::string scenario(const std::string& rel) {
  return std::string(NTPSIM_SOURCE_DIR) + "/scenarios/" + rel;
}

// `full` in optimised builds, `reduced` under sanitizers or in Debug.
inline int scaled(int full, int reduced) {
  const auto& bi = build_info();
  return bi.sanitized || bi.build_type == "Debug" ? reduced : full;
}

// Dynamic studies whose verdict could flip with fewer replications use the document's full count
// in every build (they are cheap enough); only static placement samples are scaled.
inline constexpr int kFig4Reps = 200;
inline constexpr int kFig7Reps = 20;

}  // namespace ntpsim::validate::testing
