// libFuzzer target: the raw-calibration reader calibrate/raw_reader.h (format "ntpcal-raw/1").
//
// Properties: parse_raw returns rows or a bad-input Error; rows carry 1-based line numbers in
// file order, and only the row vector that matches the file's kind is filled.
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "calibrate/raw_reader.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using namespace ntpsim;

template <typename Row>
void check_lines(const std::vector<Row>& rows) {
  int previous = 0;
  for (const Row& r : rows) {
    FUZZ_REQUIRE(r.line > previous, fmt::format("row line {} after {}", r.line, previous));
    previous = r.line;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fuzz::as_text(data, size));
  const Result<calibrate::RawData> raw = calibrate::parse_raw(text, "fuzz.csv");
  if (!raw.ok()) {
    fuzz::require_bad_input(raw.error());
    return 0;
  }
  const calibrate::RawKind kind = raw->kind;
  const bool gemm = kind == calibrate::RawKind::kGemm || kind == calibrate::RawKind::kPower;
  FUZZ_REQUIRE(gemm || raw->gemm.empty(), "gemm rows in a non-gemm file");
  FUZZ_REQUIRE(kind == calibrate::RawKind::kCollective || raw->collectives.empty(),
               "collective rows in a non-collective file");
  FUZZ_REQUIRE(kind == calibrate::RawKind::kReshard || raw->reshards.empty(),
               "reshard rows in a non-reshard file");
  check_lines(raw->gemm);
  check_lines(raw->collectives);
  check_lines(raw->reshards);
  return 0;
}
