// libFuzzer target: every parser of models/base/units.h and the format -> parse round trip.
//
// The first byte picks the parser, the rest is the text. Properties: parsing returns a finite,
// non-negative value (parse_number: any finite value) or a bad-input Error; a parsed value printed
// by the matching format_* parses back to the same value within the printer's 6 significant digits,
// and printed by the matching format_*_exact parses back to the very same double.
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "models/base/units.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using namespace ntpsim;

// Relative error of a 6-significant-digit print, with slack for the unit factor's rounding.
constexpr double kRoundTripRel = 1e-5;

using Parser = Result<double> (*)(std::string_view);
using Printer = std::string (*)(double);

void check_quantity(std::string_view text, Parser parse, Printer print, Printer exact = nullptr) {
  const Result<double> v = parse(text);
  if (!v.ok()) {
    fuzz::require_bad_input(v.error());
    return;
  }
  FUZZ_REQUIRE(std::isfinite(*v) && *v >= 0, fmt::format("\"{}\" -> {}", text, *v));
  const std::string printed = print(*v);
  const Result<double> back = parse(printed);
  FUZZ_REQUIRE(back.ok(), fmt::format("\"{}\" -> {} -> \"{}\" does not parse: {}", text, *v,
                                      printed, back.ok() ? "" : back.error().message));
  FUZZ_REQUIRE(fuzz::close(*v, *back, kRoundTripRel),
               fmt::format("\"{}\" -> {} -> \"{}\" -> {}", text, *v, printed, *back));
  if (exact == nullptr) return;
  const std::string exact_text = exact(*v);
  const Result<double> exact_back = parse(exact_text);
  FUZZ_REQUIRE(
      exact_back.ok() && *exact_back == *v,
      fmt::format("\"{}\" -> {} -> \"{}\" does not read back exactly", text, *v, exact_text));
}

void check_rate(std::string_view text) {
  const Result<units::Rate> r = units::parse_rate(text);
  if (!r.ok()) {
    fuzz::require_bad_input(r.error());
    return;
  }
  FUZZ_REQUIRE(std::isfinite(r->per_second) && r->per_second >= 0,
               fmt::format("\"{}\" -> {}/s", text, r->per_second));
  const std::string printed = units::format_rate(r->per_second);
  const Result<units::Rate> back = units::parse_rate(printed);
  FUZZ_REQUIRE(back.ok(), fmt::format("\"{}\" -> \"{}\" does not parse", text, printed));
  FUZZ_REQUIRE(fuzz::close(r->per_second, back->per_second, kRoundTripRel),
               fmt::format("\"{}\" -> \"{}\" -> {}/s", text, printed, back->per_second));
  const std::string exact_text = units::format_rate_exact(r->per_second);
  const Result<units::Rate> exact_back = units::parse_rate(exact_text);
  FUZZ_REQUIRE(exact_back.ok() && exact_back->per_second == r->per_second,
               fmt::format("\"{}\" -> \"{}\" does not read back exactly", text, exact_text));
}

void check_number(std::string_view text) {
  const Result<double> v = units::parse_number(text);
  if (!v.ok()) {
    fuzz::require_bad_input(v.error());
    return;
  }
  FUZZ_REQUIRE(std::isfinite(*v), fmt::format("\"{}\" -> {}", text, *v));
  const Result<double> back = units::parse_number(fmt::format("{}", *v));
  FUZZ_REQUIRE(back.ok() && *back == *v, fmt::format("\"{}\" -> {} does not print back", text, *v));
  const Result<double> exact_back = units::parse_number(units::format_number_exact(*v));
  FUZZ_REQUIRE(exact_back.ok() && *exact_back == *v,
               fmt::format("\"{}\" -> {} does not print back exactly", text, *v));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text = fuzz::as_text(data + 1, size - 1);
  switch (data[0] % 9) {
    case 0:
      check_quantity(text, units::parse_duration_s, units::format_duration,
                     units::format_duration_exact);
      break;
    case 1:
      check_quantity(text, units::parse_power_w, units::format_power, units::format_power_exact);
      break;
    case 2:
      check_quantity(text, units::parse_bandwidth_Bps, units::format_bandwidth,
                     units::format_bandwidth_exact);
      break;
    case 3:
      check_quantity(text, units::parse_size_bytes, units::format_size, units::format_size_exact);
      break;
    case 4:
      check_quantity(text, units::parse_count, units::format_count, units::format_count_exact);
      break;
    case 5:
      check_quantity(text, units::parse_fraction, units::format_fraction,
                     units::format_fraction_exact);
      break;
    case 6:
      check_quantity(text, units::parse_energy_j, units::format_energy);
      break;
    case 7:
      check_rate(text);
      break;
    default:
      check_number(text);
      break;
  }
  return 0;
}
