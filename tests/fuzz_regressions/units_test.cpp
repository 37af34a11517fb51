// Fuzz findings in models/base/units.cpp (fuzz_units), replayed as plain tests.
//
// Finding 1: a large number times a large unit overflowed to infinity and was returned as a valid
// quantity ("5...0TB/s" with 300 digits -> inf B/s); likewise a rate over a denormal denominator.
// Finding 2: format_fraction printed fractions above ~1e306 as "inf%", which does not parse back.
#include "models/base/units.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace ntpsim::units {
namespace {

// The crashing input from fuzz_units, less its selector byte (a 299-digit number, then "TB/s").
std::string overflow_bandwidth_text() {
  return "5555555555555555555555599999999999999999999999995555555555555555555" +
         std::string(168, '9') + std::string(63, '5') + "0TB/s";
}

void expect_too_large(const Result<double>& r, const std::string& what) {
  ASSERT_FALSE(r.ok()) << what << " parsed to " << r.value();
  EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(r.error().message.find("is too large"), std::string::npos) << r.error().message;
}

TEST(UnitsOverflow, FuzzReproducerIsRefused) {
  expect_too_large(parse_bandwidth_Bps(overflow_bandwidth_text()), "fuzz reproducer");
}

TEST(UnitsOverflow, EveryUnitParserRefusesInfiniteProducts) {
  expect_too_large(parse_duration_s("1e305y"), "duration");
  expect_too_large(parse_power_w("1e301GW"), "power");
  expect_too_large(parse_bandwidth_Bps("1e300TB/s"), "bandwidth");
  expect_too_large(parse_size_bytes("1e300PiB"), "size");
  expect_too_large(parse_count("1e300T"), "count");
  expect_too_large(parse_energy_j("1e300GWh"), "energy");
}

TEST(UnitsOverflow, LargestFiniteProductsStillParse) {
  const Result<double> d = parse_duration_s("1e300y");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_DOUBLE_EQ(*d, 1e300 * 365 * 86400);
  const Result<double> n = parse_count("1.7e308");
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_DOUBLE_EQ(*n, 1.7e308);
}

TEST(UnitsOverflow, RateOverDenormalDenominatorIsRefused) {
  const Result<Rate> r = parse_rate("1e10/1e-320 s");
  ASSERT_FALSE(r.ok()) << r->per_second;
  EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);
  EXPECT_NE(r.error().message.find("is too large"), std::string::npos) << r.error().message;
}

TEST(UnitsOverflow, HugeFractionPrintsBack) {
  for (const double f : {1e307, 1.5e308, 0.3, 2.5}) {
    const std::string printed = format_fraction(f);
    const Result<double> back = parse_fraction(printed);
    ASSERT_TRUE(back.ok()) << f << " -> \"" << printed << "\": " << back.error().message;
    EXPECT_NEAR(*back / f, 1.0, 1e-5) << printed;  // 6 significant digits
  }
  EXPECT_EQ(format_fraction(0.3), "30%");
}

}  // namespace
}  // namespace ntpsim::units
