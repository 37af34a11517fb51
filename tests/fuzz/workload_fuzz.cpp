// libFuzzer target: the workload and layout readers models/workload.h, on a YAML document
// {workload: ..., layout: ...} (either key may be absent), as a scenario's sections reach them.
//
// Properties: read_workload / read_layout return a value or a bad-input Error (no throw, no
// crash); an accepted workload is self-consistent (positive sizes, kv_heads dividing heads) and
// reads back from its to_yaml print to the same print; likewise the layout.
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "models/workload.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using namespace ntpsim;

const std::vector<std::string>& search_dirs() {
  static const std::vector<std::string> dirs = {NTPSIM_SOURCE_DIR "/models/workloads"};
  return dirs;
}

std::string emit(const YAML::Node& n) {
  YAML::Emitter out;
  out << n;
  return out.c_str();
}

void check_workload(const YAML::Node& node, const YamlContext& ctx) {
  const Result<models::Workload> w = models::read_workload(node, "workload", ctx, search_dirs());
  if (!w.ok()) {
    fuzz::require_bad_input(w.error());
    return;
  }
  FUZZ_REQUIRE(w->layers > 0 && w->hidden > 0 && w->heads > 0 && w->kv_heads > 0 && w->ffn > 0 &&
                   w->vocab > 0 && w->seq_len > 0 && w->global_batch > 0 && w->micro_batch > 0,
               emit(models::to_yaml(*w)));
  FUZZ_REQUIRE(w->heads % w->kv_heads == 0, emit(models::to_yaml(*w)));
  const double p = w->parameters();
  FUZZ_REQUIRE(std::isfinite(p) && p > 0, fmt::format("parameters {}", p));
  const std::string printed = emit(models::to_yaml(*w));
  const Result<YAML::Node> again = load_yaml_string(printed, "printed.yaml");
  FUZZ_REQUIRE(again.ok(), "printed workload is not YAML:\n" + printed);
  const Result<models::Workload> back =
      models::read_workload(*again, "workload", YamlContext("printed.yaml"), search_dirs());
  FUZZ_REQUIRE(back.ok(), "printed workload does not read back: " +
                              (back.ok() ? std::string() : back.error().message) + "\n" + printed);
  FUZZ_REQUIRE(emit(models::to_yaml(*back)) == printed,
               "workload changed on read-back:\n" + printed);
}

void check_layout(const YAML::Node& node, const YamlContext& ctx) {
  const Result<models::Layout> l = models::read_layout(node, "layout", ctx);
  if (!l.ok()) {
    fuzz::require_bad_input(l.error());
    return;
  }
  FUZZ_REQUIRE(l->tp >= 1 && l->pp >= 1 && l->dp >= 1 && l->virtual_stages >= 1,
               emit(models::to_yaml(*l)));
  const std::string printed = emit(models::to_yaml(*l));
  const Result<YAML::Node> again = load_yaml_string(printed, "printed.yaml");
  FUZZ_REQUIRE(again.ok(), "printed layout is not YAML:\n" + printed);
  const Result<models::Layout> back =
      models::read_layout(*again, "layout", YamlContext("printed.yaml"));
  FUZZ_REQUIRE(back.ok() && emit(models::to_yaml(*back)) == printed,
               "layout does not read back:\n" + printed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fuzz::as_text(data, size));
  const Result<YAML::Node> doc = load_yaml_string(text, "fuzz.yaml");
  if (!doc.ok()) {
    fuzz::require_bad_input(doc.error());
    return 0;
  }
  if (!doc->IsMap()) return 0;
  const YamlContext ctx("fuzz.yaml");
  const YAML::Node& root = *doc;
  if (root["workload"]) check_workload(root["workload"], ctx);
  if (root["layout"]) check_layout(root["layout"], ctx);
  return 0;
}
