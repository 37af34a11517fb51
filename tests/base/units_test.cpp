#include "models/base/units.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ntpsim::units {
namespace {

double ok(const Result<double>& r) {
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : -1.0;
}

TEST(Units, Durations) {
  EXPECT_DOUBLE_EQ(ok(parse_duration_s("90s")), 90.0);
  EXPECT_DOUBLE_EQ(ok(parse_duration_s("30min")), 1800.0);
  EXPECT_DOUBLE_EQ(ok(parse_duration_s("3h")), 10800.0);
  EXPECT_DOUBLE_EQ(ok(parse_duration_s("5d")), 432000.0);
  EXPECT_DOUBLE_EQ(ok(parse_duration_s("1y")), 365.0 * 86400.0);
  EXPECT_DOUBLE_EQ(ok(parse_duration_s("250ms")), 0.25);
  EXPECT_DOUBLE_EQ(ok(parse_duration_s(" 1.5 h ")), 5400.0);
  EXPECT_FALSE(parse_duration_s("90").ok());      // a unit is required
  EXPECT_FALSE(parse_duration_s("3 fortnights").ok());
  EXPECT_FALSE(parse_duration_s("-3h").ok());
  EXPECT_FALSE(parse_duration_s("").ok());
  EXPECT_FALSE(parse_duration_s("h").ok());
}

TEST(Units, PowerBandwidthSize) {
  EXPECT_DOUBLE_EQ(ok(parse_power_w("700W")), 700.0);
  EXPECT_DOUBLE_EQ(ok(parse_power_w("1.2kW")), 1200.0);
  EXPECT_DOUBLE_EQ(ok(parse_bandwidth_Bps("400Gb/s")), 50e9);
  EXPECT_DOUBLE_EQ(ok(parse_bandwidth_Bps("900GB/s")), 900e9);
  EXPECT_DOUBLE_EQ(ok(parse_size_bytes("141GB")), 141e9);
  EXPECT_DOUBLE_EQ(ok(parse_size_bytes("1GiB")), 1073741824.0);
  EXPECT_FALSE(parse_power_w("700").ok());
  EXPECT_FALSE(parse_bandwidth_Bps("400Gb").ok());
}

TEST(Units, CountsFractionsEnergy) {
  EXPECT_DOUBLE_EQ(ok(parse_count("16M")), 16e6);
  EXPECT_DOUBLE_EQ(ok(parse_count("15T")), 15e12);
  EXPECT_DOUBLE_EQ(ok(parse_count("405B")), 405e9);
  EXPECT_DOUBLE_EQ(ok(parse_count("32768")), 32768.0);
  EXPECT_DOUBLE_EQ(ok(parse_count("1e12")), 1e12);
  EXPECT_DOUBLE_EQ(ok(parse_fraction("30%")), 0.3);
  EXPECT_DOUBLE_EQ(ok(parse_fraction("0.3")), 0.3);
  EXPECT_DOUBLE_EQ(ok(parse_energy_j("2MWh")), 7.2e9);
  EXPECT_FALSE(parse_fraction("30 percent").ok());
  EXPECT_FALSE(parse_count("12X").ok());
}

TEST(Units, Rates) {
  auto r = parse_rate("1.97e-5/h");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_NEAR(r->per_second * 3600.0, 1.97e-5, 1e-15);
  EXPECT_EQ(r->unit_noun, "");
  r = parse_rate("6.5/1000 node-days");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_NEAR(r->per_second * 86400.0, 0.0065, 1e-15);
  EXPECT_EQ(r->unit_noun, "node");
  r = parse_rate("2/GPU-day");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->unit_noun, "GPU");
  EXPECT_FALSE(parse_rate("1.97e-5").ok());
  EXPECT_FALSE(parse_rate("1/fortnight").ok());
  EXPECT_FALSE(parse_rate("-1/h").ok());
  EXPECT_FALSE(parse_rate("1/0 node-days").ok());
}

TEST(Units, NumbersAndFormatting) {
  EXPECT_DOUBLE_EQ(ok(parse_number("-1.5e3")), -1500.0);
  EXPECT_FALSE(parse_number("1.5x").ok());
  EXPECT_EQ(format_duration(10800), "3h");
  EXPECT_EQ(format_duration(5400), "90min");
  EXPECT_EQ(format_duration(90), "90s");
  EXPECT_EQ(format_duration(432000), "5d");
  // Exact only as a long count of a small unit: the readable form instead.
  EXPECT_EQ(format_duration(330.688), "5.51147min");
  EXPECT_EQ(format_power(1200), "1.2kW");
  EXPECT_EQ(format_fraction(0.3), "30%");
  EXPECT_EQ(format_bandwidth(900e9), "900GB/s");
  // Round trip: what format_* prints, parse_* reads back.
  for (double s : {1.0, 90.0, 5400.0, 7200.5, 86400.0 * 3}) {
    EXPECT_NEAR(ok(parse_duration_s(format_duration(s))), s, s * 1e-6);
  }
}

// The exact forms read back as the very same double (resolved scenarios reload to the same
// scenario and hash), and keep the short form whenever that is already exact.
TEST(Units, ExactFormsReadBackBitForBit) {
  EXPECT_EQ(format_duration_exact(5400), "90min");
  EXPECT_EQ(format_duration_exact(560.948123), "560.948123s");
  EXPECT_EQ(format_duration_exact(30.123456789 * 86400), "30.123456789d");
  EXPECT_EQ(format_duration_exact(1.234567e-3), "1.234567ms");
  EXPECT_EQ(format_fraction_exact(0.3), "30%");
  EXPECT_EQ(format_rate_exact(1.23456789e-5 / 3600), "1.23456789e-05/h");
  EXPECT_EQ(format_bandwidth_exact(8.1234567e12), "8.1234567TB/s");
  EXPECT_EQ(format_size_exact(81559.0 * 1048576), "81559MiB");  // as a device reports it
  EXPECT_EQ(format_size_exact(80.0 * 1073741824), "80GiB");
  EXPECT_EQ(format_size_exact(186e9), "186GB");
  EXPECT_EQ(format_number_exact(0.8), "0.8");
  EXPECT_EQ(format_number_exact(0.123456789012), "0.123456789012");
  // Values spread over many magnitudes with all 17 significant digits in use.
  std::vector<double> values = {560.9481234567891,      1e-7,      2.5e-300,
                                1.7976931348623157e300, 0.1 + 0.2, 1.0 / 3.0,
                                86400.0 * 365 * 1000};
  double v = 1.2345678901234567e-9;
  for (int i = 0; i < 300; ++i, v *= 1.2345678901234567) values.push_back(v);
  for (const double x : values) {
    EXPECT_EQ(ok(parse_duration_s(format_duration_exact(x))), x) << format_duration_exact(x);
    EXPECT_EQ(ok(parse_power_w(format_power_exact(x))), x) << format_power_exact(x);
    EXPECT_EQ(ok(parse_bandwidth_Bps(format_bandwidth_exact(x))), x) << format_bandwidth_exact(x);
    EXPECT_EQ(ok(parse_size_bytes(format_size_exact(x))), x) << format_size_exact(x);
    EXPECT_EQ(ok(parse_count(format_count_exact(x))), x) << format_count_exact(x);
    EXPECT_EQ(ok(parse_fraction(format_fraction_exact(x))), x) << format_fraction_exact(x);
    EXPECT_EQ(ok(parse_number(format_number_exact(x))), x) << format_number_exact(x);
    auto rate = parse_rate(format_rate_exact(x));
    ASSERT_TRUE(rate.ok()) << format_rate_exact(x);
    EXPECT_EQ(rate->per_second, x) << format_rate_exact(x);
  }
}

// A rate whose per-hour value overflows a double (1e308 per minute) prints per second, so the
// printed text still reads back.
TEST(Units, HugeRatesPrintPerSecond) {
  const auto per_second_of = [](const std::string& text) {
    const auto r = parse_rate(text);
    EXPECT_TRUE(r.ok()) << text;
    return r.ok() ? r->per_second : -1.0;
  };
  const double per_second = per_second_of("1E308/m");
  EXPECT_EQ(format_rate(per_second), "1.66667e+306/s");
  EXPECT_NEAR(per_second_of(format_rate(per_second)) / per_second, 1.0, 1e-5);
  EXPECT_EQ(per_second_of(format_rate_exact(per_second)), per_second);
  EXPECT_EQ(format_rate(1.0 / 3600), "1/h");
}

}  // namespace
}  // namespace ntpsim::units
