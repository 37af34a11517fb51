// libFuzzer target: the capacity-plan reader sim/planner/plan.h (`read_plan`), as `ntpsim plan`
// drives it.
//
// The input is written to <scratch>/main.yaml and read. If it holds a line "#--- base.yaml", the
// text after that line goes to <scratch>/base.yaml instead, so a plan saying `base: base.yaml`
// passes the base-path check (any other base name exercises the missing-file error).
// Properties: read_plan returns a Plan or a bad-input Error with a message (no throw, crash or
// hang); an accepted plan has every field within the range plan.h / plan.cpp document, and its
// derived values (strategy labels, the hourly price of a domain) are well defined. Its base then
// loads with the plan's overrides, or fails with a bad-input Error that never names a
// command-line "--set" (an override written in the plan is reported at its place in the plan).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "sim/planner/plan.h"
#include "sim/strategies/registry.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using namespace ntpsim;

constexpr size_t kMaxListValues = 64;  // plan.cpp's limit on every list

template <typename T>
void require_list(const std::vector<T>& v, T min, T max, bool required, const std::string& what) {
  FUZZ_REQUIRE(v.size() <= kMaxListValues, what + ": too many values");
  FUZZ_REQUIRE(!required || !v.empty(), what + ": required list is empty");
  for (const T& x : v) FUZZ_REQUIRE(x >= min && x <= max, what + ": value out of range");
}

bool within(double x, double min, double max) { return std::isfinite(x) && x >= min && x <= max; }

void require_ranges(const sim::Plan& p) {
  FUZZ_REQUIRE(std::filesystem::exists(p.base), "accepted base does not exist: " + p.base);
  FUZZ_REQUIRE(p.overrides.size() <= kMaxListValues, "too many overrides");
  for (const auto& o : p.overrides) FUZZ_REQUIRE(o.find('=') != std::string::npos, o);

  const sim::PlanSearch& s = p.search;
  FUZZ_REQUIRE(s.hardware.size() <= kMaxListValues, "search.hardware: too many values");
  for (const auto& h : s.hardware) FUZZ_REQUIRE(!h.empty(), "search.hardware: empty name");
  require_list(s.domains, 1, 100000, true, "search.domains");
  require_list(s.spare_domains, 0, 100000, false, "search.spare_domains");
  require_list(s.tp, 1, 4096, false, "search.tp");
  require_list(s.pp, 1, 4096, false, "search.pp");
  require_list(s.dp, 1, 1000000, false, "search.dp");
  FUZZ_REQUIRE(!s.strategies.empty() && s.strategies.size() <= kMaxListValues, "search.strategies");
  for (const auto& st : s.strategies) {
    // A short form names a registered strategy; a map entry may also be a user's chain.
    FUZZ_REQUIRE(!st.entry.empty() || sim::find_strategy(st.name) != nullptr,
                 "unregistered strategy " + st.name);
    FUZZ_REQUIRE(!st.cap || (*st.cap >= 0 && *st.cap <= 2), "power cap on " + st.label());
    FUZZ_REQUIRE(!st.label().empty(), st.name);
  }
  FUZZ_REQUIRE(s.checkpoint_interval_s.size() <= kMaxListValues, "search.checkpoint_interval");
  for (double c : s.checkpoint_interval_s) {
    FUZZ_REQUIRE(c == 0 || within(c, 1, std::numeric_limits<double>::infinity()), "search.checkpoint_interval out of range");
  }

  const sim::PlanTarget& t = p.target;
  if (t.time_to_train()) {
    FUZZ_REQUIRE(within(t.tokens, 1, 1e18) && within(t.deadline_s, 3600, 10 * 365 * 86400.0) &&
                     t.goodput == 0,
                 "target: tokens / deadline out of range");
  } else {
    FUZZ_REQUIRE(t.tokens == 0 && t.deadline_s == 0 && within(t.goodput, 0.01, 1),
                 "target: goodput out of range");
  }
  FUZZ_REQUIRE(within(t.confidence, 0.5, 0.99), "target.confidence out of range");

  const sim::PlanPrices& c = p.prices;
  FUZZ_REQUIRE((c.gpu_hour > 0) != (c.rack_capex > 0), "prices: gpu_hour and rack_capex");
  if (c.gpu_hour > 0) {
    FUZZ_REQUIRE(within(c.gpu_hour, 1e-6, 1e6) && c.amortisation_s == 0, "prices.gpu_hour");
  } else {
    FUZZ_REQUIRE(within(c.rack_capex, 1, 1e12) && within(c.amortisation_s, 86400, 50 * 365 * 86400.0),
                 "prices.rack_capex / amortisation out of range");
  }
  FUZZ_REQUIRE(within(c.spare_factor, 0, 1), "prices.spare_factor out of range");
  FUZZ_REQUIRE(within(c.energy_per_mwh, 0, 1e6), "prices.energy_per_mwh out of range");
  for (int g : {1, 8, 72, 4096}) {
    const double h = c.domain_hour(g);
    FUZZ_REQUIRE(std::isfinite(h) && h > 0, "prices: domain_hour not finite and positive");
  }

  const sim::PlanConfirm& f = p.confirm;
  FUZZ_REQUIRE(f.min_replications >= 2 && f.min_replications <= 10000, "confirm.min_replications");
  FUZZ_REQUIRE(f.max_replications >= f.min_replications && f.max_replications <= 100000,
               "confirm.max_replications");
  FUZZ_REQUIRE(f.max_finalists >= 1 && f.max_finalists <= 1000, "confirm.max_finalists");
  FUZZ_REQUIRE(within(f.screen_margin, 1, 10), "confirm.screen_margin out of range");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const std::filesystem::path main_file = fuzz::write_main_and_base(text);
  const Result<sim::Plan> p = sim::read_plan(main_file.string());
  if (!p.ok()) {
    fuzz::require_bad_input(p.error());
    return 0;
  }
  require_ranges(*p);
  FUZZ_REQUIRE(p->override_locations.size() == p->overrides.size(), "override locations");
  const Result<sim::Scenario> base = sim::load_scenario(p->base, sim::base_load_options(*p));
  if (!base.ok()) {
    fuzz::require_bad_input(base.error());
    // An override written in the plan is named by the plan's file and line, never as a
    // command-line "--set" (a key the user spelled "--set x" may still appear after the location).
    FUZZ_REQUIRE(base.error().message.rfind("--set ", 0) == std::string::npos, base.error().message);
    return 0;
  }
  // A map entry travels to each candidate as `strategies=[<entry>]` and reads back as the same
  // strategy under the same label.
  for (const auto& st : p->search.strategies) {
    if (st.entry.empty()) continue;
    sim::LoadOptions o = sim::base_load_options(*p, {"strategies=[" + st.entry + "]"});
    const Result<sim::Scenario> with = sim::load_scenario(p->base, o);
    if (!with.ok()) {
      // A strategy may not suit the base (a state copy that does not fit, say): bad input.
      fuzz::require_bad_input(with.error());
      continue;
    }
    FUZZ_REQUIRE(with->strategies.size() == 1 && with->strategies[0].name == st.name &&
                     with->strategies[0].label == st.label(),
                 st.entry);
  }
  return 0;
}
