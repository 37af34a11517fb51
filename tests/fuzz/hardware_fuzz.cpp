// libFuzzer target: the hardware-profile reader models/hardware.h (read_hardware on a parsed YAML
// node), the way a scenario's `hardware:` value reaches it.
//
// Properties: the YAML parser and read_hardware return a value or a bad-input Error (no throw, no
// crash); an accepted profile printed by to_yaml reads back to the same profile (compared as the
// emitted YAML text). Profile names resolve in the shipped models/profiles.
#include <cstddef>
#include <cstdint>
#include <string>

#include "models/hardware.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using namespace ntpsim;

const std::vector<std::string>& search_dirs() {
  static const std::vector<std::string> dirs = {NTPSIM_SOURCE_DIR "/models/profiles"};
  return dirs;
}

std::string emit(const YAML::Node& n) {
  YAML::Emitter out;
  out << n;
  return out.c_str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fuzz::as_text(data, size));
  const Result<YAML::Node> doc = load_yaml_string(text, "fuzz.yaml");
  if (!doc.ok()) {
    fuzz::require_bad_input(doc.error());
    return 0;
  }
  const YamlContext ctx("fuzz.yaml");
  const Result<models::HardwareProfile> h =
      models::read_hardware(*doc, "hardware", ctx, search_dirs());
  if (!h.ok()) {
    fuzz::require_bad_input(h.error());
    return 0;
  }
  const std::string printed = emit(models::to_yaml(*h));
  const Result<YAML::Node> again = load_yaml_string(printed, "printed.yaml");
  FUZZ_REQUIRE(again.ok(), "printed profile is not YAML:\n" + printed);
  const Result<models::HardwareProfile> back =
      models::read_hardware(*again, "hardware", YamlContext("printed.yaml"), search_dirs());
  FUZZ_REQUIRE(back.ok(), "printed profile does not read back: " +
                              (back.ok() ? std::string() : back.error().message) + "\n" + printed);
  const std::string reprinted = emit(models::to_yaml(*back));
  FUZZ_REQUIRE(reprinted == printed,
               "profile changed on read-back:\n" + printed + "\n---\n" + reprinted);
  return 0;
}
