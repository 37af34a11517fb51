// The SVG kit: tick choice, number formatting and escaping (what every chart relies on).
#include "reports/svg.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ntpsim::reports::svg {
namespace {

TEST(Svg, NiceTicksAreRoundAndEncloseTheRange) {
  EXPECT_EQ(nice_ticks(0.0, 1.0, 5), (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1.0}));
  EXPECT_EQ(nice_ticks(0.913, 0.977, 6), (std::vector<double>{0.9, 0.92, 0.94, 0.96, 0.98}));
  EXPECT_EQ(nice_ticks(-0.012, 0.047, 6),
            (std::vector<double>{-0.02, -0.01, 0, 0.01, 0.02, 0.03, 0.04, 0.05}));
  const auto t = nice_ticks(3.0, 1187.0, 4);
  EXPECT_LE(t.front(), 3.0);
  EXPECT_GE(t.back(), 1187.0);
  EXPECT_EQ(t[1] - t[0], 500.0);
}

TEST(Svg, NiceTicksWidenADegenerateRange) {
  const auto t = nice_ticks(5.0, 5.0, 4);
  ASSERT_GE(t.size(), 2u);
  EXPECT_LT(t.front(), 5.0);
  EXPECT_GT(t.back(), 5.0);
  EXPECT_EQ(nice_ticks(0.0, 0.0, 4).front(), -1.0);
}

TEST(Svg, NumbersAreShortAndStable) {
  EXPECT_EQ(num(0.0), "0");
  EXPECT_EQ(num(1152.0), "1152");
  EXPECT_EQ(num(0.30000000000000004), "0.3");
  EXPECT_EQ(num(-0.25), "-0.25");
  EXPECT_EQ(num(2.5e9), "2.5e+09");
  EXPECT_EQ(num(1.97e-5), "1.97e-05");
  EXPECT_EQ(num(std::numeric_limits<double>::quiet_NaN()), "–");
  EXPECT_EQ(pct(0.97126), "97.13");
  EXPECT_EQ(pct(-0.00001), "0.00");  // no "-0.00"
  EXPECT_EQ(pct(0.5, 0), "50");
}

TEST(Svg, EscapesMarkup) {
  EXPECT_EQ(escape(R"(a<b & "c" 'd'>)"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
}

TEST(Svg, ScaleMapsAndInverts) {
  const Scale s{0.0, 10.0, 100.0, 0.0};
  EXPECT_DOUBLE_EQ(s(0.0), 100.0);
  EXPECT_DOUBLE_EQ(s(2.5), 75.0);
  EXPECT_DOUBLE_EQ((Scale{1.0, 1.0, 0.0, 10.0})(1.0), 5.0);  // degenerate domain: middle
}

TEST(Svg, DocumentIsAccessibleAndEscaped) {
  Svg s(100, 50, "demo", "A <demo> chart");
  s.text(10, 20, "x < y");
  s.marker(1, 5, 5, 3, "#000", "tip & more");
  const std::string out = s.finish();
  EXPECT_NE(out.find(R"(role="img")"), std::string::npos);
  EXPECT_NE(out.find(R"(<title id="demo-title">A &lt;demo&gt; chart</title>)"), std::string::npos);
  EXPECT_NE(out.find(">x &lt; y</text>"), std::string::npos);
  EXPECT_NE(out.find("<title>tip &amp; more</title></polygon>"), std::string::npos);
}

TEST(Svg, PaletteStartsColourBlindSafeAndWraps) {
  EXPECT_EQ(colour(0), "#0072B2");
  EXPECT_EQ(colour(8), colour(0));
  EXPECT_EQ(dash(0), "");
  EXPECT_NE(dash(1), "");
}

}  // namespace
}  // namespace ntpsim::reports::svg
