// libFuzzer target: the scenario loader sim/scenario/loader.h, as `ntpsim check` drives it.
//
// The input is written to <scratch>/main.yaml and loaded. If it holds a line "#--- base.yaml",
// the text after that line goes to <scratch>/base.yaml instead, so `include: base.yaml` merges a
// second fuzzed file. Every line "#set a.b=value" of the main part is also passed as an override
// (`--set`). Workload and profile names resolve in the source tree's models/.
// Properties: load_scenario returns a Scenario or a bad-input Error (no throw, crash or hang); an
// accepted scenario prints (YAML, JSON, hash, check text), and its resolved YAML loads again and
// resolves to the same text and the same hash, with the same values bit for bit (printer.h's
// promise). A ScenarioLoader gives load_scenario's outcome, scenario or message, for the
// overrides, then for them with those of `checkpoint` and `strategies` in reverse order among
// their places (a load that may reread only those sections), then for the first again.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/loader.h"
#include "sim/scenario/printer.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using namespace ntpsim;

constexpr std::string_view kSet = "#set ";

// The "#set " lines of `text`, without the prefix.
std::vector<std::string> overrides_in(std::string_view text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    if (line.substr(0, kSet.size()) == kSet) out.emplace_back(line.substr(kSet.size()));
    pos = nl + 1;
  }
  return out;
}

// Whether the override sets a field of `checkpoint` or `strategies`, as its path is written.
bool sets_reread_section(const std::string& o) {
  std::string_view path = std::string_view(o).substr(0, o.find('='));
  while (!path.empty() && path.front() == ' ') path.remove_prefix(1);
  path = path.substr(0, path.find_first_of(".[ "));
  return path == "checkpoint" || path == "strategies";
}

void require_loader_agrees(const std::string& file, const sim::LoadOptions& options) {
  std::vector<size_t> places;
  for (size_t i = 0; i < options.overrides.size(); ++i) {
    if (sets_reread_section(options.overrides[i])) places.push_back(i);
  }
  sim::LoadOptions reordered = options;
  for (size_t k = 0; k < places.size(); ++k) {
    reordered.overrides[places[k]] = options.overrides[places[places.size() - 1 - k]];
  }
  sim::ScenarioLoader loader;
  const sim::LoadOptions& changed = reordered;
  for (const sim::LoadOptions* o : {&options, &changed, &options}) {
    const Result<sim::Scenario> got = loader.load(file, *o);
    const Result<sim::Scenario> want = sim::load_scenario(file, *o);
    FUZZ_REQUIRE(got.ok() == want.ok(), "ScenarioLoader and load_scenario disagree on success");
    if (want.ok()) {
      FUZZ_REQUIRE(sim::to_yaml_text(*got) == sim::to_yaml_text(*want),
                   "ScenarioLoader gives another scenario:\n" + sim::to_yaml_text(*want));
    } else {
      FUZZ_REQUIRE(got.error().message == want.error().message,
                   "ScenarioLoader gives another message: " + got.error().message + " | " +
                       want.error().message);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const std::filesystem::path main_file = fuzz::write_main_and_base(text);
  sim::LoadOptions options;
  options.data_dir = NTPSIM_SOURCE_DIR;
  options.overrides = overrides_in(text.substr(0, text.find(fuzz::kBaseSplit)));
  const Result<sim::Scenario> s = sim::load_scenario(main_file.string(), options);
  require_loader_agrees(main_file.string(), options);
  if (!s.ok()) {
    fuzz::require_bad_input(s.error());
    return 0;
  }
  const std::string resolved = sim::to_yaml_text(*s);
  FUZZ_REQUIRE(!sim::check_text(*s).empty() && !sim::scenario_hash(*s).empty(), resolved);
  FUZZ_REQUIRE(!sim::to_json(*s).dump().empty(), resolved);
  const std::filesystem::path resolved_file = main_file.parent_path() / "resolved.yaml";
  fuzz::write_file(resolved_file, resolved);
  options.overrides.clear();  // already applied in `resolved`
  const Result<sim::Scenario> again = sim::load_scenario(resolved_file.string(), options);
  FUZZ_REQUIRE(again.ok(), "resolved scenario does not load: " +
                               (again.ok() ? std::string() : again.error().message) + "\n" +
                               resolved);
  FUZZ_REQUIRE(sim::to_yaml_text(*again) == resolved,
               "resolved scenario changes on reload:\n" + resolved);
  FUZZ_REQUIRE(sim::scenario_hash(*again) == sim::scenario_hash(*s), resolved);
  // JSON carries every value as a double at full precision: equal JSON, equal values.
  nlohmann::json a = sim::to_json(*s), b = sim::to_json(*again);
  a.erase("name");  // the file's stem when unnamed; resolved output names it
  b.erase("name");
  FUZZ_REQUIRE(a == b, "resolved scenario reloads with other values:\n" + resolved);
  return 0;
}
