#include "models/base/units.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(format_power(1200), "1.2kW");
  EXPECT_EQ(format_fraction(0.3), "30%");
  EXPECT_EQ(format_bandwidth(900e9), "900GB/s");
  // Round trip: what format_* prints, parse_* reads back.
  for (double s : {1.0, 90.0, 5400.0, 7200.5, 86400.0 * 3}) {
    EXPECT_NEAR(ok(parse_duration_s(format_duration(s))), s, s * 1e-6);
  }
}

}  // namespace
}  // namespace ntpsim::units
