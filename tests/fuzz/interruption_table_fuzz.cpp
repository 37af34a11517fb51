// libFuzzer target: the reader of Llama 3's transcribed interruption table
// (tools/validate/interruption_table.h).
//
// Properties: parse_interruption_table returns rows or a bad-input Error whose message starts with
// the file name and a line ("t.csv:N: "); rows carry increasing 1-based line numbers, non-empty
// distinct components and non-negative counts; and the rows printed back as CSV parse to the same
// rows.
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "tests/fuzz/fuzz_util.h"
#include "tools/validate/interruption_table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ntpsim;
  auto rows = validate::parse_interruption_table(fuzz::as_text(data, size), "t.csv");
  if (!rows.ok()) {
    fuzz::require_bad_input(rows.error());
    FUZZ_REQUIRE(rows.error().message.rfind("t.csv:", 0) == 0, rows.error().message);
    return 0;
  }
  FUZZ_REQUIRE(!rows->empty(), "accepted a table without rows");
  int previous = 0;
  std::set<std::string> seen;
  std::string csv = "component,category,count\n";
  for (const auto& r : *rows) {
    FUZZ_REQUIRE(r.line > previous, fmt::format("row line {} after {}", r.line, previous));
    previous = r.line;
    FUZZ_REQUIRE(!r.component.empty() && r.count >= 0, r.component);
    FUZZ_REQUIRE(seen.insert(r.component).second, "component twice: " + r.component);
    csv += fmt::format("{},{},{}\n", r.component, r.category, r.count);
  }
  auto again = validate::parse_interruption_table(csv, "again.csv");
  FUZZ_REQUIRE(again.ok(), again.ok() ? "" : again.error().message);
  FUZZ_REQUIRE(again->size() == rows->size(), csv);
  for (size_t i = 0; i < rows->size(); ++i) {
    const auto& a = (*rows)[i];
    const auto& b = (*again)[i];
    FUZZ_REQUIRE(a.component == b.component && a.category == b.category && a.count == b.count, csv);
  }
  return 0;
}
