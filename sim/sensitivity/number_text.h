// Text of a double that reads back to the same value (17 significant digits), for the
// sensitivity study's CSV and the overrides it writes. Internal to sim/sensitivity.
#pragma once

#include <fmt/format.h>

#include <string>

namespace ntpsim::sim::sensitivity_internal {

inline std::string round_trip_text(double v) {
  return fmt::format("{:.17g}", v);
}

}  // namespace ntpsim::sim::sensitivity_internal
