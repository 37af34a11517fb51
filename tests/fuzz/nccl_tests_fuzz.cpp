// libFuzzer target: the nccl-tests log importer calibrate/nccl_tests_log.h.
//
// Properties: parse_nccl_tests returns collective rows or a bad-input Error; rows carry 1-based
// line numbers in file order, positive sizes and times, group sizes >= 2 and one fabric label;
// only collective rows are filled.
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "calibrate/nccl_tests_log.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ntpsim;
  const std::string text(fuzz::as_text(data, size));
  // The file name is part of the input: the collective may come from it.
  const Result<calibrate::RawData> log = calibrate::parse_nccl_tests(text, "all_reduce_perf.log");
  if (!log.ok()) {
    fuzz::require_bad_input(log.error());
    return 0;
  }
  FUZZ_REQUIRE(log->kind == calibrate::RawKind::kCollective,
               "an nccl-tests log is not kind collective");
  FUZZ_REQUIRE(log->gemm.empty() && log->reshards.empty(),
               "non-collective rows from an nccl-tests log");
  FUZZ_REQUIRE(!log->collectives.empty(), "a log accepted without rows");
  int previous = 0;
  for (const auto& r : log->collectives) {
    FUZZ_REQUIRE(r.line > previous, fmt::format("row line {} after {}", r.line, previous));
    previous = r.line;
    FUZZ_REQUIRE(r.request.bytes > 0, "a row with no bytes");
    FUZZ_REQUIRE(r.request.group_size >= 2, fmt::format("group size {}", r.request.group_size));
    FUZZ_REQUIRE(r.time.median_s > 0, "a row with a non-positive time");
    FUZZ_REQUIRE(r.fabric == log->collectives.front().fabric, "two fabrics in one log");
  }
  return 0;
}
