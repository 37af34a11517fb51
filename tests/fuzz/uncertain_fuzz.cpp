// libFuzzer target: the `uncertain:` reader of `ntpsim sensitivity` (sim/sensitivity/sensitivity.h,
// read_uncertain_inputs), on a fuzzed scenario file (split into main.yaml and base.yaml at a line
// "#--- base.yaml", as in scenario_fuzz.cpp).
// Properties: read_uncertain_inputs returns inputs or a bad-input Error (no throw, crash or hang);
// every input it returns has finite one-at-a-time bounds low < high inside the finite support of
// its valid distribution, whose quantile function is non-decreasing, and the scenario loads with
// the input set to either bound or either end of the support (every value the analysis can
// sample) through the override it would use.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/scenario/loader.h"
#include "sim/sensitivity/sensitivity.h"
#include "tests/fuzz/fuzz_util.h"

using namespace ntpsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const std::filesystem::path main_file = fuzz::write_main_and_base(text);
  const auto in = sim::read_uncertain_inputs(main_file.string(), {});
  if (!in.ok()) {
    fuzz::require_bad_input(in.error());
    return 0;
  }
  for (const auto& u : in->inputs) {
    FUZZ_REQUIRE(!u.path.empty() && std::isfinite(u.lo) && std::isfinite(u.hi) && u.lo < u.hi,
                 u.path);
    const sim::InputDistribution& d = u.distribution;
    FUZZ_REQUIRE(d.invalid_reason().empty(), u.path + ": " + d.invalid_reason());
    const double lo = d.support_low(), hi = d.support_high();
    FUZZ_REQUIRE(std::isfinite(lo) && std::isfinite(hi) && lo <= u.lo && u.hi <= hi, u.path);
    FUZZ_REQUIRE(d.quantile(0.25) <= d.quantile(0.5) && d.quantile(0.5) <= d.quantile(0.75),
                 u.path);
    for (const double value : {u.lo, u.hi, lo, hi}) {
      std::vector<std::string> overrides = in->base_overrides;
      overrides.push_back(sim::uncertain_override(u, value));
      const auto s = sim::load_scenario(main_file.string(), overrides);
      FUZZ_REQUIRE(s.ok(), overrides.back() + ": " + (s.ok() ? "" : s.error().message));
    }
  }
  return 0;
}
